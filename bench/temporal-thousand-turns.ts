/**
 * A thousand-turn thread on Temporal (issue 60): one soev-agents thread run turn by turn through startTurn,
 * each turn a tool call with a 20 KB result and the answer, the agent with every context setting left at its
 * default, the worker in a process of its own on a SQLite store. The default policy never summarises, so
 * when its thread stops on a full context, a second thread runs with a Compact added. Then the peer
 * (@temporalio/openai-agents, a workflow per turn carrying the thread's items) on the same thread until it
 * fails or slows past a bound.
 * Measures wall time, worker CPU and history bytes per turn around turns 10, 100, 500 and 1,000, and the
 * worker's memory after a full collection there. Writes its section of bench/README.md.
 *
 * Run: `npm run bench -- thousand` or `node --expose-gc --import tsx bench/temporal-thousand-turns.ts`.
 * BENCH_THOUSAND_TURNS (default 1000) sets the turns; BENCH_PEER_SECONDS (default 300) the peer's time budget.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client, Connection } from "@temporalio/client";
import { DefaultLogger, Runtime } from "@temporalio/worker";
import OpenAI from "openai";
import { SqliteTraceStore } from "../src/adapters/stores/sqlite.js";
import { AgentCatalog } from "../src/runtime/catalog.js";
import { CACHED_EVENTS, readTrace } from "../src/runtime/runner/work.js";
import { startTurn } from "../src/temporal/start-turn.js";
import { startBenchTemporal } from "./shared/temporal-server.js";
import { bundleTurnWorkflows } from "../worker.js";
import { markdownTable, writeSection } from "./report.js";
import { benchAgents, COMPACTING_READER, THOUSAND_READER } from "./temporal/agents.js";
import { MODEL_NAME, REPORT_CHARACTERS, prompt, startScriptedServer } from "./temporal/scripted.js";
import {
  conversation,
  historyCounts,
  installPeerOnce,
  startWorker,
  type WorkerEnvironment,
  type WorkerProcess,
} from "./temporal/systems.js";

/** The turns of the soev-agents thread, and the most the peer runs. */
const TURNS = Number(process.env.BENCH_THOUSAND_TURNS ?? 1000);
/** The turns the figures are read at, each the median of a window of turns around it. */
const POINTS = [...new Set([10, 100, 500, 1000].map((point) => Math.min(point, TURNS)))];
const WINDOW = 10;
/** The target: wall time and worker CPU per turn at the last point ≤ this times at turn 10. */
const TARGET = 1.3;
/** History per turn counts as flat while the last point's is at most this times turn 10's. */
const FLAT = 1.1;
/** The peer stops once a turn takes this many times the median of its window at turn 10 ... */
const PEER_SLOWDOWN = 10;
/** ... or its turns together take this long ... */
const PEER_SECONDS = Number(process.env.BENCH_PEER_SECONDS ?? 300);
/** ... or one turn takes this long (a workflow task that fails again and again never ends the turn). */
const PEER_TURN_SECONDS = 120;

const logger = new DefaultLogger("WARN");
Runtime.install({ logger });

/** One turn of a thread: milliseconds from start to result, worker CPU milliseconds, history bytes. */
interface TurnCost {
  wall: number;
  cpu: number;
  /** Of the CPU, the request builds' (soev-agents only). */
  build: number;
  historyBytes: number;
  /** The characters of the turn's last request (soev-agents only). */
  characters: number;
}

/** The worker's memory after a full collection, and the thread's events then. */
interface Memory {
  rss: number;
  heap: number;
  external: number;
  events: number;
}

/** A soev-agents thread as run: its turns, the worker's memory at each point, what its decoded trace takes. */
interface SoevRun {
  agent: string;
  costs: TurnCost[];
  /** Where it stopped before TURNS, when a turn failed. */
  stop: ThreadStop | undefined;
  /** The worker's memory at the end of each point's window, by that turn. */
  memory: Map<number, Memory>;
  events: number;
  /** The heap the thread's decoded trace takes (the store's cache), if measured. */
  traceBytes: number | undefined;
  seconds: number;
  /** The worker's peak RSS over the run. */
  peakBytes: number;
}

/** Why a thread stopped: at which turn, and the error's text when a turn failed. */
interface ThreadStop {
  turn: number;
  reason: string;
  error?: string;
}

