// As few Temporal round trips as the peers: each unit returns what comes next, opening a turn records its
// input, and the last unit closes the turn. Counted from the fetched history (counts are deterministic).
import type { Client } from "@temporalio/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { startTurn, type TurnHandle } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { assistant } from "../../examples/tutorials/02-citations/agent.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { openStore, sharedBundle, withWorker, type TestStore } from "./harness.js";

let temporal: TestClient;
let store: TestStore;
beforeAll(async () => {
  temporal = await connectClient();
  store = await openStore("sqlite");
  await sharedBundle();
});
afterAll(async () => {
  await store.close();
  await temporal.close();
});

/** The activity types a turn scheduled, in order, from its history. */
async function scheduled(client: Client, turn: TurnHandle): Promise<string[]> {
  const history = await client.workflow.getHandle(turn.workflowId, turn.runId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
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

it("a turn with one tool call runs 4 activities: open (with its input), model, tool, model (which closes the turn)", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }] },
    "Four times a year [2].",
  ]);
  expect(await runTurn(model, "one-tool")).toEqual(["openTurn", "callModel", "callTool", "callModel"]);
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
    "openTurn",
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
