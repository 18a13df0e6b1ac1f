// Crash recovery: a worker killed with SIGKILL anywhere in a turn is replaced, the turn finishes, and the
// trace holds each event exactly once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelOutput, ToolOutput } from "../../src/domain/events.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { reachedFile, type GatePoint } from "../fixtures/temporal/gates.js";
import { TOWN_MODEL, TOWN_QUESTIONS, townCatalog } from "../fixtures/temporal/town.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import {
  STORE_KINDS,
  gateFolder,
  openStore,
  recordHistory,
  sharedBundleFile,
  spawnWorker,
  waitForFile,
  withWorker,
} from "./harness.js";

/** Where the worker dies: the gate it waits at when the test kills it. */
const KILL_POINTS: { where: string; at: GatePoint; occurrence: number }[] = [
  { where: "during a model call", at: "model", occurrence: 2 },
  { where: "during a tool call", at: "tool", occurrence: 1 },
  {
    where: "between two steps (the model step recorded and the tool step planned, not reported)",
    at: "plan",
    occurrence: 1,
  },
  { where: "after a model output was recorded, before its activity reported", at: "recorded", occurrence: 1 },
];

// Short timeouts, so the server gives a dead worker's activity to the new worker within seconds.
const SETTINGS = { heartbeatSeconds: 2, controlSeconds: 3 };

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundleFile();
});
afterAll(() => temporal.close());

describe.each(STORE_KINDS)("on %s", (kind) => {
  it.each(KILL_POINTS)(
    "a worker killed with SIGKILL $where is replaced, the turn completes, each event recorded once",
    async ({ at, occurrence }) => {
      const store = await openStore(kind);
      const taskQueue = uniqueTaskQueue(`crash-${at}`);
      const gate = { at, occurrence, dir: gateFolder() };
      try {
        const doomed = await spawnWorker({ taskQueue, store: store.spec, gate });
        const turn = await startTurn(temporal.client, {
          agent: "assistant",
          threadId: `crash-${at}-${kind}`,
          input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
          taskQueue,
          settings: SETTINGS,
        });
        await waitForFile(reachedFile(gate));
        doomed.process.kill("SIGKILL");
        expect(await doomed.exited).toBe("SIGKILL");

        const { catalog } = townCatalog(store.store);
        const result = await withWorker(catalog, taskQueue, () => turn.result());
        if (kind === "sqlite" && at === "model")
          await recordHistory(temporal.client, "crash-during-model-call", turn, turn.runId);

        const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
        expect(trace.events.map((event) => event.type)).toEqual([
          "input",
          "model-output",
          "tool-output",
          "model-output",
        ]);
        expect(trace.byType(ModelOutput).map((output) => output.toolCalls.map((call) => call.id))).toEqual([
          ["call-1"],
          [],
        ]);
        expect(trace.byType(ToolOutput).map((output) => output.callId)).toEqual(["call-1"]);
        expect(result).toMatchObject({ sources: ["waste-collection#2"], modelCalls: 2, toolCalls: 1, events: 4 });
      } finally {
        await store.close();
      }
    },
  );
});