/** The peer's thread as run: its turns, where it stopped, and how long it took. */
interface PeerRun {
  costs: TurnCost[];
  stop: ThreadStop;
  seconds: number;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const round = (value: number, digits = 0) => Number(value.toFixed(digits));
const megabytes = (bytes: number) => round(bytes / 2 ** 20, 1);
const check = (met: boolean) => (met ? "met" : "**not met**");

/** The turns (1-based, inclusive) whose median stands for `point`: 6–15 for 10, the last ten for the last turn. */
function windowOf(point: number, turns: number): [number, number] {
  const first = Math.max(1, Math.min(point - 4, turns - WINDOW + 1));
  return [first, Math.min(first + WINDOW - 1, turns)];
}

/** The median of `part` over the window of `point` among `costs` (costs[0] is turn 1). */
function at(costs: readonly TurnCost[], point: number, part: keyof TurnCost): number {
  const [first, last] = windowOf(point, costs.length);
  return median(costs.slice(first - 1, last).map((cost) => cost[part]));
}

/**
 * Ask the worker for a line of its output by a signal: `ask("SIGUSR2", "parts")` resolves with the next
 * `{"event":"parts",...}` line it prints (bench/temporal/worker.ts).
 */
function askerOf(worker: WorkerProcess) {
  const waiting = new Map<string, (value: Record<string, number>) => void>();
  let line = "";
  worker.child.stdout!.on("data", (chunk: Buffer) => {
    const lines = (line + chunk.toString()).split("\n");
    line = lines.pop()!;
    for (const text of lines) {
      const event = /^\{"event":"(\w+)"/.exec(text)?.[1];
      if (event === undefined || !waiting.has(event)) continue;
      const resolve = waiting.get(event)!;
      waiting.delete(event);
      resolve(JSON.parse(text) as Record<string, number>);
    }
  });
  return (signal: NodeJS.Signals, event: string) =>
    new Promise<Record<string, number>>((resolve) => {
      waiting.set(event, resolve);
      worker.child.kill(signal);
    });
}

/** The thread's events so far: the position of its last entry. */
async function eventsOf(store: SqliteTraceStore, threadId: string): Promise<number> {
  for await (const entry of store.readBackwards(threadId)) return entry.position;
  return 0;
}

/**
 * The heap that the thread's decoded trace takes as the store's cache keeps it: read here, by the worker's own
 * code (readTrace), between two full collections. Undefined without --expose-gc.
 */
async function decodedTraceBytes(
  store: SqliteTraceStore,
  threadId: string,
  agent: string,
): Promise<number | undefined> {
  const collect = globalThis.gc;
  if (typeof collect !== "function") return undefined;
  const catalog = new AgentCatalog(store, benchAgents(new OpenAI({ apiKey: "bench", baseURL: "http://127.0.0.1:9" })));
  const types = catalog.types(agent);
  collect();
  collect();
  const before = process.memoryUsage().heapUsed;
  const trace = await readTrace(store, types, threadId);
  collect();
  collect();
  const after = process.memoryUsage().heapUsed;
  // The trace stays in the store's cache; naming it here keeps it alive in any case until after the reading.
  return trace.length > 0 ? after - before : 0;
}

/** The messages of an error and of its causes, one after another. */
function describe(error: unknown): string {
  const messages = new Map<string, string>();
  for (let cause = error; cause instanceof Error && messages.size < 6; cause = cause.cause)
    if (!messages.has(cause.message)) messages.set(cause.message, `${cause.name}: ${cause.message}`);
  return [...messages.values()].join(" ← ") || String(error);
}

/**
 * Run `TURNS` turns of one thread of `agent` on a worker of its own, until a turn fails; the worker's memory
 * at the end of each point's window.
 */
async function soevThread(
  agent: string,
  client: Client,
  environment: WorkerEnvironment,
  store: SqliteTraceStore,
): Promise<SoevRun> {
  const worker = await startWorker("soev", environment);
  try {
    const ask = askerOf(worker);
    const threadId = randomUUID();
    const costs: TurnCost[] = [];
    const memory = new Map<number, Memory>();
    const windowEnds = new Set(POINTS.map((point) => windowOf(point, TURNS)[1]));
    const started = performance.now();
    let stop: ThreadStop | undefined;
    for (let turn = 1; turn <= TURNS && stop === undefined; turn++) {
      const before = await ask("SIGUSR2", "parts");
      const turnStarted = performance.now();
      const handle = await startTurn(client, {
        agent,
        threadId,
        input: { payload: prompt(turn, 1), model: MODEL_NAME },
        taskQueue: worker.taskQueue,
      });
      try {
        await handle.result();
      } catch (error) {
        stop = { turn, reason: "failed", error: describe(error) };
        continue;
      }
      const wall = performance.now() - turnStarted;
      const after = await ask("SIGUSR2", "parts");
      const ran = { workflowId: handle.workflowId, runId: handle.runId, milliseconds: wall };
      costs.push({
        wall,
        cpu: after.cpu! - before.cpu!,
        build: after.build! - before.build!,
        historyBytes: (await historyCounts(client, ran)).bytes,
        characters: after.characters!,
      });
      if (windowEnds.has(turn)) {
        const { rss, heap, external } = await ask("SIGWINCH", "memory");
        memory.set(turn, { rss: rss!, heap: heap!, external: external!, events: await eventsOf(store, threadId) });
      }
      if (turn % 100 === 0)
        console.log(`  turn ${turn}: ${wall.toFixed(0)} ms, worker CPU ${costs.at(-1)!.cpu.toFixed(0)} ms`);
    }
    return {
      agent,
      costs,
      stop,
      memory,
      events: await eventsOf(store, threadId),
      // Measured in this process, where the store's cache then keeps the trace: only for the thread reported in full.
      traceBytes: stop === undefined ? await decodedTraceBytes(store, threadId, agent) : undefined,
      seconds: (performance.now() - started) / 1000,
      peakBytes: worker.peakBytes(),
    };
  } finally {
    await worker.stop();
  }
}

/**
 * The running turn of the peer on `taskQueue`, given up on: the last workflow task failure in its history
 * (a turn whose workflow task fails is retried without end), and the turn terminated.
 */
async function givenUp(client: Client, taskQueue: string): Promise<string> {
  const query = `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"`;
  for await (const info of client.workflow.list({ query })) {
    const handle = client.workflow.getHandle(info.workflowId, info.runId);
    const events = (await handle.fetchHistory()).events ?? [];
    const failed = events.findLast((event) => event.workflowTaskFailedEventAttributes);
    await handle.terminate("The thousand-turn bench gave up on this turn.");
    const failure = failed?.workflowTaskFailedEventAttributes?.failure;
    return failure ? `workflow task failed: ${failure.message}` : "no failure in its history";
  }
  return "no running workflow found";
}

/** Run the peer's thread until a turn fails, slows past the bound, or the budget is spent. */
async function peerThread(client: Client, worker: WorkerProcess): Promise<Omit<PeerRun, "seconds">> {
  const thread = conversation("peer", client, worker.taskQueue);
  const costs: TurnCost[] = [];
  const started = performance.now();
  for (let turn = 1; turn <= TURNS; turn++) {
    const cpu = worker.cpuSeconds();
    let timer: NodeJS.Timeout | undefined;
    const tooLong = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("too long")), PEER_TURN_SECONDS * 1000);
    });
    let ran;
    try {
      ran = await Promise.race([thread.turn(1), tooLong]);
    } catch (error) {
      const stuck = error instanceof Error && error.message === "too long";
      const text = stuck ? await givenUp(client, worker.taskQueue) : describe(error);
      return { costs, stop: { turn, reason: stuck ? `a turn over ${PEER_TURN_SECONDS} s` : "failed", error: text } };
    } finally {
      clearTimeout(timer);
    }
    const cpuMilliseconds = (worker.cpuSeconds() - cpu) * 1000;
    let historyBytes: number;
    try {
      historyBytes = (await historyCounts(client, ran)).bytes;
    } catch (error) {
      return { costs, stop: { turn, reason: "its history could not be fetched", error: describe(error) } };
    }
    costs.push({ wall: ran.milliseconds, cpu: cpuMilliseconds, build: 0, historyBytes, characters: 0 });
    // The bound is known once the window of turn 10 has run.
    const turnTen = turn >= windowOf(10, TURNS)[1] ? at(costs.slice(0, windowOf(10, TURNS)[1]), 10, "wall") : Infinity;
    if (turn % 10 === 0) console.log(`  peer turn ${turn}: ${ran.milliseconds.toFixed(0)} ms`);
    if (ran.milliseconds > PEER_SLOWDOWN * turnTen)
      return { costs, stop: { turn, reason: `slowed past ${PEER_SLOWDOWN}× its time at turn 10` } };
    if (performance.now() - started > PEER_SECONDS * 1000 && turn < TURNS)
      return { costs, stop: { turn, reason: `its ${PEER_SECONDS} s budget spent` } };
  }
  return { costs, stop: { turn: TURNS, reason: "ran every turn" } };
}

