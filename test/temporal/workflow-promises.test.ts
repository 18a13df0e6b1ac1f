// The Temporal SDK records a stack trace, mapped through the workflow bundle's source map, for every promise made
// in a workflow (a few hundred µs each on the worker's workflow thread), so the turn workflow makes few: a node of
// one unit awaits its activity itself (no Promise.allSettled, no async wrapper), and a turn with no Update still
// running does not wait on a condition. Counted on a replay: deterministic for a given SDK.
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

it("a one-pass turn's workflow makes 24 promises, and a turn that waits for a person's answer 79", async () => {
  // Before the single-unit path and the skipped condition: 42 and 114.
  // Exact, so that a change of the SDK or of the workflow that makes more (or none counted) shows here.
  expect(await promisesOf("tutorial-2-turn-1"), "open, model call, tool call, model call").toBe(24);
  expect(await promisesOf("person-answered"), "a tool call that waits for approval, answered").toBe(79);
});
