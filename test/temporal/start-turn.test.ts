// Starting turns: one turn at a time per thread, a clear error for a second, what the Temporal UI shows,
// and a start from a client that knows only the workflow type, the task queue and the JSON argument.
import { writeFileSync } from "node:fs";
import { WorkflowFailedError } from "@temporalio/client";
import { describe, expect, it } from "vitest";
import { Input } from "../../src/domain/events.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { TURN_WORKFLOW, workflowIdOf, type TurnArgument, type TurnResult } from "../../src/temporal/contract.js";
import { TurnRunningError } from "../../src/temporal/errors.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { QUESTIONS, assistant } from "../../examples/tutorials/02-citations/agent.js";
import { reachedFile, releaseFile } from "../fixtures/temporal/gates.js";
import { TOWN_MODEL, TOWN_QUESTIONS, townCatalog } from "../fixtures/temporal/town.js";
import { activityOf, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { gateFolder, waitForFile, withWorker, type TestStore, useClientAndStore } from "./harness.js";

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));

const input = (payload: string) => ({ payload, model: TOWN_MODEL });

describe("one turn at a time per thread", () => {
  it("a second start while a turn runs gets TurnRunningError naming the running turn; after it ends, the next turn starts", async () => {
    const gate = { at: "model" as const, occurrence: 1, dir: gateFolder() };
    const { catalog } = townCatalog(store.store, gate);
    const taskQueue = uniqueTaskQueue("running");
    await withWorker(catalog, taskQueue, async () => {
      const first = await startTurn(temporal.client, {
        agent: "assistant",
        threadId: "running",
        input: input(TOWN_QUESTIONS[0]!),
        taskQueue,
      });
      await waitForFile(reachedFile(gate));
      const second = startTurn(temporal.client, {
        agent: "assistant",
        threadId: "running",
        input: input(TOWN_QUESTIONS[1]!),
        taskQueue,
      });
      await expect(second).rejects.toThrow(TurnRunningError);
      await expect(second).rejects.toMatchObject({
        workflowId: "soev-thread-running",
        message: expect.stringContaining('A turn of thread "running" is running: workflow "soev-thread-running"'),
      });
      writeFileSync(releaseFile(gate), "");
      await first.result();
      const next = await startTurn(temporal.client, {
        agent: "assistant",
        threadId: "running",
        input: input(TOWN_QUESTIONS[1]!),
        taskQueue,
      });
      expect(next.runId).not.toBe(first.runId);
      expect(await next.result()).toMatchObject({ sources: ["parking-permits#0"], positions: { first: 5, last: 8 } });
    });
    const trace = await readTrace(store.store, catalog.types("assistant"), "running");
    expect(trace.events.filter((event) => event.type === "input").map((event) => (event as Input).payload)).toEqual(
      TOWN_QUESTIONS,
    );
  });
});

describe("what the Temporal UI shows", () => {
  it("a turn carries its static summary and details, the thread and agent search attributes, and activity summaries", async () => {
    const { catalog } = townCatalog(store.store);
    const taskQueue = uniqueTaskQueue("ui");
    const turn = await startTurn(temporal.client, {
      agent: "assistant",
      threadId: "shown",
      input: input(TOWN_QUESTIONS[0]!),
      taskQueue,
    });
    await withWorker(catalog, taskQueue, () => turn.result());

    const described = await turn.workflow.describe();
    expect(await described.staticSummary()).toBe(
      "assistant: How often can I have bulky waste picked up, and what does it cost?",
    );
    expect(await described.staticDetails()).toContain("**Thread:** `shown`");
    const listed = [];
    for await (const workflow of temporal.client.workflow.list({
      query: `SoevThreadId = "shown" AND SoevAgent = "assistant"`,
    }))
      listed.push(workflow.workflowId);
    expect(listed).toEqual([workflowIdOf("shown")]);

    const history = await turn.workflow.fetchHistory();
    const summaries = (history.events ?? []).flatMap((event) => {
      const activity = activityOf(event);
      const summary = event.userMetadata?.summary?.data;
      return activity && summary ? [[activity, JSON.parse(Buffer.from(summary).toString()) as string]] : [];
    });
    expect(summaries).toEqual([
      ["local openTurn", 'input: "How often can I have bulky waste picked up, and what does it cost?"'],
      ["callModel", "scripted, pass 1"],
      ["callTool", 'search({"query":"bulky waste pickup"})'],
      ["callModel", "scripted, pass 2"],
    ]);
  });
});