const folder = mkdtempSync(join(tmpdir(), "soev-bench-thousand-"));
const sqlitePath = join(folder, "trace.sqlite");
const peerProblem = installPeerOnce();
const server = await startScriptedServer();
const temporal = await startBenchTemporal();
// The peer's histories pass gRPC's default 4 MB a message long before the server's limits: fetch with a larger one.
const connection = await Connection.connect({
  address: temporal.address,
  channelArgs: { "grpc.max_receive_message_length": 256 * 2 ** 20 },
});
const client = new Client({ connection, namespace: temporal.client.options.namespace });
const workers: WorkerProcess[] = [];
let store: SqliteTraceStore | undefined;
try {
  console.log("Bundling the workflows ...");
  const bundle = join(folder, "soev.js");
  writeFileSync(bundle, (await bundleTurnWorkflows({ logger })).code);
  // The soev-agents worker prints its CPU time on SIGUSR2 and, with --expose-gc, its memory on SIGWINCH.
  process.env.BENCH_PARTS_CPU = "1";
  process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ""} --expose-gc`;
  const environment: WorkerEnvironment = {
    temporalAddress: temporal.address,
    modelUrl: server.baseURL,
    bundles: { soev: bundle },
    sqlitePath,
  };
  // The worker makes the store's file; this process reads how long the threads are.
  store = new SqliteTraceStore(sqlitePath);

  console.log(`Running ${TURNS} turns of one soev-agents thread, the default context policy ...`);
  const runs = [await soevThread(THOUSAND_READER, client, environment, store)];
  if (runs[0]!.stop !== undefined) {
    console.log(`  it stopped at turn ${runs[0]!.stop.turn}: ${runs[0]!.stop.error}`);
    console.log(`Running ${TURNS} turns of one soev-agents thread, the default policy with a Compact ...`);
    runs.push(await soevThread(COMPACTING_READER, client, environment, store));
  }

  let peer: PeerRun | string = peerProblem ?? "";
  if (peerProblem === null) {
    console.log(`Running the peer's thread (at most ${TURNS} turns, ${PEER_SECONDS} s) ...`);
    const peerWorker = await startWorker("peer", environment);
    workers.push(peerWorker);
    const peerStarted = performance.now();
    peer = { ...(await peerThread(client, peerWorker)), seconds: (performance.now() - peerStarted) / 1000 };
  }
  writeSection("Temporal: a thousand-turn thread (`temporal-thousand-turns.ts`)", report(runs, peer));
  console.log("Wrote the thousand-turn section of bench/README.md.");
} finally {
  for (const worker of workers) await worker.stop();
  await store?.close();
  await connection.close();
  await temporal.teardown();
  await server.close();
  rmSync(folder, { recursive: true, force: true });
}

