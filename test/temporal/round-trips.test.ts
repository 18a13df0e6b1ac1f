// As few Temporal round trips as the peers: each unit returns what comes next, opening a turn records its
// input in a local activity (no round trip of its own), and the last unit closes the turn. Counted from the
// fetched history (counts are deterministic): a one-pass turn runs as many activities as the peer-style
// baseline of bench/baseline (model, tool, model), and one local activity.
import type { Client } from "@temporalio/client";
import { expect, it } from "vitest";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { startTurn, type TurnHandle } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { assistant } from "../../examples/tutorials/02-citations/agent.js";
import { activityOf, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { withWorker, type TestStore, useClientAndStore } from "./harness.js";

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));

/** The activity types a turn ran, in order, from its history (a local activity as `local <type>`). */
async function scheduled(client: Client, turn: TurnHandle): Promise<string[]> {
  const history = await client.workflow.getHandle(turn.workflowId, turn.runId).fetchHistory();
  return (history.events ?? []).flatMap((event) => activityOf(event) ?? []);
}

async function runTurn(model: ScriptedModel, threadId: string): Promise<string[]> {
  const catalog = new AgentCatalog(store.store, { assistant: assistant(model) });
  const taskQueue = uniqueTaskQueue("round-trips");
  return withWorker(catalog, taskQueue, async () => {
    const turn = await startTurn(temporal.client, {
      agent: "assistant",
      threadId,
      input: { payload: "How often can I have bulky waste picked up?", model: "scripted" },
      taskQueue,
    });
    await turn.result();
    return scheduled(temporal.client, turn);
  });
}

it("a turn with one tool call runs 3 activities, model, tool, model (which closes the turn), after a local one that opens it", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }] },
    "Four times a year [2].",
  ]);
  expect(await runTurn(model, "one-tool")).toEqual(["local openTurn", "callModel", "callTool", "callModel"]);
});

it("each further pass with one tool call costs 2 activities, and a pass with two tool calls 3", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }] },
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste price" } }] },
    {
      toolCalls: [
        { name: "search", arguments: { query: "parking permit" } },
        { name: "search", arguments: { query: "parking zones" } },
      ],
    },
    "Four times a year [2].",
  ]);
  expect(await runTurn(model, "three-passes")).toEqual([
    "local openTurn",
    "callModel",
    "callTool",
    "callModel",
    "callTool",
    "callModel",
    "callTool",
    "callTool",
    "callModel",
  ]);
});
