// Two attempts of one activity at once: a worker frozen in a model call misses its heartbeats, Temporal
// retries the call on another worker, and the frozen attempt wakes up later. Nothing is appended twice.
import { writeFileSync } from "node:fs";
import type { Client } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelOutput, ToolOutput } from "../../src/domain/events.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import type { WorkDone } from "../../src/temporal/contract.js";
import { startTurn, type TurnHandle } from "../../src/temporal/start-turn.js";
import { reachedFile, releaseFile } from "../fixtures/temporal/gates.js";
import { TOWN_MODEL, TOWN_QUESTIONS, townCatalog } from "../fixtures/temporal/town.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import {
  STORE_KINDS,
  gateFolder,
  openStore,
  sharedBundleFile,
  spawnWorker,
  waitForFile,
  withPartWorker,
} from "./harness.js";

const SETTINGS = { heartbeatSeconds: 2, controlSeconds: 3 };

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundleFile();
});
afterAll(() => temporal.close());

/** Each attempt of the callModel activities of a workflow run, with what it returned (the attempts that completed). */
async function modelAttempts(client: Client, turn: TurnHandle): Promise<{ attempt: number; done: WorkDone | null }[]> {
  const history = await client.workflow.getHandle(turn.workflowId, turn.runId).fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Map(
    events.flatMap((event) =>
      event.activityTaskScheduledEventAttributes?.activityType?.name === "callModel"
        ? [[Number(event.eventId), true] as const]
        : [],
    ),
  );
  return events.flatMap((event) => {
    const started = event.activityTaskStartedEventAttributes;
    if (!started || !scheduled.has(Number(started.scheduledEventId))) return [];
    const completed = events.find(
      (other) =>
        Number(other.activityTaskCompletedEventAttributes?.scheduledEventId) === Number(started.scheduledEventId),
    );
    const data = completed?.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    return [
      { attempt: started.attempt ?? 0, done: data ? (JSON.parse(Buffer.from(data).toString()) as WorkDone) : null },
    ];
  });
}

describe.each(STORE_KINDS)("on %s", (kind) => {
  it("a zombie attempt that wakes after the retry recorded the output appends nothing", async () => {
    const store = await openStore(kind);
    const taskQueue = uniqueTaskQueue("zombie-late");
    const frozen = { at: "model" as const, occurrence: 2, dir: gateFolder() };
    try {
      const zombie = await spawnWorker({ taskQueue, store: store.spec, gate: frozen, activitiesOnly: true });
      const { catalog } = townCatalog(store.store);
      const { turn, woke } = await withPartWorker({ workflows: catalog }, taskQueue, async () => {
        const turn = await startTurn(temporal.client, {
          agent: "assistant",
          threadId: `zombie-late-${kind}`,
          input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
          taskQueue,
          settings: SETTINGS,
        });
        await waitForFile(reachedFile(frozen));
        zombie.process.kill("SIGSTOP");
        await withPartWorker({ activities: catalog }, taskQueue, () => turn.result());
        writeFileSync(releaseFile(frozen), "");
        zombie.process.kill("SIGCONT");
        return {
          turn,
          woke: await zombie.waitFor(
            (line) => line.event === "unit" && line.activity === "callModel" && line.key === "3",
            "the zombie's model call ended",
          ),
        };
      });
      zombie.process.kill("SIGKILL");

      expect(woke.skipped).toBe(true);
      const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
      expect(trace.events.map((event) => event.type)).toEqual(["input", "model-output", "tool-output", "model-output"]);
      expect(trace.byType(ToolOutput).map((output) => output.callId)).toEqual(["call-1"]);
      const attempts = await modelAttempts(temporal.client, turn);
      expect(attempts.at(-1)).toMatchObject({ attempt: 2, done: { skipped: false, seqs: [3], toolCalls: 0 } });
    } finally {
      await store.close();
    }
  });

  it("a zombie attempt that appends first leaves the retried attempt nothing to append", async () => {
    const store = await openStore(kind);
    const taskQueue = uniqueTaskQueue("zombie-first");
    const frozen = { at: "model" as const, occurrence: 2, dir: gateFolder() };
    const retried = { at: "model" as const, occurrence: 1, dir: gateFolder() };
    try {
      const zombie = await spawnWorker({ taskQueue, store: store.spec, gate: frozen, activitiesOnly: true });
      const { catalog } = townCatalog(store.store, retried);
      const { turn, result } = await withPartWorker({ workflows: catalog }, taskQueue, async () => {
        const turn = await startTurn(temporal.client, {
          agent: "assistant",
          threadId: `zombie-first-${kind}`,
          input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
          taskQueue,
          settings: SETTINGS,
        });
        await waitForFile(reachedFile(frozen));
        zombie.process.kill("SIGSTOP");
        // The retried attempt waits in its model call, having read the trace, while the zombie wakes and appends.
        const result = await withPartWorker({ activities: catalog }, taskQueue, async () => {
          await waitForFile(reachedFile(retried));
          writeFileSync(releaseFile(frozen), "");
          zombie.process.kill("SIGCONT");
          const woke = await zombie.waitFor(
            (line) => line.event === "unit" && line.activity === "callModel" && line.key === "3",
            "the zombie's model call ended",
          );
          expect(woke.skipped).toBe(false);
          writeFileSync(releaseFile(retried), "");
          return turn.result();
        });
        return { turn, result };
      });
      zombie.process.kill("SIGKILL");

      const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
      expect(trace.events.map((event) => event.type)).toEqual(["input", "model-output", "tool-output", "model-output"]);
      expect(trace.byType(ModelOutput).at(-1)!.content).toContain("four times a year");
      expect(result).toMatchObject({ modelCalls: 2, toolCalls: 1, sources: ["waste-collection#2"] });
      const attempts = await modelAttempts(temporal.client, turn);
      expect(attempts.at(-1)).toMatchObject({ attempt: 2, done: { skipped: true, seqs: [], toolCalls: 0 } });
    } finally {
      await store.close();
    }
  });
});
