/**
 * soev-agents on Temporal against the peers, on one dev server and one scripted OpenAI-compatible server
 * over HTTP: soev-agents turns through startTurn with the OpenAI adapter, a peer-style baseline written by
 * hand (bench/baseline), and the real peer, @temporalio/openai-agents with the OpenAI Agents SDK
 * (bench/peer, a scratch project with its own @temporalio versions, installed here on first run), each
 * measured against the floor (bench/floor: a soev-agents turn's activities, each doing nothing). Runs
 * interleaved; counts come from fetched histories. Writes its section of bench/README.md.
 *
 * Run: `npm run bench` (all benchmarks) or `npx tsx bench/temporal.ts`. BENCH_TURNS (default 20) and
 * BENCH_CONCURRENT (default 100) scale it down for a quick look. BENCH_EAGER_ACTIVITIES=1 turns the dev server's
 * eager activity dispatch on (system.enableActivityEagerExecution, off by default).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { DefaultLogger, Runtime } from "@temporalio/worker";
import { startBenchTemporal, TRANSFER_POLLS } from "./shared/temporal-server.js";
import { markdownTable, writeSection } from "./report.js";
import type { TurnPhases } from "./temporal/phases.js";
import { REPORT_CHARACTERS, startScriptedServer } from "./temporal/scripted.js";
import {
  conversation,
  cpuSecondsOf,
  devServerPid,
  historyCounts,
  installPeerOnce,
  SYSTEM_NAMES,
  bundleSystems,
  startWorker,
  SYSTEMS,
  type HistoryCounts,
  type System,
  type WorkerProcess,
} from "./temporal/systems.js";

const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SETTLE_MILLISECONDS = 3_000;
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 100);
const CONCURRENT_PASSES = 3;
const logger = new DefaultLogger("WARN");
Runtime.install({ logger });

/** What the load runs of one system measured: per round its wall and worker CPU seconds; over all rounds the rest. */
interface Load {
  seconds: number[];
  cpuSeconds: number[];
  serverCpuSeconds: number[];
  failures: number;
  peakBytes: number;
  failure?: string;
}

/** A turn's phases, and the time outside its history: the starter's start call and the result's long poll. */
type TurnSpent = TurnPhases & { outside: number };

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const round = (value: number, digits = 0) => Number(value.toFixed(digits));
const ratio = (value: number, base: number | undefined) => (base ? `${(value / base).toFixed(2)}×` : "–");

