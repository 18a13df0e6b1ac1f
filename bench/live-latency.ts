/**
 * Live latency: from the moment the model server sends a fragment to the moment an SSE client of the app
 * reads it, with BENCH_LIVE_STREAMS turns (default 20, each its own thread) streaming at once, in two
 * deployments: `npm run app` (one process, in-process live channel) and `npm run app:server` with
 * `npm run worker` (two processes, PostgreSQL LISTEN/NOTIFY). And the time to first token the app adds to the
 * model server's own. Writes its section of bench/README.md.
 *
 * Run: `npm run bench -- live`. BENCH_LIVE_ROUNDS (default 3), BENCH_LIVE_FRAGMENTS (50 per turn),
 * BENCH_LIVE_GAP_MS (10 between fragments) and BENCH_LIVE_FIRST_MS (100 before the first) tune it;
 * BENCH_LIVE_PATHS=PostgreSQL or =one runs one path only (and writes its row alone).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { DefaultLogger, Runtime } from "@temporalio/worker";
import { startBenchTemporal } from "./shared/temporal-server.js";
import { freshSchema } from "../test/support/postgres.js";
import { followTurn, type FollowedTurn } from "./live/follow-turn.js";
import { StampingServer, type StampingOptions } from "./live/stamping-server.js";
import { oneProcess, throughPostgres, type Deployment, type DeploymentEnvironment } from "./live/topologies.js";
import { markdownTable, writeSection } from "./report.js";

const STREAMS = Number(process.env.BENCH_LIVE_STREAMS ?? 20);
const ROUNDS = Number(process.env.BENCH_LIVE_ROUNDS ?? 3);
const STREAMING: StampingOptions = {
  fragments: Number(process.env.BENCH_LIVE_FRAGMENTS ?? 50),
  gapMilliseconds: Number(process.env.BENCH_LIVE_GAP_MS ?? 10),
  firstMilliseconds: Number(process.env.BENCH_LIVE_FIRST_MS ?? 100),
};
/** The targets of issue 60, in milliseconds. */
const TARGETS = { oneProcessP50: 5, postgresP50: 20, p99: 50 } as const;

Runtime.install({ logger: new DefaultLogger("WARN") });

/** What one deployment measured. */
interface Measured {
  name: string;
  p50Target: number;
  turns: FollowedTurn[];
  /** Per turn: the client's time to first fragment minus the model server's (request to first send). */
  extraToFirst: number[];
  /** The model server's own time to first fragment, per turn. */
  serverToFirst: number[];
  failed: number;
  load: number;
}

/** The value below which `share` of the sorted values lie (nearest rank). */
function percentile(values: readonly number[], share: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!;
}
const milliseconds = (value: number) => Number(value.toFixed(1));
const verdict = (value: number, target: number) => (value <= target ? "met" : "not met");

/** STREAMS turns at once, each on a thread of its own, followed to their end. */
async function round(app: string, tag: string): Promise<FollowedTurn[]> {
  const labels = Array.from({ length: STREAMS }, (_, index) => `${tag}-${index}-${randomBytes(3).toString("hex")}`);
  return Promise.all(labels.map((label) => followTurn(app, label)));
}

/** Warm the deployment up (one turn, then one round), then run ROUNDS rounds and gather what they measured. */
async function measure(
  name: string,
  p50Target: number,
  deployment: Deployment,
  server: StampingServer,
): Promise<Measured> {
  console.log(`${name}: warming up ...`);
  await followTurn(deployment.url, `warm-${randomBytes(3).toString("hex")}`);
  await round(deployment.url, "warm");
  const turns: FollowedTurn[] = [];
  for (let index = 0; index < ROUNDS; index++) {
    console.log(`${name}: round ${index + 1} of ${ROUNDS} (${STREAMS} streams) ...`);
    turns.push(...(await round(deployment.url, `round${index}`)));
  }
  const extraToFirst: number[] = [];
  const serverToFirst: number[] = [];
  for (const turn of turns) {
    const timing = server.timings.get(turn.label);
    if (turn.firstReadAt === null || !timing?.firstSentAt) continue;
    serverToFirst.push(timing.firstSentAt - timing.arrivedAt);
    extraToFirst.push(turn.firstReadAt - turn.startedAt - (timing.firstSentAt - timing.arrivedAt));
  }
  const failed = turns.filter((turn) => turn.status !== "completed").length;
  return { name, p50Target, turns, extraToFirst, serverToFirst, failed, load: loadavg()[0]! };
}

