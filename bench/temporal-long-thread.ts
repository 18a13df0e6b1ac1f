/**
 * soev-agents on Temporal on a long thread: the time of one pass (a model call and its tool call) on a
 * thread of 5,000 prior events against one of 10, on one dev server and the scripted OpenAI-compatible
 * server over HTTP, the worker in a process of its own on a SQLite store. The threads get their history
 * appended to the store directly (bench/shared/history.ts, as stores.ts does for the local runner); the
 * turns run through startTurn. Writes its section of bench/README.md.
 *
 * Run: `npm run bench -- long-thread` or `npx tsx bench/temporal-long-thread.ts`. BENCH_LONG_TURNS
 * (default 6) sets the measured turns per thread.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { DefaultLogger, Runtime } from "@temporalio/worker";
import OpenAI from "openai";
import { SqliteTraceStore } from "../src/adapters/stores/sqlite.js";
import { Input } from "../src/domain/events.js";
import { AgentCatalog } from "../src/runtime/catalog.js";
import { startTurn } from "../src/temporal/start-turn.js";
import { startBenchTemporal } from "./shared/temporal-server.js";
import { bundleTurnWorkflows } from "../worker.js";
import { markdownTable, writeSection } from "./report.js";
import { history } from "./shared/history.js";
import { benchAgents, LONG_READER } from "./temporal/agents.js";
import { MODEL_NAME, TOOL, prompt, startScriptedServer } from "./temporal/scripted.js";
import { startWorker, type WorkerProcess } from "./temporal/systems.js";

/** Tool passes per measured turn (each a model call and a tool call, the answer's call counted in). */
const PASSES = 4;
/** Measured turns per thread, after one warm-up turn each. */
const TURNS = Number(process.env.BENCH_LONG_TURNS ?? 6);
/** The threads' prior events: a short thread and a long one. */
const PRIORS = [10, 5_000] as const;
/** The target: a pass at 5,000 prior events ≤ this times a pass at 10. */
const TARGET = 1.3;

const logger = new DefaultLogger("WARN");
Runtime.install({ logger });

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One measured turn: wall and worker CPU milliseconds per pass, and of the CPU the request builds' and hashes'. */
interface PassCost {
  wall: number;
  cpu: number;
  build: number;
  hash: number;
}

/** What the worker prints of its CPU time, its request builds' and hashes': milliseconds so far; the last request's size. */
interface Parts {
  cpu: number;
  build: number;
  hash: number;
  characters: number;
}

/** The characters of the last request each thread's turn sent. */
const requestCharacters = new Map<string, number>();

