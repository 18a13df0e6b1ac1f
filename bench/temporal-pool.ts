/**
 * A loaded worker pool on Temporal: many turns started at once on two worker processes that poll one task
 * queue, for soev-agents, the peer-style baseline (bench/baseline) and the peer (@temporalio/openai-agents,
 * bench/peer), one system at a time, on one dev server and the scripted OpenAI-compatible server over HTTP.
 * Per system: throughput, turn latency from start to result, failures, the workers' peak memory and CPU.
 * Writes its section of bench/README.md.
 *
 * Run: `npm run bench -- pool` or `npx tsx bench/temporal-pool.ts`. BENCH_POOL_TURNS (default 500) sets
 * the turns started at once; a list (`500,1000,2000`) runs each count in turn, and a system stops at its
 * first count with a failure. BENCH_POOL_DEADLINE_SECONDS (default 600) is how long a batch may take: a turn
 * not finished by then counts as a failure. BENCH_POOL_SYSTEMS (default `soev,baseline,peer`) chooses the systems.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@temporalio/client";
import { DefaultLogger, Runtime } from "@temporalio/worker";
import { startBenchTemporal } from "./shared/temporal-server.js";
import { markdownTable, writeSection } from "./report.js";
import { REPORT_CHARACTERS, startScriptedServer } from "./temporal/scripted.js";
import {
  bundleSystems,
  conversation,
  cpuSecondsOf,
  devServerPid,
  installPeerOnce,
  newTaskQueue,
  peakBytesOf,
  startWorker,
  SYSTEMS,
  SYSTEM_NAMES,
  type System,
  type WorkerEnvironment,
  type WorkerProcess,
} from "./temporal/systems.js";

/** The counts of turns started at once, tried in order. */
const COUNTS = (process.env.BENCH_POOL_TURNS ?? "500").split(",").map(Number);
/** The systems to run (BENCH_POOL_SYSTEMS, a list such as `soev,baseline`; default all). */
const CHOSEN = (process.env.BENCH_POOL_SYSTEMS ?? SYSTEMS.join(",")).split(",");
/** Tool passes per turn, as in temporal.ts's concurrent turns. */
const PASSES = 3;
/** Worker processes per system, on one task queue. */
const WORKERS = 2;
/** Turns that warm both workers up before a system's first batch. */
const WARM_UP_TURNS = 20;
const SETTLE_MILLISECONDS = 3_000;
const DEADLINE_SECONDS = Number(process.env.BENCH_POOL_DEADLINE_SECONDS ?? 600);
/** The targets: at least this many turns at once, with no failure. */
const TARGET_TURNS = 500;

const logger = new DefaultLogger("WARN");
Runtime.install({ logger });

/** What one batch of turns started at once measured. */
interface Batch {
  system: System;
  turns: number;
  /** The most turns whose workflow had started and whose result had not come back, at one moment. */
  peakInFlight: number;
  seconds: number;
  /** Each finished turn's milliseconds from start to result, ascending. */
  latencies: number[];
  failures: number;
  /** The failures' reasons (each error's message and its causes'), with how many turns failed so, most first. */
  reasons: [string, number][];
  /** Per worker process: peak resident bytes in the batch, and CPU seconds (user and system) over it. */
  workerPeakBytes: number[];
  workerCpuSeconds: number[];
  serverCpuSeconds: number;
  serverPeakBytes: number;
  /** This process's CPU seconds over the batch: the client's and the scripted model server's. */
  benchCpuSeconds: number;
}

/** The value at `fraction` of ascending `values` (nearest rank). */
const percentile = (values: readonly number[], fraction: number) =>
  values.length ? values[Math.max(0, Math.ceil(fraction * values.length) - 1)]! : NaN;
const round = (value: number, digits = 0) => Number(value.toFixed(digits));
const megabytes = (bytes: number) => round(bytes / 2 ** 20);
const processCpuSeconds = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
};