/** The points a run reached, each with its window: those of POINTS whose window it ran, and its last turn. */
function pointsOf(turns: number): number[] {
  const reached = POINTS.filter((point) => windowOf(point, TURNS)[1] <= turns);
  return [...new Set([...reached, turns])];
}

/** A soev-agents run's table: the figures at each point it reached. */
function soevTable(run: SoevRun): string {
  const turns = run.costs.length;
  return markdownTable([
    [
      "turn",
      "turns (median of)",
      "wall ms per turn",
      "worker CPU ms per turn",
      "of it request builds",
      "history bytes per turn",
      "characters of the last request",
      "thread events",
      "worker heap MB after GC",
      "worker RSS MB",
    ],
    ...pointsOf(turns).map((point) => {
      const memory = run.memory.get(windowOf(point, TURNS)[1]);
      return [
        point,
        windowOf(point, turns).join("–"),
        round(at(run.costs, point, "wall"), 1),
        round(at(run.costs, point, "cpu"), 1),
        round(at(run.costs, point, "build"), 1),
        round(at(run.costs, point, "historyBytes")),
        round(at(run.costs, point, "characters")),
        memory?.events ?? "–",
        memory ? megabytes(memory.heap) : "–",
        memory ? megabytes(memory.rss) : "–",
      ];
    }),
  ]);
}

