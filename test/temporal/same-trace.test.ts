// Two runners, one step code: the same scripted conversation gives the same trace locally and on Temporal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Input, TaskInput } from "../../src/domain/events.js";
import type { ChatModel } from "../../src/ports/model.js";
import type { Agent } from "../../src/runtime/agent.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { QUESTIONS, assistant } from "../../examples/tutorials/02-citations/agent.js";
import { assistant as delegatingAssistant, research } from "../fixtures/delegation.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import {
  STORE_KINDS,
  openStore,
  recordHistory,
  sharedBundle,
  withWorker,
  withoutTimes,
  type TestStore,
} from "./harness.js";

const tutorialScript = () =>
  new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }] },
    "You can have bulky waste picked up for free four times a year [2]. An extra pickup costs 25 euros [2].",
    { toolCalls: [{ name: "search", arguments: { query: "parking permit" } }] },
    "A resident parking permit costs 120 euros a year [5].",
  ]);

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundle();
});
afterAll(() => temporal.close());

/** Run the questions as turns of one thread on the local runner; return the trace. */
async function runLocally(store: TestStore, agent: Agent, threadId: string, questions: readonly string[]) {
  const catalog = new AgentCatalog(store.store, { assistant: agent }, { version: "tutorial-2" });
  const [thread] = await catalog.open("assistant", Input({ payload: questions[0]!, model: "scripted" }), { threadId });
  await thread.resume();
  for (const question of questions.slice(1)) await thread.send(Input({ payload: question, model: "scripted" }));
  return catalog.read(threadId, "assistant");
}

/** Run the questions as turns of one thread, each a workflow on Temporal; return the trace and the results. */
async function runOnTemporal(
  store: TestStore,
  agent: Agent,
  threadId: string,
  questions: readonly string[],
  record?: string,
) {
  const catalog = new AgentCatalog(store.store, { assistant: agent }, { version: "tutorial-2" });
  const taskQueue = uniqueTaskQueue("same-trace");
  const results = await withWorker(catalog, taskQueue, async () => {
    const done = [];
    for (const [index, question] of questions.entries()) {
      const turn = await startTurn(temporal.client, {
        agent: "assistant",
        threadId,
        input: { payload: question, model: "scripted" },
        taskQueue,
      });
      done.push(await turn.result());
      if (record) await recordHistory(temporal.client, `${record}-turn-${index + 1}`, turn, turn.runId);
    }
    return done;
  });
  return { trace: await readTrace(store.store, catalog.types("assistant"), threadId), results };
}

describe.each(STORE_KINDS)("on %s", (kind) => {
  it("a tutorial-2 thread of two turns gives the same trace on Temporal as on the local runner, timestamps aside", async () => {
    const [local, remote] = [await openStore(kind), await openStore(kind)];
    try {
      const threadId = `tutorial-2-${kind}`;
      const expected = await runLocally(local, assistant(tutorialScript()), threadId, QUESTIONS);
      const { trace, results } = await runOnTemporal(
        remote,
        assistant(tutorialScript()),
        threadId,
        QUESTIONS,
        kind === "sqlite" ? "tutorial-2" : undefined,
      );

      expect(trace.events.map((event) => event.type)).toEqual([
        "input",
        "model-output",
        "tool-output",
        "model-output",
        "input",
        "model-output",
        "tool-output",
        "model-output",
      ]);
      expect(withoutTimes(trace)).toEqual(withoutTimes(expected));
      expect(
        results.map((result) => [result.answer, result.sources, result.positions, result.modelCalls, result.toolCalls]),
      ).toEqual([
        [
          "You can have bulky waste picked up for free four times a year [2]. An extra pickup costs 25 euros [2].",
          ["waste-collection#2"],
          { first: 1, last: 4 },
          2,
          1,
        ],
        ["A resident parking permit costs 120 euros a year [5].", ["parking-permits#0"], { first: 5, last: 8 }, 2, 1],
      ]);
    } finally {
      await local.close();
      await remote.close();
    }
  });
});

describe("a delegation on Temporal", () => {
  const delegating = (parent: ChatModel, child: ChatModel) => delegatingAssistant(parent, research(child));
  const parentScript = () =>
    new ScriptedModel([
      { toolCalls: [{ id: "p1", name: "research", arguments: { question: "bulky waste pickup" } }] },
      "Four times a year, for free [2].",
    ]);
  const childScript = () =>
    new ScriptedModel([
      { toolCalls: [{ id: "r1", name: "search", arguments: { query: "bulky waste pickup" } }] },
      "Bulky waste is picked up for free four times a year [2].",
    ]);

  it("runs the task as a child workflow on its own stream, with the same trace as the local runner", async () => {
    const [local, remote] = [await openStore("sqlite"), await openStore("sqlite")];
    try {
      const questions = ["How often can I have bulky waste picked up?"];
      const expected = await runLocally(local, delegating(parentScript(), childScript()), "delegation", questions);
      const { trace, results } = await runOnTemporal(
        remote,
        delegating(parentScript(), childScript()),
        "delegation",
        questions,
        "delegation",
      );

      expect(trace.stream("task-p1").events.map((event) => event.type)).toEqual([
        "task-input",
        "model-output",
        "tool-output",
        "model-output",
      ]);
      expect(trace.byType(TaskInput)).toHaveLength(1);
      expect(withoutTimes(trace)).toEqual(withoutTimes(expected));
      expect(results[0]).toMatchObject({
        answer: "Four times a year, for free [2].",
        sources: ["waste-collection#2"],
        modelCalls: 2,
        toolCalls: 1,
      });
      const children = temporal.client.workflow.list({
        query: `WorkflowType = "soevTask" AND WorkflowId = "soev-thread-delegation/task-p1"`,
      });
      const found = [];
      for await (const child of children) found.push(child.status.name);
      expect(found).toEqual(["COMPLETED"]);
    } finally {
      await local.close();
      await remote.close();
    }
  });
});
