// Two workers on one task queue, each with its own store connection and its own cache of decoded traces,
// serve interleaved turns of several threads: units of one turn land on either worker, so each worker's
// cached traces go stale between its units. Every trace must still be exact: a read tops the cache up,
// and the append's expected stream length fences a decision taken on a stale view.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresTraceStore } from "../../src/adapters/stores/postgres.js";
import { SqliteTraceStore } from "../../src/adapters/stores/sqlite.js";
import type { TraceStore } from "../../src/ports/store.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { TOWN_MODEL, TOWN_QUESTIONS, TOWN_SCRIPT, passModel, townAgent } from "../fixtures/temporal/town.js";
import type { StoreSpec } from "../fixtures/temporal/worker.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { STORE_KINDS, openStore, sharedBundle, withWorker, withoutTimes } from "./harness.js";

const THREADS = 3;

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundle();
});
afterAll(() => temporal.close());

function secondStore(spec: StoreSpec): TraceStore {
  return "sqlite" in spec
    ? new SqliteTraceStore(spec.sqlite)
    : new PostgresTraceStore({ connectionString: spec.postgres, schema: spec.schema });
}

/** A worker's catalog on its own store object (so its own trace cache), counting the units it ran. */
function workerCatalog(store: TraceStore, units: { count: number }): AgentCatalog {
  return new AgentCatalog(
    store,
    { assistant: townAgent(passModel(TOWN_SCRIPT)) },
    { version: "tutorial-2", observer: { call: () => void units.count++ } },
  );
}

describe.each(STORE_KINDS)("on %s", (kind) => {
  it("interleaved turns of several threads on two workers give every thread the exact trace", async () => {
    const first = await openStore(kind);
    const second = secondStore(first.spec);
    const [unitsA, unitsB] = [{ count: 0 }, { count: 0 }];
    const taskQueue = uniqueTaskQueue("two-workers");
    const threads = Array.from({ length: THREADS }, (_, index) => `two-workers-${kind}-${index}`);
    try {
      const catalogA = workerCatalog(first.store, unitsA);
      const catalogB = workerCatalog(second, unitsB);
      await withWorker(catalogA, taskQueue, () =>
        withWorker(catalogB, taskQueue, async () => {
          for (const question of TOWN_QUESTIONS) {
            const turns = await Promise.all(
              threads.map((threadId) =>
                startTurn(temporal.client, {
                  agent: "assistant",
                  threadId,
                  input: { payload: question, model: TOWN_MODEL },
                  taskQueue,
                }),
              ),
            );
            await Promise.all(turns.map((turn) => turn.result()));
          }
        }),
      );
      const types = catalogA.types("assistant");
      const traces = await Promise.all(threads.map((threadId) => readTrace(first.store, types, threadId)));
      for (const trace of traces) {
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
        expect(trace.events.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
        // Same events as the first thread's, timestamps aside: each turn read its thread exactly.
        expect(withoutTimes(trace)).toEqual(withoutTimes(traces[0]!));
      }
      // Each worker's cache is also exact after its reads were stale in between.
      for (const threadId of threads)
        expect(withoutTimes(await readTrace(second, types, threadId))).toEqual(withoutTimes(traces[0]!));
      expect(unitsA.count, "units run on the first worker").toBeGreaterThan(0);
      expect(unitsB.count, "units run on the second worker").toBeGreaterThan(0);
      expect(unitsA.count + unitsB.count).toBe(THREADS * TOWN_QUESTIONS.length * 3);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
