/**
 * Benchmark of the trace stores, in one run on one disk:
 * - append throughput of PostgresTraceStore against the raw `pg` driver inserting the same rows, and of
 *   SqliteTraceStore against raw better-sqlite3, at batches of 1 and 10 events (appended as the runner
 *   appends: with `expected` and the thread's lease);
 * - the time of one pass (a model call and a tool call, scripted model) on the local runner when the thread
 *   holds 5,000 prior events against 10, on SQLite and on PostgreSQL, split into the request build (the
 *   context builder's part) and the rest (store, cache, planning).
 * Not a test: `npm run bench -- stores` writes its section of bench/README.md. PostgreSQL is DATABASE_URL
 * (default the local test database); the script makes a schema of its own and drops it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { z } from "zod";
import { PostgresTraceStore, SqliteTraceStore, migratePostgres } from "../src/adapters/index.js";
import { Input, ToolOutput, type StoredEvent } from "../src/domain/index.js";
import { ChatRequest, type TraceStore } from "../src/ports/index.js";
import { AgentCatalog, tool } from "../src/runtime/index.js";
import { ScriptedModel } from "../src/testing/index.js";
import { MessageBuilder, ModelLimits, ReActAgent, ReActConfig, Tokens } from "../src/toolkit/index.js";
import { markdownTable, writeSection } from "./report.js";
import { history, RESULT } from "./shared/history.js";
import { caughtUp, pauses, within } from "./shared/pauses.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA = `bench_stores_${process.pid}`;
/** Events each side appends in a measured round, by store and batch size: a few tenths of a second each or more, so that a pause of the machine moves a round little. */
const APPENDED = { postgres: { 1: 1_000, 10: 5_000 }, sqlite: { 1: 5_000, 10: 20_000 } } as const;
/** Rounds of raw and store appends in turn; the machine may be shared, so the ratio is the median of the rounds'. */
const ROUNDS = 9;
/**
 * Tool passes per measured turn (each a model call and a tool call), measured turns per size, and the turns
 * before them: the first turns on a long thread are the process's first to shrink, and V8 compiles that
 * code then (on its own threads, counted in the process's CPU): a cost of the process, once, not of a pass.
 * 60 turns: a turn's time jumps now and then on this shared machine (1.2 to 10 ms a pass, one thread, one run), and
 * with the medians of 30 the SQLite ratio of the same code ran from 0.99 to 1.94.
 */
const PASSES = 4;
const TURNS = 60;
const WARM_UP_TURNS = 3;
/** Rounds the measured turns of each size run in, alternating which size runs first (TURNS / PASS_ROUNDS turns each). */
const PASS_ROUNDS = 6;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** An unsealed event as the runner appends it: an assistant's tool result of about 1 KB. */
function appended(index: number): StoredEvent {
  return {
    type: "tool-output",
    stream: "main",
    actor: "tool",
    origin: "tools",
    payload: { callId: `call-${index}`, text: RESULT, data: null, elements: [], error: null },
    seq: null,
    ts: null,
    version: "bench",
  };
}

// ---- Append throughput ----------------------------------------------------------------------------------

type Appender = (events: StoredEvent[], done: number) => Promise<void>;

/** A clock, in seconds: the wall clock, or this process's CPU time (SQLite works in-process, so its CPU time is its cost whatever else runs). */
const CLOCKS = {
  wall: () => performance.now() / 1000,
  cpu: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  },
};

/**
 * Events per second of each side, `count` events each appended in batches of `batch`, the two sides in turn, one
 * batch at a time (alternating which goes first), so that both meet the same disk in the same milliseconds: a
 * disk's flush time drifts within seconds, and series of a second or so, each side's in turn, moved the ratio of
 * the same code from 0.64 to 1.02 at batch 1 on PostgreSQL.
 */
async function interleaved(
  count: number,
  batch: number,
  sides: { raw: Appender; store: Appender },
  clock: keyof typeof CLOCKS,
): Promise<{ raw: number; store: number }> {
  const now = CLOCKS[clock];
  const spent = { raw: 0, store: 0 };
  for (let done = 0; done < count; done += batch) {
    const events = Array.from({ length: batch }, (_, index) => appended(done + index));
    const order = (done / batch) % 2 === 0 ? (["raw", "store"] as const) : (["store", "raw"] as const);
    for (const side of order) {
      const start = now();
      await sides[side](events, done);
      spent[side] += now() - start;
    }
  }
  return { raw: count / spent.raw, store: count / spent.store };
}