/** The targets, read from the run that went the whole way (the last one), and the default policy's run. */
function targets(runs: readonly SoevRun[]): string {
  const full = runs.at(-1)!;
  const first = POINTS[0]!;
  const last = POINTS.at(-1)!;
  const ratio = (part: keyof TurnCost) => at(full.costs, last, part) / at(full.costs, first, part);
  const traceBytes = full.traceBytes ?? NaN;
  const cacheLimit = (traceBytes / full.events) * CACHED_EVENTS;
  const stopped = runs[0]!.stop;
  // The heap after GC a turn, between the memory points: flat when the worker keeps only what the thread adds.
  const [start, middle, end] = memoryPoints(full.memory);
  const perTurn = (from: number, to: number) => (full.memory.get(to)!.heap - full.memory.get(from)!.heap) / (to - from);
  const [early, late] = [perTurn(start, middle), perTurn(middle, end)];
  return markdownTable([
    ["target (issue 60)", "measured", ""],
    [
      `${TURNS.toLocaleString("en-US")} turns with the default context policy`,
      stopped ? `stopped at turn ${stopped.turn}: ContextFullError` : "every turn",
      check(stopped === undefined),
    ],
    [
      `wall per turn at turn ${last} ≤ ${TARGET}× turn ${first}'s`,
      `${ratio("wall").toFixed(2)}×`,
      check(ratio("wall") <= TARGET),
    ],
    [
      `worker CPU per turn at turn ${last} ≤ ${TARGET}× turn ${first}'s`,
      `${ratio("cpu").toFixed(2)}×`,
      check(ratio("cpu") <= TARGET),
    ],
    [
      `history per turn flat (turn ${last} ≤ ${FLAT}× turn ${first})`,
      `${round(at(full.costs, first, "historyBytes"))} and ${round(at(full.costs, last, "historyBytes"))} bytes, ${ratio("historyBytes").toFixed(2)}×`,
      check(ratio("historyBytes") <= FLAT),
    ],
    [
      `the worker's memory grows with the thread it keeps only (heap a turn from turn ${middle} to ${end} ≤ ${TARGET}× from ${start} to ${middle})`,
      `${round(early / 1024, 1)} and ${round(late / 1024, 1)} KB a turn; at ${round(traceBytes / full.events / 1024, 1)} KB a decoded event the store's cache of ${CACHED_EVENTS.toLocaleString("en-US")} events holds at most ${megabytes(cacheLimit)} MB`,
      check(late <= TARGET * early),
    ],
  ]);
}

/** The first, a middle and the last turn the worker's memory was read at. */
function memoryPoints(memory: ReadonlyMap<number, Memory>): [number, number, number] {
  const turns = [...memory.keys()].sort((a, b) => a - b);
  return [turns[0]!, turns[Math.floor(turns.length / 2)]!, turns.at(-1)!];
}

/** What one cached thread costs the worker, from the run that went the whole way. */
function threadCost(run: SoevRun): string {
  const first = POINTS[0]!;
  const from = windowOf(first, TURNS)[1];
  const [start, end] = [run.memory.get(from)!, run.memory.get(TURNS)!];
  const growth = end.heap - start.heap;
  return (
    `What one cached thread costs: the worker keeps the thread's decoded trace (the store's cache, runtime/runner/work.ts: ${CACHED_EVENTS.toLocaleString("en-US")} events over all threads, the thread read last kept whatever its length) and the context builder's ThreadCache of it (toolkit/context/thread-cache.ts: 8 threads, 100,000 events); neither reports its size. ` +
    `The worker's heap after GC grew by ${megabytes(growth)} MB from turn ${from} to turn ${TURNS} (${round(growth / 1024 / Math.max(1, TURNS - from), 1)} KB a turn, ${round(growth / 1024 / Math.max(1, end.events - start.events), 1)} KB an event); ` +
    `the thread's ${run.events.toLocaleString("en-US")} events decoded as the store's cache keeps them take ${megabytes(run.traceBytes ?? NaN)} MB (read by readTrace in the bench's process between two collections); the rest of the growth is the builder's. ` +
    `Both caches bound a worker by counts of threads and events, not bytes: with ${REPORT_CHARACTERS.toLocaleString("en-US")}-character results an event weighs far more than the 0.7 KB the store's limit assumes. The worker's peak RSS over the run: ${megabytes(run.peakBytes)} MB.`
  );
}

