// The Temporal SDK records a stack trace, mapped through the workflow bundle's source map, for every promise made
// in a workflow (a few hundred µs each on the worker's workflow thread), so the turn workflow makes few: a node of
// one unit awaits its activity itself (no Promise.allSettled, no async wrapper), and a turn with no Update still
// running does not wait on a condition. Counted on a replay: deterministic for a given SDK and Node.
import v8 from "node:v8";
import { join } from "node:path";
import { Worker } from "@temporalio/worker";
import { expect, it } from "vitest";
import { HISTORIES, loadHistory, sharedBundle, turnWorkflowId } from "./harness.js";

// The SDK's promise hook marks each promise made in a workflow with the run's id: those are counted.
let made = 0;
const createHook = v8.promiseHooks.createHook;
v8.promiseHooks.createHook = (hooks) =>
  createHook({
    ...hooks,
    init(promise, parent) {
      hooks.init?.(promise, parent);
      if ((promise as { runId?: string }).runId !== undefined) made += 1;
    },
  });

async function promisesOf(name: string): Promise<number> {
  const history = loadHistory(join(HISTORIES, `${name}.json`));
  made = 0;
  const results = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: await sharedBundle() }, [
    { workflowId: turnWorkflowId(history), history },
  ]))
    results.push(result);
  expect(results.map((result) => result.error?.message ?? null)).toEqual([null]);
  return made;
}

it("a one-pass turn's workflow makes at most 24 promises, and a turn that waits for a person's answer at most 79", async () => {
  // Before the single-unit path and the skipped condition: 42 and 114. A bound, not an exact count: the SDK's
  // own promises vary with Node's version (Node 20 counts 79 for the person's turn, Node 24 counts 53).
  const onePass = await promisesOf("tutorial-2-turn-1");
  expect(onePass, "open, model call, tool call, model call").toBeGreaterThan(0);
  expect(onePass, "open, model call, tool call, model call").toBeLessThanOrEqual(24);
  const person = await promisesOf("person-answered");
  expect(person, "a tool call that waits for approval, answered").toBeGreaterThan(onePass);
  expect(person, "a tool call that waits for approval, answered").toBeLessThanOrEqual(79);
});
