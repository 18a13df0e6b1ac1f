// On Temporal as on the local runner, a tool with values that nothing bound is refused before any model
// call: a turn's graph when the turn opens (its Input is not even recorded), a task's graph when the task
// is planned, before the task's first model call.
import { WorkflowFailedError } from "@temporalio/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ModelOutput } from "../../src/domain/events.js";
import type { Agent } from "../../src/runtime/agent.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { search } from "../../examples/tutorials/02-citations/tools.js";
import { assistant, research } from "../fixtures/delegation.js";
import { ReActAgent, ReActConfig } from "../../src/toolkit/index.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { openStore, sharedBundle, withWorker } from "./harness.js";

const UNBOUND = 'Tool "search" has values that nothing bound: "library".';

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundle();
});
afterAll(() => temporal.close());

/** The failure's message and those of its causes, outermost first. */
function messages(error: unknown): string[] {
  const found: string[] = [];
  for (let cause = error as Error | undefined; cause; cause = cause.cause as Error | undefined)
    found.push(cause.message);
  return found;
}

/** Run one turn of the catalog's assistant on a fresh store: the turn's failure (or null) and the thread's trace. */
async function refusedTurn(agent: Agent, name: string) {
  const store = await openStore("sqlite");
  try {
    const catalog = new AgentCatalog(store.store, { assistant: agent }, { version: "test" });
    const taskQueue = uniqueTaskQueue(name);
    const turn = await startTurn(temporal.client, {
      agent: "assistant",
      input: { payload: "Dogs?", model: "scripted" },
      taskQueue,
    });
    const failed = await withWorker(catalog, taskQueue, () =>
      turn.result().then(
        () => null,
        (error: unknown) => error,
      ),
    );
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    expect(messages(failed).some((message) => message.includes(UNBOUND))).toBe(true);
    return await readTrace(store.store, catalog.types("assistant"), turn.threadId);
  } finally {
    await store.close();
  }
}

it("refuses a turn whose agent holds an unbound tool before the model is called, recording nothing", async () => {
  const model = new ScriptedModel([{ toolCalls: [{ name: "search", arguments: { query: "dog" } }] }, "Done."]);
  const trace = await refusedTurn(
    new ReActAgent(new ReActConfig({ model, prompt: "Answer.", tools: [search] })),
    "unbound",
  );
  expect(model.requests).toHaveLength(0);
  expect(trace.events).toEqual([]);
});

it("refuses a task whose delegation's graph holds an unbound tool before the task's model is called", async () => {
  const parent = new ScriptedModel([
    { toolCalls: [{ id: "p1", name: "research", arguments: { question: "dogs" } }] },
    "Done.",
  ]);
  const child = new ScriptedModel([{ toolCalls: [{ name: "search", arguments: { query: "dog" } }] }, "Dogs."]);
  const trace = await refusedTurn(assistant(parent, research(child, search)), "unbound-task");
  expect(parent.requests).toHaveLength(1);
  expect(child.requests).toHaveLength(0);
  expect(trace.byType(ModelOutput).map((output) => output.stream)).toEqual(["main"]);
});