const folder = mkdtempSync(join(tmpdir(), "soev-bench-temporal-"));
const peerProblem = installPeerOnce();
// The floor first: each system's row reads as the floor's and what it adds.
const systems: System[] = ["floor" as const, ...SYSTEMS.filter((system) => system !== "floor")].filter(
  (system) => system !== "peer" || peerProblem === null,
);
const server = await startScriptedServer();
// Eager activities are off as the server ships them: a worker then polls for each activity its own workflow task
// just scheduled.
const EAGER_ACTIVITIES = process.env.BENCH_EAGER_ACTIVITIES === "1";
const temporal = await startBenchTemporal(EAGER_ACTIVITIES ? ["system.enableActivityEagerExecution=true"] : []);
const client = temporal.client;
const workers = new Map<System, WorkerProcess>();
const notes: string[] = [];
if (peerProblem) notes.push(`The peer did not run: ${peerProblem}`);
try {
  console.log("Bundling the workflows ...");
  const bundles = await bundleSystems(folder, logger);
  const environment = {
    temporalAddress: temporal.address,
    modelUrl: server.baseURL,
    bundles,
    sqlitePath: join(folder, "trace.sqlite"),
  };
  for (const system of [...systems]) {
    try {
      workers.set(system, await startWorker(system, environment));
    } catch (error) {
      if (system !== "peer") throw error;
      notes.push(`The peer did not run: ${(error as Error).message.split("\n").slice(0, 6).join(" ")}`);
      systems.splice(systems.indexOf("peer"), 1);
    }
  }
  const running = () => systems.map((system) => [system, workers.get(system)!.taskQueue] as const);

  // Round trips: a one-pass turn and a three-pass turn on fresh threads (these also warm the workers up).
  console.log("Counting round trips ...");
  const onePass = new Map<System, HistoryCounts>();
  const threePass = new Map<System, HistoryCounts>();
  for (const [system, taskQueue] of running()) {
    onePass.set(system, await historyCounts(client, await conversation(system, client, taskQueue).turn(1)));
    threePass.set(system, await historyCounts(client, await conversation(system, client, taskQueue).turn(3)));
  }

  // Time and history per turn: one thread per system, TURNS one-pass turns each, interleaved (the order
  // rotates each turn, so no system always runs first).
  console.log(`Running ${TURNS} turns per system, interleaved ...`);
  const threads = new Map(running().map(([system, taskQueue]) => [system, conversation(system, client, taskQueue)]));
  const times = new Map<System, number[]>(systems.map((system) => [system, []]));
  const bytes = new Map<System, number[]>(systems.map((system) => [system, []]));
  const phases = new Map<System, TurnSpent[]>(systems.map((system) => [system, []]));
  for (let turn = 0; turn < TURNS; turn++) {
    for (let index = 0; index < systems.length; index++) {
      const system = systems[(turn + index) % systems.length]!;
      const ran = await threads.get(system)!.turn(1);
      times.get(system)!.push(ran.milliseconds);
      const counted = await historyCounts(client, ran);
      bytes.get(system)!.push(counted.bytes);
      phases.get(system)!.push({ ...counted.phases, outside: ran.milliseconds - counted.phases.history });
    }
  }

  // Load: CONCURRENT three-pass turns of fresh threads at once on one worker. soev-agents, the baseline and
  // the floor take turns for ROUNDS rounds, the order rotating each round, with a pause between batches for
  // the server to settle; the peer, the slowest, runs its round after them so its backlog on the server slows neither.
  console.log(`Running ${CONCURRENT} concurrent ${CONCURRENT_PASSES}-pass turns per system ...`);
  const load = new Map<System, Load>(
    systems.map((system) => [system, { seconds: [], cpuSeconds: [], serverCpuSeconds: [], failures: 0, peakBytes: 0 }]),
  );
  const serverPid = devServerPid();
  const batch = async (system: System) => {
    await sleep(SETTLE_MILLISECONDS);
    const worker = workers.get(system)!;
    const measuredLoad = load.get(system)!;
    worker.resetPeak();
    const [cpu, serverCpu] = [worker.cpuSeconds(), cpuSecondsOf(serverPid)];
    const started = performance.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: CONCURRENT }, () => conversation(system, client, worker.taskQueue).turn(CONCURRENT_PASSES)),
    );
    measuredLoad.seconds.push((performance.now() - started) / 1000);
    measuredLoad.cpuSeconds.push(worker.cpuSeconds() - cpu);
    measuredLoad.serverCpuSeconds.push(cpuSecondsOf(serverPid) - serverCpu);
    measuredLoad.peakBytes = Math.max(measuredLoad.peakBytes, worker.peakBytes());
    const failed = outcomes.filter((outcome) => outcome.status === "rejected");
    measuredLoad.failures += failed.length;
    if (failed[0]) measuredLoad.failure ??= String((failed[0] as PromiseRejectedResult).reason);
  };
  const rotated = ["soev", "baseline", "floor"] as const;
  for (let repeat = 0; repeat < ROUNDS; repeat++) {
    for (let index = 0; index < rotated.length; index++) await batch(rotated[(repeat + index) % rotated.length]!);
  }
  if (systems.includes("peer")) await batch("peer");

  writeSection(
    "Temporal: soev-agents, a peer-style baseline and the peer (`temporal.ts`)",
    report({ systems, onePass, threePass, times, bytes, phases, load, notes }),
  );
  console.log("Wrote the Temporal section of bench/README.md.");
} finally {
  for (const worker of workers.values()) await worker.stop();
  await temporal.teardown();
  await server.close();
}

