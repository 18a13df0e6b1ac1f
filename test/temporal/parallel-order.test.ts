// On Temporal, the results of parallel tool calls are recorded in the order the model made the calls: a
// call that finished early waits, heartbeating, until the calls before it are recorded; a call whose last
// attempt failed records its Failure in its place, so the calls after it go on and the turn fails once.
import { setTimeout as sleep } from "node:timers/promises";
import { ApplicationFailure } from "@temporalio/common";
import { Worker } from "@temporalio/worker";
import { expect, it } from "vitest";
import { createActivities } from "../../activities/index.js";
import { Failure, type Event } from "../../src/domain/events.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { PARALLEL_SCRIPT, TOWN_MODEL, TOWN_QUESTIONS, townCatalog } from "../fixtures/temporal/town.js";
import { connectWorker, temporalNamespace, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { sharedBundle, withWorker, type TestStore, useClientAndStore } from "./harness.js";

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));

/** How long each search (by its query) or read (by its document) waits before it runs: the later calls finish first. */
const WAITS: Record<string, number> = {
  "bulky waste pickup": 600,
  "parking permit": 300,
  "1": 400,
  "4": 0,
};

/** Run one turn of the parallel script; each search waits WAITS first, and `broken` raises instead of running. */
async function runTurn(threadId: string, broken?: string) {
  const { catalog } = townCatalog(store.store, null, {
    script: PARALLEL_SCRIPT,
    beforeTool: async (args) => {
      const { query, document } = args as { query?: string; document?: number };
      await sleep(WAITS[query ?? String(document)] ?? 0);
      if (broken !== undefined && query === broken) throw new TypeError(`The search for "${query}" broke.`);
    },
  });
  const taskQueue = uniqueTaskQueue("parallel-order");
  const outcome = await withWorker(catalog, taskQueue, async () => {
    const turn = await startTurn(temporal.client, {
      agent: "assistant",
      threadId,
      input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
      taskQueue,
    });
    return turn.result().then(
      () => null,
      (error: unknown) => error,
    );
  });
  const trace = await readTrace(store.store, catalog.types("assistant"), threadId);
  return { outcome, trace };
}

const named = (event: Event) => `${Failure.is(event) ? "failure" : event.type} ${event.callId ?? ""}`.trim();

it("records the parallel tool results in call order, whichever call finished first", async () => {
  const { outcome, trace } = await runTurn("parallel-order");
  expect(outcome).toBeNull();
  expect(trace.events.map(named)).toEqual([
    "input",
    "model-output",
    "tool-output call-1",
    "tool-output call-2",
    "tool-output call-3",
    "model-output",
    "tool-output call-4",
    "tool-output call-5",
    "model-output",
  ]);
});

it("records an earlier call's last failure in its place: the later calls go on, and the turn fails once", async () => {
  const { outcome, trace } = await runTurn("parallel-failure", "bulky waste pickup");
  expect(String(outcome)).toMatch(/failed/i);
  expect(trace.events.map(named)).toEqual([
    "input",
    "model-output",
    "failure call-1",
    "tool-output call-2",
    "tool-output call-3",
  ]);
  expect(trace.byType(Failure)).toEqual([
    expect.objectContaining({
      error: "TypeError",
      message: 'The search for "bulky waste pickup" broke.',
      retryable: false,
    }),
  ]);
});

it("a retried call whose Failure its last attempt recorded fails at once, without running the tool again", async () => {
  const runs: string[] = [];
  const { catalog } = townCatalog(store.store, null, {
    script: PARALLEL_SCRIPT,
    beforeTool: async (args) => {
      const { query } = args as { query?: string };
      runs.push(query ?? "");
      if (query === "bulky waste pickup") throw new TypeError("The search broke.");
    },
  });
  const activities = createActivities({ catalog });
  let lost = false;
  // The first attempt of call-1 records its Failure, then its report is lost (as if its worker died): Temporal retries it.
  const callTool: typeof activities.callTool = async (argument) => {
    try {
      return await activities.callTool(argument);
    } catch (error) {
      if (argument.unit.key !== "call-1" || lost) throw error;
      lost = true;
      throw ApplicationFailure.retryable("The report of the attempt was lost.", "LostReport");
    }
  };
  const taskQueue = uniqueTaskQueue("parallel-retry");
  const connection = await connectWorker();
  try {
    const worker = await Worker.create({
      connection,
      taskQueue,
      namespace: temporalNamespace(),
      workflowBundle: await sharedBundle(),
      activities: { ...activities, callTool },
    });
    const outcome = await worker.runUntil(async () => {
      const turn = await startTurn(temporal.client, {
        agent: "assistant",
        threadId: "parallel-retry",
        input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
        taskQueue,
      });
      return turn.result().then(
        () => null,
        (error: unknown) => error as Error,
      );
    });
    expect((outcome?.cause as Error | undefined)?.message).toBe("The search broke.");
  } finally {
    await connection.close();
  }
  expect(lost).toBe(true);
  expect(runs.filter((query) => query === "bulky waste pickup")).toHaveLength(1);
  const trace = await readTrace(store.store, catalog.types("assistant"), "parallel-retry");
  expect(trace.byType(Failure)).toEqual([expect.objectContaining({ callId: "call-1", message: "The search broke." })]);
});