/** The framework's append: with `expected` (the stream's length as last read) and the thread's lease. */
async function storeAppender(store: TraceStore, threadId: string) {
  const lease = await store.acquire(threadId, { owner: "bench", ttl: 600 });
  return async (events: StoredEvent[], done: number) => {
    await store.append(threadId, events, { expected: { main: done }, lease });
  };
}

async function postgresAppends(): Promise<(string | number)[][]> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  await pool.query(`CREATE SCHEMA "${SCHEMA}"`);
  try {
    await migratePostgres(pool, { schema: SCHEMA });
    const store = new PostgresTraceStore({ pool, schema: SCHEMA });
    // The raw driver: the same rows into a table like the store's (its primary key and stream index, as the store
    // has no foreign key since migration 5), one INSERT per batch, autocommit.
    await pool.query(
      `CREATE TABLE "${SCHEMA}".raw_events (thread text NOT NULL, position integer NOT NULL, type text NOT NULL, ` +
        "stream text NOT NULL, actor text NOT NULL, origin text, payload json NOT NULL, seq integer NOT NULL, ts text NOT NULL, " +
        `version text, PRIMARY KEY (thread, position)); CREATE INDEX ON "${SCHEMA}".raw_events (thread, stream, seq)`,
    );
    const insert =
      `INSERT INTO "${SCHEMA}".raw_events SELECT $1, u.n + $2, u.type, u.stream, u.actor, u.origin, u.payload::json, u.n + $2 - 1, $3, u.version ` +
      "FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) WITH ORDINALITY AS u(type, stream, actor, origin, payload, version, n)";
    const raw = (threadId: string) => async (events: StoredEvent[], done: number) => {
      const column = (name: keyof StoredEvent) => events.map((event) => event[name]);
      await pool.query({
        name: "raw-insert",
        text: insert,
        values: [
          threadId,
          done,
          new Date().toISOString(),
          column("type"),
          column("stream"),
          column("actor"),
          column("origin"),
          events.map((event) => JSON.stringify(event.payload)),
          column("version"),
        ],
      });
    };
    const rows = await compare(
      "PostgreSQL",
      APPENDED.postgres,
      raw,
      (threadId) => storeAppender(store, threadId),
      "wall",
    );
    await store.close();
    return rows;
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await pool.end();
  }
}