/** The section of bench/README.md. */
function section(results: readonly Measured[]): string {
  const rows: (string | number)[][] = [
    [
      "path",
      "turns",
      "fragments read",
      "p50 ms",
      "p99 ms",
      "max ms",
      "p50 target",
      "p99 ≤ 50 ms",
      "extra to first token p50 ms",
      "p99 ms",
      "load",
    ],
  ];
  for (const result of results) {
    const latencies = result.turns.flatMap((turn) => turn.latencies);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    rows.push([
      result.name,
      result.turns.length,
      latencies.length,
      milliseconds(p50),
      milliseconds(p99),
      milliseconds(Math.max(...latencies)),
      `≤ ${result.p50Target} ms: ${verdict(p50, result.p50Target)}`,
      verdict(p99, TARGETS.p99),
      milliseconds(percentile(result.extraToFirst, 0.5)),
      milliseconds(percentile(result.extraToFirst, 0.99)),
      Number(result.load.toFixed(1)),
    ]);
  }
  const expected = results.reduce((sum, result) => sum + result.turns.length, 0) * STREAMING.fragments;
  const read = results.reduce(
    (sum, result) => sum + result.turns.reduce((count, turn) => count + turn.latencies.length, 0),
    0,
  );
  const coalesced = results.reduce(
    (sum, result) => sum + result.turns.reduce((count, turn) => count + turn.coalesced, 0),
    0,
  );
  const failed = results.reduce((sum, result) => sum + result.failed, 0);
  const noFirst = results.reduce((sum, result) => sum + result.turns.length - result.extraToFirst.length, 0);
  const serverFirst = percentile(
    results.flatMap((result) => result.serverToFirst),
    0.5,
  );
  return `
From the moment the model server sends a fragment to the moment an SSE client of the app reads it, with
${STREAMS} turns streaming at once (each its own thread; BENCH_LIVE_STREAMS), ${ROUNDS} rounds after a warm-up round.
The model is a scripted OpenAI-compatible server over HTTP (bench/live/stamping-server.ts) that streams
${STREAMING.fragments} text deltas per answer, ${STREAMING.gapMilliseconds} ms apart, the first ${STREAMING.firstMilliseconds} ms after the request; each delta's text is
the time it was sent (\`performance.timeOrigin + performance.now()\`). The clients, in the bench's process with the model
server, start each turn with POST /threads and follow it on the native stream GET /threads/{id}/events (each
fragment its own \`fragment\` event), and subtract each delta's stamp from the time they read it. **one process** is
\`npm run app\` (app.ts: the app, its worker and the in-process live channel in one process, SQLite); **through
PostgreSQL** is \`npm run app:server\` and \`npm run worker\` (app-server.ts, worker.ts: two processes, the trace store and
the live channel, LISTEN/NOTIFY, on PostgreSQL). Both use the OpenAI adapter (OPENAI_BASE_URL) and the example catalog,
on one Temporal dev server (the Temporal CLI, as temporal.ts) and PostgreSQL (DATABASE_URL, else the tests' local
server; a schema of the run's own). **extra to first token** is the client's time from POST to its first fragment minus the
model server's own from request to first send (median ${milliseconds(serverFirst)} ms): starting the turn, the workflow and
activity tasks, reading the thread, building the request.

${markdownTable(rows)}

${read.toLocaleString("en-US")} of ${expected.toLocaleString("en-US")} deltas read; ${coalesced} fragments carried more than one delta (${
    coalesced === 0
      ? "none is coalesced: a delta is one fragment, one NOTIFY and one SSE event, and each is timed"
      : "each delta of a coalesced fragment is timed from its own stamp"
  }); ${noFirst} turns whose first fragment was not read (it left
before the client followed); ${failed} turns not completed. Run on ${new Date().toISOString().slice(0, 10)}, Node
${process.version}, on the shared 2-core development machine (load average at the end of each path in the table).
`;
}

const server = await StampingServer.start(STREAMING);
const temporal = await startBenchTemporal();
const schema = await freshSchema("bench_live");
const dataFolder = mkdtempSync(join(tmpdir(), "soev-bench-live-"));
const environment = (): DeploymentEnvironment => ({
  temporalAddress: temporal.address,
  taskQueue: `bench-live-${randomBytes(4).toString("hex")}`,
  modelUrl: server.baseURL,
});
const results: Measured[] = [];
try {
  const paths: [string, number, () => Promise<Deployment>][] = [
    ["one process", TARGETS.oneProcessP50, () => oneProcess(environment(), dataFolder)],
    ["through PostgreSQL", TARGETS.postgresP50, () => throughPostgres(environment(), schema.url, schema.name)],
  ];
  // BENCH_LIVE_PATHS=PostgreSQL (or "one") runs only the paths whose names contain the word.
  const only = process.env.BENCH_LIVE_PATHS;
  for (const [name, target, start] of paths.filter(([name]) => !only || name.includes(only))) {
    console.log(`${name}: starting ...`);
    const deployment = await start();
    try {
      results.push(await measure(name, target, deployment, server));
    } finally {
      await deployment.stop();
    }
  }
  const body = section(results);
  console.log(body);
  writeSection("Live latency (`live-latency.ts`)", body);
} finally {
  await schema.drop();
  await temporal.teardown();
  await server.close();
  rmSync(dataFolder, { recursive: true, force: true });
}