/** Start `count` turns of fresh threads at once on the workers' task queue and wait for them all, or the deadline. */
async function runBatch(
  system: System,
  workers: readonly WorkerProcess[],
  count: number,
  context: { client: Client; serverPid: number },
): Promise<Batch> {
  const taskQueue = workers[0]!.taskQueue;
  for (const worker of workers) worker.resetPeak();
  resetPeak(context.serverPid);
  const cpuBefore = workers.map((worker) => worker.cpuSeconds());
  const [serverCpuBefore, benchCpuBefore] = [cpuSecondsOf(context.serverPid), processCpuSeconds()];
  let [inFlight, peakInFlight] = [0, 0];
  const timer = new AbortController();
  const deadline = sleep(DEADLINE_SECONDS * 1000, undefined, { signal: timer.signal }).then(() => {
    throw new Error(`not finished within ${DEADLINE_SECONDS} s`);
  });
  deadline.catch(() => undefined);
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, async () => {
      let running = false;
      const turn = conversation(system, context.client, taskQueue).turn(PASSES, () => {
        running = true;
        peakInFlight = Math.max(peakInFlight, ++inFlight);
      });
      try {
        return await Promise.race([turn, deadline]);
      } finally {
        if (running) inFlight--;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  timer.abort();
  const failed = outcomes.filter((outcome) => outcome.status === "rejected");
  return {
    system,
    turns: count,
    peakInFlight,
    seconds,
    latencies: outcomes
      .flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value.milliseconds] : []))
      .sort((a, b) => a - b),
    failures: failed.length,
    reasons: countedReasons(failed.map((outcome) => (outcome as PromiseRejectedResult).reason)),
    workerPeakBytes: workers.map((worker) => worker.peakBytes()),
    workerCpuSeconds: workers.map((worker, index) => worker.cpuSeconds() - cpuBefore[index]!),
    serverCpuSeconds: cpuSecondsOf(context.serverPid) - serverCpuBefore,
    serverPeakBytes: peakBytesOf(context.serverPid),
    benchCpuSeconds: processCpuSeconds() - benchCpuBefore,
  };
}

/** An error's message and those of its causes, joined. */
function reasonOf(error: unknown): string {
  const messages: string[] = [];
  for (let link = error; link !== undefined && messages.length < 4; link = (link as Error).cause)
    messages.push(link instanceof Error ? `${link.name}: ${link.message}` : String(link));
  return messages.join(" ← ");
}

/** Each distinct reason among `errors` with how many share it, most first. */
function countedReasons(errors: readonly unknown[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const reason of errors.map(reasonOf)) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}