async function sqliteAppends(folder: string): Promise<(string | number)[][]> {
  const store = new SqliteTraceStore(join(folder, "store.sqlite"));
  // The raw driver: the same rows into a table like the store's, one transaction per batch, same pragmas.
  const db = new BetterSqlite3(join(folder, "raw.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    "CREATE TABLE raw_events (thread TEXT NOT NULL, position INTEGER NOT NULL, type TEXT NOT NULL, stream TEXT NOT NULL, " +
      "actor TEXT NOT NULL, origin TEXT, payload TEXT NOT NULL, seq INTEGER NOT NULL, ts TEXT NOT NULL, version TEXT, " +
      "PRIMARY KEY (thread, position)) WITHOUT ROWID; CREATE INDEX raw_events_stream ON raw_events (thread, stream, seq)",
  );
  const insert = db.prepare("INSERT INTO raw_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  // The transaction made once, as better-sqlite3's documentation makes it (each transaction() call makes functions).
  const insertAll = db.transaction((threadId: string, events: StoredEvent[], done: number) => {
    const ts = new Date().toISOString();
    events.forEach((event, index) =>
      insert.run(
        threadId,
        done + index + 1,
        event.type,
        event.stream,
        event.actor,
        event.origin,
        JSON.stringify(event.payload),
        done + index,
        ts,
        event.version,
      ),
    );
  });
  const raw = (threadId: string) => async (events: StoredEvent[], done: number) => {
    insertAll.immediate(threadId, events, done);
  };
  const rows = await compare("SQLite", APPENDED.sqlite, raw, (threadId) => storeAppender(store, threadId), "cpu");
  await store.close();
  db.close();
  return rows;
}

/** ROUNDS rounds of raw and store appends in turn (interleaved), new threads each; the median rates and the median of the rounds' ratios. */
async function compare(
  name: string,
  counts: Readonly<Record<1 | 10, number>>,
  raw: (threadId: string) => Appender,
  store: (threadId: string) => Promise<Appender>,
  clock: keyof typeof CLOCKS,
): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  let threads = 0;
  const sides = async () => ({ raw: raw(`raw-${++threads}`), store: await store(`store-${++threads}`) });
  for (const batch of [1, 10] as const) {
    const count = counts[batch];
    // Warm both paths (statements prepared, JIT) on a short round first.
    await interleaved(count / 10, batch, await sides(), clock);
    const rawRates: number[] = [];
    const storeRates: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const rates = await interleaved(count, batch, await sides(), clock);
      rawRates.push(rates.raw);
      storeRates.push(rates.store);
      ratios.push(rates.store / rates.raw);
    }
    const [rawRate, storeRate, ratio] = [median(rawRates), median(storeRates), median(ratios)];
    const spread = `${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}`;
    console.log(
      `${name} batch ${batch}: raw ${rawRate.toFixed(0)}/s, store ${storeRate.toFixed(0)}/s, ${ratio.toFixed(2)} (rounds ${spread})`,
    );
    rows.push([
      name,
      batch,
      clock === "wall" ? "wall" : "CPU",
      Math.round(rawRate),
      Math.round(storeRate),
      ratio.toFixed(2),
      spread,
    ]);
  }
  return rows;
}

// ---- Per pass ---------------------------------------------------------------------------------------------

const echo = tool({
  name: "echo",
  description: "Say the words back.",
  args: { words: z.string().describe("The words.") },
  async run({ words }) {
    return ToolOutput({ text: `${words} ${RESULT}` });
  },
});

/** A window of a current model: the 5,000 events are over the default policy's thresholds, so builds shrink. */
const LIMITS = new ModelLimits({ window: new Tokens(128_000) });

/** CPU milliseconds of this process since `since` (process.cpuUsage), user and system. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/**
 * The CPU time of the request builds, added up while it runs (MessageBuilder.assess is each build's work),
 * and when each ran, so that a collector pause can be told to fall in a build or in the rest.
 */
const building = { ms: 0, spans: [] as [number, number][] };
const assess = MessageBuilder.prototype.assess;
MessageBuilder.prototype.assess = function timed(this: MessageBuilder, ...args: Parameters<typeof assess>) {
  const [start, at] = [process.cpuUsage(), performance.now()];
  try {
    return assess.apply(this, args);
  } finally {
    building.ms += cpuMs(start);
    building.spans.push([at, performance.now()]);
  }
};

/**
 * What one pass costs: wall and CPU milliseconds, the CPU milliseconds of its request build, and the
 * collector's pauses outside the builds (counted in the rest's CPU; they grow with the heap that the
 * builder's caches and working set hold, whichever part's allocation sets them off).
 */
interface PassCost {
  wall: number;
  cpu: number;
  build: number;
  restGc: number;
}

/**
 * Drop the requests the scripted model recorded (between turns, outside the time measured): a served model keeps
 * none, and those of a long thread (each a list of thousands of messages) would grow the heap the collector walks.
 * The count stays, since the script's next output is the one at the count.
 */
function forget(model: ScriptedModel): void {
  model.requests.fill(FORGOTTEN);
}
const FORGOTTEN = new ChatRequest([]);

/** Turns on one thread, measured a few at a time (`run`), and their cost per pass once every round has run (`cost`). */
interface PassSeries {
  run(turns: number): Promise<void>;
  cost(): PassCost;
}

/** A thread of `prior` events with its warm-up turns run, whose turns of PASSES passes are measured when asked. */
async function passSeries(store: TraceStore, prior: number): Promise<PassSeries> {
  const turn = [
    ...Array.from({ length: PASSES }, () => ({ toolCalls: [{ name: "echo", arguments: { words: "hi" } }] })),
    "Done.",
  ];
  const model = new ScriptedModel(Array.from({ length: TURNS + WARM_UP_TURNS }, () => turn).flat());
  const agent = new ReActAgent(
    new ReActConfig({ model, prompt: "Answer.", tools: [echo], passes: PASSES + 1, limits: LIMITS }),
  );
  const catalog = new AgentCatalog(store, { assistant: agent }, { version: "bench" });
  const [thread] = await catalog.open("assistant", Input({ payload: "Start", model: "scripted" }));
  const types = catalog.types("assistant");
  const events = history(prior, { agent: "assistant", tool: { name: "echo", arguments: { words: "hi" } } });
  for (let from = 0; from < events.length; from += 500)
    await store.append(
      thread.id,
      events.slice(from, from + 500).map((event) => types.check(event)),
    );
  // The first warm-up turn reads the thread whole (cold); the measured turns read incrementally.
  for (let index = 0; index < WARM_UP_TURNS; index++) {
    await thread.send(Input({ payload: `Warm up ${index}`, model: "scripted" }));
    forget(model);
  }
  const costs: PassCost[] = [];
  const turns: [number, number][] = [];
  return {
    async run(count) {
      for (let index = 0; index < count; index++) {
        building.ms = 0;
        const [start, cpu] = [performance.now(), process.cpuUsage()];
        await thread.send(Input({ payload: `Measured ${costs.length}`, model: "scripted" }));
        turns.push([start, performance.now()]);
        const [wall, used] = [(performance.now() - start) / PASSES, cpuMs(cpu) / PASSES];
        costs.push({ wall, cpu: used, build: building.ms / PASSES, restGc: 0 });
        forget(model);
      }
    },
    cost() {
      // The collector's pauses in this series' turns and not in builds.
      const restGc = pauses
        .filter((pause) => within(pause.at, turns) && !within(pause.at, building.spans))
        .reduce((sum, pause) => sum + pause.ms, 0);
      return {
        wall: median(costs.map((cost) => cost.wall)),
        cpu: median(costs.map((cost) => cost.cpu)),
        build: median(costs.map((cost) => cost.build)),
        restGc: restGc / (costs.length * PASSES),
      };
    },
  };
}

/**
 * The cost per pass (medians) on a thread of 10 and of 5,000 prior events, each opened by `open`: their turns run
 * in PASS_ROUNDS rounds, alternating which thread goes first, so that the machine's load over the minutes of a
 * series weighs on both sizes alike.
 */
async function perPass(open: () => TraceStore): Promise<{ small: PassCost; large: PassCost }> {
  const stores = [open(), open()];
  try {
    const [small, large] = [await passSeries(stores[0]!, 10), await passSeries(stores[1]!, 5_000)];
    building.spans = [];
    for (let round = 0; round < PASS_ROUNDS; round++)
      for (const series of round % 2 === 0 ? [small, large] : [large, small]) await series.run(TURNS / PASS_ROUNDS);
    await caughtUp();
    const costs = { small: small.cost(), large: large.cost() };
    pauses.length = 0;
    return costs;
  } finally {
    for (const store of stores) await store.close();
  }
}

type PassStore = "SQLite" | "PostgreSQL";

/** The cost per pass on one store, both sizes, in this process (a child run of `passes`). */
async function storePasses(name: PassStore, folder: string): Promise<{ small: PassCost; large: PassCost }> {
  if (name === "SQLite") return perPass(() => new SqliteTraceStore(join(folder, `passes-${performance.now()}.sqlite`)));
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  await pool.query(`CREATE SCHEMA "${SCHEMA}_passes"`);
  try {
    await migratePostgres(pool, { schema: `${SCHEMA}_passes` });
    return await perPass(() => new PostgresTraceStore({ pool, schema: `${SCHEMA}_passes` }));
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${SCHEMA}_passes" CASCADE`);
    await pool.end();
  }
}

/**
 * The per-pass costs on one store measured in a process of its own, as a worker serves its threads: not after the
 * appends in this one (its heap, and the store's work on the disk it left), nor after another store's.
 */
function childPasses(name: PassStore): { small: PassCost; large: PassCost } {
  const { stdout, status, stderr } = spawnSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url)],
    { env: { ...process.env, BENCH_PASSES_STORE: name }, encoding: "utf8" },
  );
  if (status !== 0) throw new Error(`The passes on ${name} failed in their process:\n${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { small: PassCost; large: PassCost };
}

/** Processes that measure the passes on each store, in turn; the table shows the one whose wall ratio is the median. */
const PASS_PROCESSES = 3;

async function passes(): Promise<{ rows: (string | number)[][]; ratios: Record<PassStore, string[]> }> {
  const runs: Record<PassStore, { small: PassCost; large: PassCost }[]> = { SQLite: [], PostgreSQL: [] };
  for (let round = 0; round < PASS_PROCESSES; round++)
    for (const name of ["SQLite", "PostgreSQL"] as const) {
      const run = childPasses(name);
      console.log(`${name} per pass: at 10 events ${JSON.stringify(run.small)}, at 5,000 ${JSON.stringify(run.large)}`);
      runs[name].push(run);
    }
  const ms = (value: number) => Number(value.toFixed(2));
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const rows: (string | number)[][] = [];
  const ratios = { SQLite: [] as string[], PostgreSQL: [] as string[] };
  for (const name of ["SQLite", "PostgreSQL"] as const) {
    const byRatio = [...runs[name]].sort((a, b) => a.large.wall / a.small.wall - b.large.wall / b.small.wall);
    ratios[name] = runs[name].map(({ small, large }) => ratio(large.wall, small.wall));
    const { small, large } = byRatio[Math.floor(byRatio.length / 2)]!;
    rows.push([
      name,
      ms(small.wall),
      ms(large.wall),
      ratio(large.wall, small.wall),
      ms(small.cpu),
      ms(large.cpu),
      ratio(large.cpu, small.cpu),
      ms(small.cpu - small.build),
      ms(large.cpu - large.build),
      ratio(large.cpu - large.build, small.cpu - small.build),
      ms(small.restGc),
      ms(large.restGc),
      ratio(large.cpu - large.build - large.restGc, small.cpu - small.build - small.restGc),
      ms(large.build),
    ]);
  }
  return { rows, ratios };
}

// ---- Run --------------------------------------------------------------------------------------------------

const folder = mkdtempSync(join(tmpdir(), "soev-bench-stores-"));
// A child run (childPasses): the passes on one store, their costs on stdout.
const child = process.env.BENCH_PASSES_STORE as PassStore | undefined;
try {
  if (child !== undefined) console.log(JSON.stringify(await storePasses(child, folder)));
  else await writeStores();
} finally {
  rmSync(folder, { recursive: true, force: true });
}

async function writeStores(): Promise<void> {
  const appends = [...(await postgresAppends()), ...(await sqliteAppends(folder))];
  const { rows: perPassRows, ratios } = await passes();
  const met = (holds: boolean) => (holds ? "met" : "not met");
  const targets = [
    ...appends.map((row) => {
      const ratio = Number(row[5]);
      return [`${row[0]} appends, batch ${row[1]}: store ≥ 0.8× raw`, `${ratio}×`, met(ratio >= 0.8)];
    }),
    ...perPassRows.map((row) => {
      const ratio = Number(row[3]);
      return [`${row[0]} pass at 5,000 prior events ≤ 1.3× at 10 (wall)`, `${ratio}×`, met(ratio <= 1.3)];
    }),
  ];
  writeSection(
    "Trace stores (`stores.ts`)",
    [
      `**Appends.** The store's append as the runner makes it (\`expected\` and the lease checked) against the raw driver ` +
        `inserting the same ~1 KB rows into a table with the same keys, one thread, batches of 1 and 10, the two sides in ` +
        `turn one batch at a time so both meet the same disk. ${ROUNDS} rounds; rates are medians of the rounds', the ratio ` +
        `the median of the rounds' ratios. PostgreSQL by the wall clock (its commit's flush counts); SQLite by this ` +
        `process's CPU time (it works in-process).`,
      "",
      markdownTable([
        ["store", "batch", "clock", "raw events/s", "store events/s", "store / raw", "rounds' ratios"],
        ...appends,
      ]),
      "",
      `**A pass on a long thread.** One pass (a model call and a 1 KB tool result, scripted model, default context ` +
        `policy) on the local runner, median of ${TURNS} turns of ${PASSES} passes after ${WARM_UP_TURNS} warm-up turns, ` +
        `on threads of 10 and 5,000 prior events, ${PASS_PROCESSES} processes a store (the median one shown). "Rest" is ` +
        `the pass's CPU without the request builds; "GC in rest" the collector's pauses outside the builds.`,
      "",
      markdownTable([
        [
          "store",
          "wall ms at 10",
          "wall ms at 5,000",
          "wall ratio",
          "CPU ms at 10",
          "CPU ms at 5,000",
          "CPU ratio",
          "CPU rest at 10",
          "CPU rest at 5,000",
          "rest ratio",
          "GC in rest at 10",
          "GC in rest at 5,000",
          "rest ratio without GC",
          "CPU build at 5,000",
        ],
        ...perPassRows,
      ]),
      "",
      `Wall ratio of each process: SQLite ${ratios.SQLite.join(", ")}; PostgreSQL ${ratios.PostgreSQL.join(", ")}.`,
      "",
      markdownTable([["target (issue 11)", "measured", ""], ...targets]),
      "",
      `Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, load average ` +
        `${loadavg()[0]!.toFixed(1)} at the end.`,
    ].join("\n"),
  );
}