/** The section's markdown: the method, the soev-agents runs, the targets, the peer's run. */
function report(runs: readonly SoevRun[], peer: PeerRun | string): string {
  const [byDefault, compacting] = runs;
  const stopped = byDefault!.stop;
  return [
    `One soev-agents thread of ${TURNS.toLocaleString("en-US")} turns on Temporal, each started with \`startTurn\` once the one before ended: a tool call whose result is ${REPORT_CHARACTERS.toLocaleString("en-US")} characters, then the answer (two model calls). ` +
      "One dev server, the scripted OpenAI-compatible server over HTTP that answers at once, the turn worker in a process of its own with the SDK's default worker options on a SQLite store. " +
      "The agent leaves every context setting at its default: the default context policy, and for a model the known limits do not name, a window of 32,000 tokens (DEFAULT_LIMITS). " +
      "That policy shrinks results but never summarises (its compact is null), so its context grows by each turn's question, stub and answer: when its thread stops on a full context, a second thread runs with one setting more, `new ContextPolicy({ compact: new Compact() })`, and the targets are read from it. " +
      `Per turn: wall time from start to result; the worker's CPU time (process.cpuUsage, asked for by a signal before and after), and of it the request builds' (MessageBuilder.assess); the turn workflow's history size (its fetched history, encoded). Each figure is the median of ${WINDOW} turns around the turn named. ` +
      "After each window the worker collects its garbage (global.gc, twice) and reports its heap and RSS. Each thread has a worker of its own.",
    "",
    `The default context policy${stopped ? `: it stopped at turn ${stopped.turn}, \`${stopped.error?.slice(0, 400)}\`` : ", every turn"}.`,
    "",
    soevTable(byDefault!),
    ...(compacting ? ["", "The default policy with a Compact:", "", soevTable(compacting)] : []),
    "",
    runs.at(-1)!.stop === undefined
      ? targets(runs)
      : `The thread with a Compact stopped too, at turn ${runs.at(-1)!.stop!.turn}: \`${runs.at(-1)!.stop!.error?.slice(0, 400)}\``,
    "",
    runs.at(-1)!.stop === undefined ? threadCost(runs.at(-1)!) : "",
    "",
    peerSection(peer),
    "",
    `The soev-agents threads took ${runs.map((run) => `${round(run.seconds)} s (${run.costs.length} turns)`).join(" and ")}${typeof peer === "string" ? "" : `, the peer's ${round(peer.seconds)} s (${peer.costs.length} turns)`}. ` +
      `Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, on the shared 2-core development machine (load average ${loadavg()[0]!.toFixed(1)} at the end): timings move with its load; compare within one run.`,
  ].join("\n");
}

/** The peer's paragraph and table: how far it got and why it stopped. */
function peerSection(peer: PeerRun | string): string {
  if (typeof peer === "string") return `The peer did not run: ${peer}`;
  const { costs, stop } = peer;
  return [
    `The peer (bench/peer: \`@temporalio/openai-agents\` with \`@openai/agents\`, its worker in a process of its own) on the same thread: a workflow per turn that takes the thread's items and returns them with the turn's, as its README builds one. ` +
      `It runs until a turn fails, a turn takes over ${PEER_SLOWDOWN}× the median of its turns ${windowOf(10, TURNS).join("–")}, a turn takes over ${PEER_TURN_SECONDS} s, or its turns together pass ${PEER_SECONDS} s. ` +
      "Worker CPU from /proc (ticks of 10 ms), the median over the window.",
    "",
    markdownTable([
      ["turn", "turns (median of)", "wall ms per turn", "worker CPU ms per turn", "history bytes per turn"],
      ...pointsOf(costs.length).map((point) => [
        point,
        windowOf(point, costs.length).join("–"),
        round(at(costs, point, "wall"), 1),
        round(at(costs, point, "cpu"), 1),
        round(at(costs, point, "historyBytes")),
      ]),
    ]),
    "",
    `The peer stopped at turn ${stop.turn}: ${stop.reason}.` +
      (stop.error ? ` The error: \`${stop.error.slice(0, 500)}\`` : ""),
  ].join("\n");
}