describe("a start from a client of any SDK", () => {
  it("the workflow type, the task queue and the JSON argument start a turn; a null thread id opens a new thread", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search", arguments: { query: "parking permit" } }] },
      "120 euros a year [2].",
    ]);
    const catalog = new AgentCatalog(store.store, { assistant: assistant(model) });
    const taskQueue = uniqueTaskQueue("raw");
    const argument: TurnArgument = {
      agent: "assistant",
      threadId: null,
      input: { payload: QUESTIONS[1]!, model: "scripted" },
    };
    const result = await withWorker(catalog, taskQueue, async () => {
      const handle = await temporal.client.workflow.start(TURN_WORKFLOW, {
        args: [argument],
        taskQueue,
        workflowId: "raw-start-new-thread",
      });
      return (await handle.result()) as TurnResult;
    });
    expect(result).toMatchObject({
      agent: "assistant",
      answer: "120 euros a year [2].",
      sources: ["parking-permits#0"],
      positions: { first: 1, last: 4 },
    });
    expect(result.threadId).toMatch(/^[0-9a-f-]{36}$/);
    const trace = await readTrace(store.store, catalog.types("assistant"), result.threadId);
    expect(trace.events.map((event) => event.type)).toEqual(["input", "model-output", "tool-output", "model-output"]);
  });

  it("a malformed argument fails the workflow with a ValueError that says what to send, and records nothing", async () => {
    const { catalog } = townCatalog(store.store);
    const taskQueue = uniqueTaskQueue("malformed");
    const failed = await withWorker(catalog, taskQueue, async () => {
      const handle = await temporal.client.workflow.start(TURN_WORKFLOW, {
        args: [{ agent: "assistant", threadId: "malformed" }],
        taskQueue,
        workflowId: workflowIdOf("malformed"),
      });
      return handle.result().then(
        () => null,
        (error: unknown) => error,
      );
    });
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    expect((failed as WorkflowFailedError).cause).toMatchObject({
      type: "ValueError",
      message: expect.stringContaining("has no input with a payload"),
    });
    expect((await readTrace(store.store, catalog.types("assistant"), "malformed")).length).toBe(0);
  });

  it("a turn with an agent other than the thread's fails with ThreadAgentError, and records nothing", async () => {
    const { catalog } = townCatalog(store.store);
    const both = new AgentCatalog(store.store, {
      assistant: catalog.agent("assistant"),
      other: catalog.agent("assistant"),
    });
    const taskQueue = uniqueTaskQueue("agent");
    const failed = await withWorker(both, taskQueue, async () => {
      await (
        await startTurn(temporal.client, {
          agent: "assistant",
          threadId: "owned",
          input: input(TOWN_QUESTIONS[0]!),
          taskQueue,
        })
      ).result();
      const wrong = await startTurn(temporal.client, {
        agent: "other",
        threadId: "owned",
        input: input(TOWN_QUESTIONS[1]!),
        taskQueue,
      });
      return wrong.result().then(
        () => null,
        (error: unknown) => error,
      );
    });
    expect((failed as WorkflowFailedError).cause).toMatchObject({
      type: "ThreadAgentError",
      message: expect.stringContaining('belongs to agent "assistant", not "other"'),
    });
    expect((await readTrace(store.store, catalog.types("assistant"), "owned")).length).toBe(4);
  });
});