/** The section's markdown: what ran, the tables, the ratios against their targets. */
function report(measured: {
  systems: System[];
  onePass: Map<System, HistoryCounts>;
  threePass: Map<System, HistoryCounts>;
  times: Map<System, number[]>;
  bytes: Map<System, number[]>;
  phases: Map<System, TurnSpent[]>;
  load: Map<System, Load>;
  notes: string[];
}): string {
  const { systems, onePass, threePass, times, bytes, phases, load } = measured;
  const perPass = (system: System) =>
    (threePass.get(system)!.activities.length - onePass.get(system)!.activities.length) / 2;
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const medianTime = (system: System) => median(times.get(system)!);
  const meanBytes = (system: System) => mean(bytes.get(system)!);
  const has = (system: System) => systems.includes(system);

  const counts = markdownTable([
    [
      "system",
      "activities per pass",
      "activities, one-pass turn",
      "of them local",
      "history events",
      "workflow tasks",
      "activities",
    ],
    ...systems.map((system) => {
      const one = onePass.get(system)!;
      return [
        SYSTEM_NAMES[system],
        perPass(system),
        one.activities.length,
        one.activities.filter((name) => name.startsWith("local ")).length,
        one.events,
        one.workflowTasks,
        one.activities.join(", "),
      ];
    }),
  ]);
  const floorTime = medianTime("floor");
  const perTurn = markdownTable([
    [
      "system",
      "median ms per turn",
      "over the floor, ms",
      "it ÷ floor",
      "soev-agents ÷ it",
      `history bytes, turn 1`,
      `turn ${TURNS}`,
      "mean per turn",
      "it ÷ soev-agents",
    ],
    ...systems.map((system) => [
      SYSTEM_NAMES[system],
      round(medianTime(system), 1),
      round(medianTime(system) - floorTime, 1),
      ratio(medianTime(system), floorTime),
      ratio(medianTime("soev"), medianTime(system)),
      bytes.get(system)![0]!,
      bytes.get(system)!.at(-1)!,
      round(meanBytes(system)),
      ratio(meanBytes(system), meanBytes("soev")),
    ]),
  ]);
  const phase = (system: System, name: keyof TurnSpent) =>
    round(median(phases.get(system)!.map((turn) => turn[name])), 1);
  const spent = markdownTable([
    [
      "system",
      "in workflow tasks",
      "waiting for a workflow task",
      "in activities",
      "waiting for an activity",
      "outside the history",
    ],
    ...systems.map((system) => [
      SYSTEM_NAMES[system],
      phase(system, "workflowTasks"),
      phase(system, "workflowTaskWaits"),
      phase(system, "activities"),
      phase(system, "activityWaits"),
      phase(system, "outside"),
    ]),
  ]);
  const wall = (system: System) => median(load.get(system)!.seconds);
  const cpu = (system: System) => median(load.get(system)!.cpuSeconds);
  const serverCpu = (system: System) => median(load.get(system)!.serverCpuSeconds);
  const concurrent = markdownTable([
    [
      "system",
      "median wall seconds",
      "it ÷ floor",
      "soev-agents ÷ it",
      "worker CPU seconds",
      "soev-agents ÷ it",
      "server CPU seconds",
      "failures",
      "worker peak RSS MB",
    ],
    ...systems.map((system) => [
      SYSTEM_NAMES[system],
      round(wall(system), 1),
      ratio(wall(system), wall("floor")),
      ratio(wall("soev"), wall(system)),
      round(cpu(system), 1),
      ratio(cpu("soev"), cpu(system)),
      round(serverCpu(system), 1),
      load.get(system)!.failures,
      round(load.get(system)!.peakBytes / 2 ** 20),
    ]),
  ]);
  const check = (met: boolean) => (met ? "met" : "**missed**");
  const targets: (string | number)[][] = [["target", "measured", ""]];
  const sameActivities = (counts: Map<System, HistoryCounts>) =>
    counts.get("floor")!.activities.join() === counts.get("soev")!.activities.join();
  targets.push(
    [
      "the floor runs soev-agents' activities (one pass, three passes)",
      onePass.get("floor")!.activities.join(", "),
      check(sameActivities(onePass) && sameActivities(threePass)),
    ],
    [
      "time per turn ≤ 1.15× the floor",
      ratio(medianTime("soev"), floorTime),
      check(medianTime("soev") <= 1.15 * floorTime),
    ],
    [
      "activities per pass ≤ baseline's",
      `${perPass("soev")} vs ${perPass("baseline")}`,
      check(perPass("soev") <= perPass("baseline")),
    ],
    [
      "activities of a one-pass turn ≤ baseline + 1",
      `${onePass.get("soev")!.activities.length} vs ${onePass.get("baseline")!.activities.length}`,
      check(onePass.get("soev")!.activities.length <= onePass.get("baseline")!.activities.length + 1),
    ],
    [
      "time per turn ≤ 1.1× baseline",
      ratio(medianTime("soev"), medianTime("baseline")),
      check(medianTime("soev") <= 1.1 * medianTime("baseline")),
    ],
  );
  if (has("peer")) {
    targets.push(
      [
        "time per turn ≤ 0.8× the peer's",
        ratio(medianTime("soev"), medianTime("peer")),
        check(medianTime("soev") <= 0.8 * medianTime("peer")),
      ],
      [
        "history per turn ≤ 1/20 of the peer's",
        `1/${round(meanBytes("peer") / meanBytes("soev"))}`,
        check(meanBytes("soev") * 20 <= meanBytes("peer")),
      ],
    );
  }
  targets.push(
    [
      "history per turn ≤ 1/20 of the baseline's",
      `1/${round(meanBytes("baseline") / meanBytes("soev"))}`,
      check(meanBytes("soev") * 20 <= meanBytes("baseline")),
    ],
    [
      `${CONCURRENT} concurrent turns ≤ 1.3× baseline, 0 failures`,
      `${ratio(wall("soev"), wall("baseline"))}, ${load.get("soev")!.failures} failures`,
      check(wall("soev") <= 1.3 * wall("baseline") && load.get("soev")!.failures === 0),
    ],
  );
  const failures = systems.flatMap((system) => {
    const failure = load.get(system)!.failure;
    return failure ? [`- First failure of ${SYSTEM_NAMES[system]} under load: ${failure.slice(0, 300)}`] : [];
  });
  return [
    `One Temporal dev server, one scripted OpenAI-compatible server over HTTP that answers at once (the model costs nothing: what is measured is orchestration), each system's worker in a process of its own with the SDK's default worker options, the server with \`${TRANSFER_POLLS}\` (its one history shard hands tasks to matching at most 20 times a second by default, which made turns run back to back wait about 40 ms for each task)${EAGER_ACTIVITIES ? " and eager activity dispatch on (`system.enableActivityEagerExecution`)" : " and eager activity dispatch off, as it ships"}. soev-agents runs \`startTurn\` with the OpenAI adapter on a SQLite store, its context never shrunk; the baseline (bench/baseline) is a workflow per turn with one activity per model call and per tool call and the whole message list in each model activity's input; the peer (bench/peer) is \`@temporalio/openai-agents\` 1.23.0 with \`@openai/agents\` 0.11.8 on chat completions, a workflow per turn with the thread's items in its input, the tool an activity (\`activityAsTool\`); the floor (bench/floor) runs the activities of a soev-agents turn, the same kinds in the same order (a local openTurn, then per pass callModel and callTool, then callModel), each returning a constant at once: the least any integration can cost a turn on this server. Every tool result is ${REPORT_CHARACTERS.toLocaleString("en-US")} characters. A pass is one model call and its tool call; a one-pass turn is a pass and the answering model call.`,
    "",
    "Round trips, from the fetched history of a one-pass turn and of a three-pass turn on fresh threads:",
    "",
    counts,
    "",
    `${TURNS} one-pass turns on one thread per system, interleaved (the order rotates each turn); time from start to result:`,
    "",
    perTurn,
    "",
    "Where those turns' time went, from their histories' event times (median ms per turn): workflow tasks started to completed (the local activity runs inside the first) and scheduled to started, activities likewise, and what the history does not cover (the start call before its first event, the result's long poll after its last):",
    "",
    spent,
    "",
    `${CONCURRENT} concurrent ${CONCURRENT_PASSES}-pass turns, each a fresh thread, on one worker per system: ${ROUNDS} rounds of soev-agents, the baseline and the floor, the order rotating each round, then one round of the peer, ${SETTLE_MILLISECONDS / 1000} s apart. The median round's wall time, the CPU time (user and system) of the worker process and of the dev server, all rounds' failures, the highest peak RSS of the worker process in a round:`,
    "",
    concurrent,
    "",
    "Targets (issues 11 and 60):",
    "",
    markdownTable(targets),
    ...(measured.notes.length || failures.length
      ? ["", ...measured.notes.map((note) => `- ${note}`), ...failures]
      : []),
    "",
    `Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, on the shared 2-core development machine (load average ${loadavg()[0]!.toFixed(1)} at the end): timings move with its load, and a ratio by 10–20 % from run to run; compare within one run.`,
  ].join("\n");
}
