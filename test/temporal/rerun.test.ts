// Re-runs on Temporal: 20 recorded threads re-run against a candidate agent as a durable batch, the worker
// SIGKILLed mid-batch and replaced. The batch finishes with each candidate turn once; the comparison counts
// the changed answers and the lost sources exactly; the recorded threads are byte for byte unchanged.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { compareRerun, rerunMarkdown } from "../../src/runtime/rerun-report.js";
import { startRerun } from "../../src/temporal/rerun.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { TOWN_MODEL } from "../fixtures/temporal/town.js";
import { changedByCandidate, rerunCatalog, rerunQuestion } from "../fixtures/rerun-catalog.js";
import { connectClient, temporalEnvironment, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { openStore, sharedBundleFile, spawnWorker, withWorker, type TestStore } from "./harness.js";

const THREADS = 20;
let temporal: TestClient;
let store: TestStore;
beforeAll(async () => {
  temporal = await connectClient();
  store = await openStore("sqlite");
  await sharedBundleFile();
});
afterAll(async () => {
  await store?.close();
  await temporal?.close();
});

/** Each thread's stored rows as JSON: what "unchanged" compares. */
async function rows(threadIds: readonly string[]): Promise<string[]> {
  const all: string[] = [];
  for (const threadId of threadIds)
    for await (const entry of store.store.read(threadId)) all.push(JSON.stringify(entry));
  return all;
}

/** Resolve once the store holds `count` candidate threads (polled: the batch runs in another process). */
async function untilCandidates(batchId: string, count: number): Promise<void> {
  for (;;) {
    const page = await store.store.threads({ limit: 100, before: null });
    if (page.filter(([id]) => id.startsWith(`rerun-${batchId}-`)).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("re-runs 20 recorded threads through a worker's SIGKILL: counts exact, nothing lost, doubled or changed", async () => {
  const catalog = rerunCatalog(store.store);
  const taskQueue = uniqueTaskQueue("rerun");
  const threadIds = Array.from({ length: THREADS }, (_, index) => `recorded-${index}`);
  await withWorker(catalog, taskQueue, () =>
    Promise.all(
      threadIds.map(async (threadId, index) => {
        const turn = await startTurn(temporal.client, {
          agent: "assistant",
          threadId,
          input: { payload: rerunQuestion(index), model: TOWN_MODEL },
          taskQueue,
        });
        return turn.result();
      }),
    ),
  );
  const before = await rows(threadIds);

  const settings = { heartbeatSeconds: 2, controlSeconds: 3 };
  const doomed = await spawnWorker({ taskQueue, store: store.spec, gate: null, env: { SOEV_TEST_RERUN: "1" } });
  const batch = await startRerun(temporal.client, {
    batchId: "b1",
    threadIds,
    agent: "assistant",
    candidate: { agent: "candidate", taskQueue },
    concurrency: 4,
    settings,
    taskQueue,
  });
  await untilCandidates(batch.batchId, 6);
  doomed.process.kill("SIGKILL");
  expect(await doomed.exited).toBe("SIGKILL");
  const result = await withWorker(catalog, taskQueue, () => batch.result());

  expect(result).toEqual({ batchId: "b1", threads: THREADS, turns: THREADS, failed: 0, skipped: 0 });
  expect(await rows(threadIds)).toEqual(before);
  for (const candidate of Object.values(batch.candidateThreads)) {
    const trace = await catalog.read(candidate, "candidate");
    expect(trace.events.map((event) => event.type)).toEqual(["input", "model-output", "tool-output", "model-output"]);
  }
  const report = await compareRerun({
    original: { catalog, agent: "assistant" },
    candidate: { catalog, agent: "candidate" },
    threads: threadIds.map((original) => ({ original, candidate: batch.candidateThreads[original]! })),
    judge: (original, candidate) => original.length === candidate.length,
  });
  const changed = threadIds.filter((_, index) => changedByCandidate(index)).length;
  expect(report.totals).toMatchObject({
    turns: THREADS,
    notRerun: 0,
    answersChanged: changed,
    sameMeaning: 0,
    sourcesLost: changed,
    sourcesAdded: 0,
    toolCallsAdded: 0,
    toolCallsDropped: 0,
    failuresCandidate: 0,
  });
  expect(report.turns.filter((turn) => turn.answerChanged).map((turn) => turn.thread)).toEqual(
    threadIds.filter((_, index) => changedByCandidate(index)),
  );
  expect(rerunMarkdown(report)).toContain(`| Answers changed | ${changed} (0 the same in meaning) |`);
}, 180_000);

it("re-runs threads from the command line and prints the comparison", async () => {
  const postgres = await openStore("postgres");
  try {
    const catalog = rerunCatalog(postgres.store);
    const taskQueue = uniqueTaskQueue("rerun-cli");
    const threadIds = ["cli-0", "cli-1", "cli-2"];
    const module = fileURLToPath(new URL("../fixtures/rerun-catalog-module.ts", import.meta.url));
    const spec = postgres.spec as { postgres: string; schema: string };
    const cli = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
    const { stdout } = await withWorker(catalog, taskQueue, async () => {
      for (const [index, threadId] of threadIds.entries())
        await (
          await startTurn(temporal.client, {
            agent: "assistant",
            threadId,
            input: { payload: rerunQuestion(index), model: TOWN_MODEL },
            taskQueue,
          })
        ).result();
      const args = [
        "--import",
        "tsx",
        cli,
        "rerun",
        ...threadIds,
        "--agent",
        "assistant",
        "--candidate-agent",
        "candidate",
      ];
      return promisify(execFile)(
        process.execPath,
        [...args, "--batch", "cli", "--catalog", module, "--candidate", module],
        {
          env: {
            ...temporalEnvironment(taskQueue),
            DATABASE_URL: spec.postgres,
            SOEV_DATABASE_SCHEMA: spec.schema,
          },
        },
      );
    });
    expect(stdout).toContain("batch cli: 3 threads, 3 turns re-run, 0 failed, 0 skipped");
    expect(stdout).toContain("| Answers changed | 1 (0 the same in meaning) |");
    expect(stdout).toContain("| `cli-0` | 1 | changed | `waste-collection#2` |");
  } finally {
    await postgres.close();
  }
}, 120_000);