/** Start measuring a process's peak resident memory afresh (Linux 4.0 and later). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

const folder = mkdtempSync(join(tmpdir(), "soev-bench-pool-"));
const peerProblem = installPeerOnce();
const notes: string[] = peerProblem ? [`The peer did not run: ${peerProblem}`] : [];
const server = await startScriptedServer();
const temporal = await startBenchTemporal();
const batches: Batch[] = [];
try {
  console.log("Bundling the workflows ...");
  const environment: WorkerEnvironment = {
    temporalAddress: temporal.address,
    modelUrl: server.baseURL,
    bundles: await bundleSystems(folder, logger),
    sqlitePath: join(folder, "trace.sqlite"),
  };
  const context = { client: temporal.client, serverPid: devServerPid() };
  // The floor first: each system's row reads as the floor's and what it adds.
  const ordered = ["floor" as const, ...SYSTEMS.filter((system) => system !== "floor")];
  const chosen = ordered.filter((system) => CHOSEN.includes(system) && (system !== "peer" || peerProblem === null));
  for (const system of chosen) {
    const taskQueue = newTaskQueue(system);
    let workers: WorkerProcess[];
    try {
      workers = await Promise.all(
        Array.from({ length: WORKERS }, () => startWorker(system, environment, { taskQueue })),
      );
    } catch (error) {
      if (system !== "peer") throw error;
      notes.push(`The peer did not run: ${(error as Error).message.split("\n").slice(0, 6).join(" ")}`);
      continue;
    }
    try {
      console.log(`${SYSTEM_NAMES[system]}: warming ${WORKERS} workers up with ${WARM_UP_TURNS} turns ...`);
      await runBatch(system, workers, WARM_UP_TURNS, context);
      for (const count of COUNTS) {
        await sleep(SETTLE_MILLISECONDS);
        console.log(`${SYSTEM_NAMES[system]}: ${count} turns of ${PASSES} passes at once ...`);
        const batch = await runBatch(system, workers, count, context);
        batches.push(batch);
        console.log(
          `  ${batch.seconds.toFixed(1)} s, ${(batch.latencies.length / batch.seconds).toFixed(1)} turns/s, ` +
            `p50 ${percentile(batch.latencies, 0.5).toFixed(0)} ms, p99 ${percentile(batch.latencies, 0.99).toFixed(0)} ms, ` +
            `${batch.failures} failures${batch.reasons.map(([reason, count]) => `\n    ${count}× ${reason}`).join("")}`,
        );
        if (batch.failures > 0) break;
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  }
  writeSection("Temporal: a loaded worker pool (`temporal-pool.ts`)", report(batches, notes));
  console.log("Wrote the worker pool section of bench/README.md.");
} finally {
  await temporal.teardown();
  await server.close();
  rmSync(folder, { recursive: true, force: true });
}

/** The section's markdown: the method, one row per batch, the targets met or not per system. */
function report(batches: readonly Batch[], notes: readonly string[]): string {
  const rows = batches.map((batch) => [
    SYSTEM_NAMES[batch.system],
    batch.turns,
    batch.peakInFlight,
    round(batch.seconds, 1),
    round(batch.latencies.length / batch.seconds, 1),
    round(percentile(batch.latencies, 0.5)),
    round(percentile(batch.latencies, 0.99)),
    round(batch.latencies.at(-1) ?? NaN),
    batch.failures,
    batch.workerPeakBytes.map((bytes) => megabytes(bytes).toLocaleString("en-US")).join(" / "),
    batch.workerCpuSeconds.map((seconds) => seconds.toFixed(1)).join(" + "),
    round(batch.serverCpuSeconds, 1),
    megabytes(batch.serverPeakBytes),
    round(batch.benchCpuSeconds, 1),
  ]);
  const check = (met: boolean) => (met ? "met" : "**not met**");
  const targets: (string | number)[][] = [["target (issue 60)", "system", "measured", ""]];
  for (const system of SYSTEMS) {
    const own = batches.filter((batch) => batch.system === system);
    if (own.length === 0) continue;
    const failures = own.reduce((sum, batch) => sum + batch.failures, 0);
    const turns = own.reduce((sum, batch) => sum + batch.turns, 0);
    const held = Math.max(0, ...own.filter((batch) => batch.failures === 0).map((batch) => batch.peakInFlight));
    targets.push(
      [
        "failures 0",
        SYSTEM_NAMES[system],
        `${failures} of ${turns.toLocaleString("en-US")} turns`,
        check(failures === 0),
      ],
      [
        `≥ ${TARGET_TURNS} concurrent turns`,
        SYSTEM_NAMES[system],
        `${held.toLocaleString("en-US")} in flight at once, without a failure`,
        check(held >= TARGET_TURNS),
      ],
    );
  }
  const firstFailures = batches.flatMap((batch) =>
    batch.reasons.map(
      ([reason, count]) =>
        `- ${SYSTEM_NAMES[batch.system]} at ${batch.turns} turns, ${count} failed: ${reason.slice(0, 300)}`,
    ),
  );
  return [
    `${COUNTS.join(", then ")} turns started at once (fresh threads, each turn ${PASSES} passes: a model call and its tool call, whose result is ${REPORT_CHARACTERS.toLocaleString("en-US")} characters, then the answering model call) on a pool of ${WORKERS} worker processes polling one task queue, with the SDK's default worker options; one system at a time, on one Temporal dev server and the scripted OpenAI-compatible server over HTTP that answers at once (in this bench's process, with the client). ` +
      `soev-agents runs \`startTurn\` with the OpenAI adapter, both workers on one SQLite store (WAL); the baseline and the peer are those of \`temporal.ts\`. ` +
      `Each system's workers are warmed up by ${WARM_UP_TURNS} turns first, and a system stops at its first count with a failure; a turn not finished within ${DEADLINE_SECONDS} s is a failure. ` +
      "In flight: the most turns whose workflow had started and whose result had not come back at one moment. Latency: a turn's time from start to result (p50, p99 by nearest rank, and the slowest); throughput: finished turns ÷ the batch's wall time. " +
      "Per worker: peak resident memory (VmHWM, reset before the batch) and CPU time (user and system) over the batch; the same for the dev server, and the CPU time of this bench's process (client and model server).",
    "",
    markdownTable([
      [
        "system",
        "turns",
        "in flight",
        "wall s",
        "turns/s",
        "p50 ms",
        "p99 ms",
        "max ms",
        "failures",
        "workers' peak MB",
        "workers' CPU s",
        "server CPU s",
        "server peak MB",
        "client + model CPU s",
      ],
      ...rows,
    ]),
    "",
    markdownTable(targets),
    "",
    ...(notes.length || firstFailures.length ? ["", ...notes.map((note) => `- ${note}`), ...firstFailures] : []),
    "",
    `Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, on the shared 2-core development machine (load average ${loadavg()[0]!.toFixed(1)} at the end): timings move with its load; compare within one run.`,
  ].join("\n");
}