const folder = mkdtempSync(join(tmpdir(), "soev-bench-long-thread-"));
const sqlitePath = join(folder, "trace.sqlite");
const server = await startScriptedServer();
const temporal = await startBenchTemporal();
const client = temporal.client;
const store = new SqliteTraceStore(sqlitePath);
let worker: WorkerProcess | undefined;
try {
  console.log("Bundling the workflows ...");
  const bundle = join(folder, "soev.js");
  writeFileSync(bundle, (await bundleTurnWorkflows({ logger })).code);
  // The worker prints the CPU time of its request builds and hashes so far (bench/temporal/worker.ts).
  process.env.BENCH_PARTS_CPU = "1";
  worker = await startWorker("soev", {
    temporalAddress: temporal.address,
    modelUrl: server.baseURL,
    bundles: { soev: bundle },
    sqlitePath,
  });
  const taskQueue = worker.taskQueue;
  // The worker's CPU time and the sums of its request builds and hashes, read by asking the worker for them (SIGUSR2).
  let printed: (parts: Parts) => void = () => undefined;
  let line = "";
  worker.child.stdout!.on("data", (chunk: Buffer) => {
    const lines = (line + chunk.toString()).split("\n");
    line = lines.pop()!;
    for (const text of lines) if (text.startsWith('{"event":"parts"')) printed(JSON.parse(text) as Parts);
  });
  const partsNow = () =>
    new Promise<Parts>((resolve) => {
      printed = resolve;
      worker!.child.kill("SIGUSR2");
    });

  // The threads, opened and given their history here, on the worker's store: no model call makes them.
  const catalog = new AgentCatalog(store, benchAgents(new OpenAI({ apiKey: "bench", baseURL: server.baseURL })));
  const types = catalog.types(LONG_READER);
  const threads = new Map<number, string>();
  for (const prior of PRIORS) {
    const threadId = randomUUID();
    await catalog.open(LONG_READER, Input({ payload: "Start", model: MODEL_NAME }), { threadId });
    const events = history(prior, { agent: LONG_READER, tool: { name: TOOL.name, arguments: { part: 1 } } });
    for (let from = 0; from < events.length; from += 500)
      await store.append(
        threadId,
        events.slice(from, from + 500).map((event) => types.check(event)),
      );
    threads.set(prior, threadId);
  }

  let turns = 0;
  const turn = async (threadId: string): Promise<PassCost> => {
    const before = await partsNow();
    const started = performance.now();
    const handle = await startTurn(client, {
      agent: LONG_READER,
      threadId,
      input: { payload: prompt(++turns, PASSES), model: MODEL_NAME },
      taskQueue,
    });
    await handle.result();
    const wall = (performance.now() - started) / PASSES;
    const parts = await partsNow();
    requestCharacters.set(threadId, parts.characters);
    return {
      wall,
      cpu: (parts.cpu - before.cpu) / PASSES,
      build: (parts.build - before.build) / PASSES,
      hash: (parts.hash - before.hash) / PASSES,
    };
  };

  // The first turn of each thread reads it whole (cold) and warms the JIT; the measured turns read
  // incrementally. The two threads take turns, each first in half of the rounds.
  console.log(`Running a warm-up turn and ${TURNS} turns of ${PASSES} passes per thread, interleaved ...`);
  const costs = new Map<number, PassCost[]>(PRIORS.map((prior) => [prior, []]));
  for (const prior of PRIORS) await turn(threads.get(prior)!);
  for (let round = 0; round < TURNS; round++) {
    const order = round % 2 === 0 ? [...PRIORS] : [...PRIORS].reverse();
    for (const prior of order) costs.get(prior)!.push(await turn(threads.get(prior)!));
  }

  const measure = (part: keyof PassCost) => (prior: number) => median(costs.get(prior)!.map((cost) => cost[part]));
  const [wall, cpu, build, hash] = [measure("wall"), measure("cpu"), measure("build"), measure("hash")];
  const [short, long] = PRIORS;
  const ratio = (of: (prior: number) => number) => of(long) / of(short);
  for (const prior of PRIORS)
    console.log(
      `${prior} prior events: ${wall(prior).toFixed(1)} ms per pass, worker CPU ${cpu(prior).toFixed(1)} ms ` +
        `(builds ${build(prior).toFixed(1)}, hashes ${hash(prior).toFixed(1)})`,
    );
  console.log(`Ratio: wall ${ratio(wall).toFixed(2)}, worker CPU ${ratio(cpu).toFixed(2)}`);
  const ms = (value: number) => Number(value.toFixed(1));
  const check = (value: number) => (value <= TARGET ? "met" : "**missed**");
  writeSection(
    "Temporal: per pass on a long thread (`temporal-long-thread.ts`)",
    [
      `One pass (a model call and its tool call with a 1 KB result) of soev-agents on Temporal: one dev server, the scripted OpenAI-compatible server over HTTP that answers at once, ` +
        `the turn worker in a process of its own with the SDK's default worker options, on a SQLite store; the agent has the default context policy and a window of 128k tokens, so the long thread's builds shrink. ` +
        `Two threads, one with 10 prior events and one with 5,000 (completed turns of a question, a tool call and an answer, appended to the store directly), ` +
        `each a warm-up turn, then ${TURNS} turns of ${PASSES} passes each (the answer's model call counted in), the threads taking turns. ` +
        `Per pass: a turn's time from start to result, and the worker process's CPU time (user and system, as the worker's process.cpuUsage reads it) over the turn, divided by ${PASSES}; the medians of the turns. ` +
        "Of the worker's CPU, the request builds (MessageBuilder.assess, the context builder's part) and the request hashes that the OpenAI adapter records (ChatRequest.hash), by process.cpuUsage in the worker; " +
        "and the size of the last request the thread's turns sent (ChatRequest.characters): what each model call maps, hashes and sends over HTTP.",
      "",
      markdownTable([
        [
          "prior events",
          "wall ms per pass",
          "worker CPU ms per pass",
          "of it request builds",
          "of it request hashes",
          "characters of the last request",
        ],
        ...PRIORS.map((prior) => [
          prior,
          ms(wall(prior)),
          ms(cpu(prior)),
          ms(build(prior)),
          ms(hash(prior)),
          requestCharacters.get(threads.get(prior)!) ?? 0,
        ]),
      ]),
      "",
      markdownTable([
        ["target (issue 11)", "measured", ""],
        [
          `per pass at 5,000 prior events ≤ ${TARGET}× at 10, on Temporal (wall)`,
          `${ratio(wall).toFixed(2)}×`,
          check(ratio(wall)),
        ],
        ["the same by the worker's CPU time", `${ratio(cpu).toFixed(2)}×`, check(ratio(cpu))],
      ]),
      "",
      "The CPU ratio moves from run to run: on 2026-12-03, ten runs each of the turn workflow before and after it made fewer promises (36d1787), alternating, read 1.15 to 1.34 before and 1.20 to 1.36 after; in the last five pairs the medians were 1.27 before and 1.25 after, and the worker's CPU a pass 41.9 and 52.7 ms before against 40.5 and 50.4 after (at 10 and 5,000 prior events).",
      "",
      `Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, on the shared 2-core development machine (load average ${loadavg()[0]!.toFixed(1)} at the end): ` +
        "timings move with its load; compare within one run.",
    ].join("\n"),
  );
  console.log("Wrote the long-thread section of bench/README.md.");
} finally {
  await worker?.stop();
  await store.close();
  await temporal.teardown();
  await server.close();
  rmSync(folder, { recursive: true, force: true });
}
