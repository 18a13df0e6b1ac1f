/**
 * The fault trials: one turn of the town assistant with parallel tool calls (PARALLEL_SCRIPT, each call
 * waiting a random time first), run by a test worker in a process of its own while a fault strikes:
 * - "kill": the worker is SIGKILLed at a random gate (in a model call, in a tool call, after an output
 *   was recorded, between two steps); an in-process worker takes the turn over;
 * - "terminate": PostgreSQL terminates the worker's backends, round after round, during the turn;
 * - "follower": PostgreSQL terminates a follower's backends while it follows the turn.
 * Each trial says what a user would see: processes that died of it, events lost or doubled against the
 * trace of an uninterrupted run, whether the turn completed and whether its trace equals that trace.
 * The fault suite (faults.test.ts) runs a few of each; `npm run faults` runs many and writes the table.
 */
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@temporalio/client";
import { Pool } from "pg";
import { PostgresTraceStore } from "../../src/adapters/stores/postgres.js";
import type { Event } from "../../src/domain/events.js";
import type { TraceStore } from "../../src/ports/store.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { releaseFile, reachedFile, type GatePoint, type GateSpec } from "../fixtures/temporal/gates.js";
import { PARALLEL_SCRIPT, TOWN_MODEL, TOWN_QUESTIONS, townCatalog } from "../fixtures/temporal/town.js";
import type { StoreSpec } from "../fixtures/temporal/worker.js";
import { uniqueTaskQueue } from "../support/temporal.js";
import { looperCatalog } from "../fixtures/looper.js";
import { Failure, ModelOutput } from "../../src/domain/events.js";
import {
  gateFolder,
  spawnWorker,
  waitForFile,
  withWorker,
  withoutTimes,
  type ChildWorker,
  type TestStore,
} from "../temporal/harness.js";

/** The longest random wait of a tool call before it runs, in milliseconds: the calls finish in any order. */
export const TOOL_DELAY = 250;

/** Short timeouts, so the server gives a dead worker's activities to the next worker within seconds. */
const SETTINGS = { heartbeatSeconds: 2, controlSeconds: 5 };

/** How many times PostgreSQL terminates the worker's backends during a "terminate" trial. */
export const TERMINATIONS = 25;

/** How many times PostgreSQL terminates the follower's backends while it follows, at least. */
export const FOLLOWER_TERMINATIONS = 10;

/** The kinds of trial. */
export type TrialKind = "kill" | "terminate" | "follower";

/** What one trial saw. */
export interface TrialOutcome {
  kind: TrialKind;
  store: "sqlite" | "postgres";
  /** Where the fault struck, for a failure's message: the gate, or the rounds of termination. */
  where: string;
  /** Processes that ended without the test ending them (a worker's exit, a follower's error). */
  crashes: number;
  /** Events of the uninterrupted run's trace missing from this trace (or from what the follower got). */
  lost: number;
  /** Events this trace (or the follower) holds more often than the uninterrupted run's trace. */
  doubled: number;
  completed: boolean;
  /** Why the turn did not complete: its failure's type and message (null when it completed). */
  failure?: string | null;
  /** The trace equals the uninterrupted run's, timestamps aside (and the follower got exactly it). */
  equal: boolean;
}

/** The events of a trace as two runs must agree on them: all but the time of each append. */
export type Timeless = Event[];

/** Where every trial of one store runs: the store, its spec for the workers, the Temporal client. */
export interface TrialPlace {
  client: Client;
  store: TestStore;
  kind: "sqlite" | "postgres";
}

/**
 * The gates a worker of PARALLEL_SCRIPT passes: three model calls, four tools that run (the third search is
 * refused before it runs), three outputs recorded, three plans.
 */
const GATES: readonly [GatePoint, number][] = [
  ["model", 3],
  ["tool", 4],
  ["recorded", 3],
  ["plan", 3],
];

let counter = 0;

/** A thread id of its own for each trial. */
function threadIdOf(kind: string): string {
  counter += 1;
  return `fault-${kind}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/** The events of the thread, timestamps and positions aside. */
export async function timelessTrace(store: TraceStore, threadId: string): Promise<Timeless> {
  const { catalog } = townCatalog(store);
  const trace = await readTrace(store, catalog.types("assistant"), threadId);
  return withoutTimes(trace).map((entry) => entry.event);
}

/** Events of `expected` missing from `actual`, and events of `actual` beyond `expected`, counted as multisets. */
export function difference(
  expected: readonly unknown[],
  actual: readonly unknown[],
): { lost: number; doubled: number } {
  const counts = new Map<string, number>();
  for (const event of expected) counts.set(JSON.stringify(event), (counts.get(JSON.stringify(event)) ?? 0) + 1);
  let doubled = 0;
  for (const event of actual) {
    const key = JSON.stringify(event);
    const left = counts.get(key) ?? 0;
    if (left > 0) counts.set(key, left - 1);
    else doubled += 1;
  }
  const lost = [...counts.values()].reduce((sum, left) => sum + left, 0);
  return { lost, doubled };
}

/** The store spec a worker process opens, its PostgreSQL connections named `application`. */
function namedSpec(spec: StoreSpec, application: string): StoreSpec {
  if ("sqlite" in spec) return spec;
  const url = new URL(spec.postgres);
  url.searchParams.set("application_name", application);
  return { ...spec, postgres: url.toString() };
}

/** Start a turn of the parallel script on `taskQueue`. */
function startParallelTurn(client: Client, taskQueue: string, threadId: string) {
  return startTurn(client, {
    agent: "assistant",
    threadId,
    input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
    taskQueue,
    settings: SETTINGS,
  });
}

/** Run one turn with no fault, by a worker process of its own; its trace is what every trial must equal. */
export async function uninterruptedRun(place: TrialPlace): Promise<Timeless> {
  const taskQueue = uniqueTaskQueue("fault-clean");
  const threadId = threadIdOf("clean");
  const worker = await spawnParallelWorker(place, taskQueue, null, "soev-clean");
  try {
    await (await startParallelTurn(place.client, taskQueue, threadId)).result();
  } finally {
    worker.process.kill("SIGKILL");
    await worker.exited;
  }
  return timelessTrace(place.store.store, threadId);
}

function spawnParallelWorker(
  place: TrialPlace,
  taskQueue: string,
  gate: GateSpec | null,
  application: string,
): Promise<ChildWorker> {
  return spawnWorker({
    taskQueue,
    store: namedSpec(place.store.spec, application),
    gate,
    env: { SOEV_TEST_PARALLEL_DELAY: String(TOOL_DELAY) },
  });
}

/** Finish a turn whose worker died: an in-process worker on the same store takes its activities over. */
function finishedInProcess<T>(place: TrialPlace, taskQueue: string, body: () => Promise<T>): Promise<T> {
  const { catalog } = townCatalog(place.store.store, null, {
    script: PARALLEL_SCRIPT,
    beforeTool: () => sleep(Math.random() * TOOL_DELAY),
  });
  return withWorker(catalog, taskQueue, body);
}

/** What a finished trial's trace says against the uninterrupted run's. */
async function judged(
  place: TrialPlace,
  threadId: string,
  expected: Timeless,
  facts: Pick<TrialOutcome, "kind" | "where" | "crashes" | "completed">,
): Promise<TrialOutcome> {
  const actual = await timelessTrace(place.store.store, threadId);
  const equal = JSON.stringify(actual) === JSON.stringify(expected);
  const failure = facts.completed ? null : lastFailure;
  return { ...facts, store: place.kind, ...difference(expected, actual), equal, ...(failure ? { failure } : {}) };
}

/** Whether a worker process still runs: one that exited on its own died of the fault. */
function alive(worker: ChildWorker): boolean {
  return worker.process.exitCode === null && worker.process.signalCode === null;
}

/** The failure of the last turn that did not complete, for the trial's outcome. */
let lastFailure: string | null = null;

/** Whether the turn ended with a result, not a failure; a failure is logged with its cause, to find the fault. */
const succeeded = (result: Promise<unknown>): Promise<boolean> =>
  result.then(
    () => true,
    (error: unknown) => {
      const cause = (error as { cause?: { type?: string; message?: string } }).cause;
      lastFailure = `${cause?.type ?? String(error)}: ${cause?.message ?? ""}`;
      console.log(`fault trial: the turn failed: ${lastFailure}`);
      return false;
    },
  );

/**
 * A worker SIGKILLed at a random gate mid-turn, its tool calls finishing in a random order; an in-process
 * worker finishes the turn.
 */
export async function killTrial(
  place: TrialPlace,
  expected: Timeless,
  chosen?: [GatePoint, number],
): Promise<TrialOutcome> {
  const [at, most] = GATES[Math.floor(Math.random() * GATES.length)]!;
  const [point, occurrence] = chosen ?? [at, 1 + Math.floor(Math.random() * most)];
  const gate: GateSpec = { at: point, occurrence, dir: gateFolder() };
  const where = `SIGKILL at ${gate.at} ${gate.occurrence}`;
  const taskQueue = uniqueTaskQueue("fault-kill");
  const threadId = threadIdOf("kill");
  console.log(`fault trial on ${place.kind}: ${where}, thread ${threadId}`);
  const doomed = await spawnParallelWorker(place, taskQueue, gate, "soev-doomed");
  let crashes = 0;
  let completed = false;
  try {
    const turn = await startParallelTurn(place.client, taskQueue, threadId);
    const reached = await Promise.race([
      waitForFile(reachedFile(gate)).then(() => "reached"),
      doomed.exited.then(() => "died"),
      turn.result().then(() => "ended"),
    ]);
    if (reached === "ended") throw new Error(`The turn ended before the worker reached its gate (${where}).`);
    if (reached === "died") crashes += 1;
    doomed.process.kill("SIGKILL");
    if ((await doomed.exited) !== "SIGKILL") crashes += 1;
    completed = await finishedInProcess(place, taskQueue, () => succeeded(turn.result()));
  } finally {
    doomed.process.kill("SIGKILL");
  }
  return judged(place, threadId, expected, { kind: "kill", where, crashes, completed });
}

/** Terminate every backend whose connections are named `application`; returns how many it ended. */
async function terminate(admin: Pool, application: string): Promise<number> {
  const { rows } = await admin.query<{ ended: string }>(
    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS ended FROM pg_stat_activity WHERE application_name = $1",
    [application],
  );
  return Number(rows[0]!.ended);
}

/**
 * Round after round of terminations: each round that ended a backend counts. The gate is released after
 * `release` rounds; rounds go on until `until` settles, or with `stop`, until the gate is released.
 */
async function terminations(
  admin: Pool,
  application: string,
  gate: GateSpec,
  release: number,
  until: Promise<unknown>,
  stop = false,
): Promise<number> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => undefined);
  let rounds = 0;
  while (!done && !(stop && rounds >= release)) {
    if ((await terminate(admin, application)) > 0) rounds += 1;
    if (rounds >= release) writeFileSync(releaseFile(gate), "");
    await sleep(40 + Math.random() * 40);
  }
  return rounds;
}

/**
 * PostgreSQL terminates the worker's backends in TERMINATIONS rounds while it runs
 * a turn: the worker holds its first tool call at a gate until then, while the calls after it finish and
 * wait, reading the store, to be recorded in call order. The worker must live through it.
 */
export async function terminateTrial(place: TrialPlace, admin: Pool, expected: Timeless): Promise<TrialOutcome> {
  const taskQueue = uniqueTaskQueue("fault-terminate");
  const threadId = threadIdOf("terminate");
  const application = `soev-terminated-${counter}`;
  const gate: GateSpec = { at: "tool", occurrence: 1, dir: gateFolder() };
  const worker = await spawnParallelWorker(place, taskQueue, gate, application);
  let crashes = 0;
  let completed = false;
  let rounds = 0;
  try {
    const turn = await startParallelTurn(place.client, taskQueue, threadId);
    // A worker that died ends the rounds: an in-process worker then finishes the turn.
    const ended = Promise.race([turn.result(), worker.exited]);
    // The fault: 25 terminations in a turn. Terminations for ever, every 60 ms, would outlast any
    // retry policy (10 attempts over about four minutes) on a loaded machine: that is an outage, not a fault.
    rounds = await terminations(admin, application, gate, TERMINATIONS, ended, true);
    if (!alive(worker)) {
      crashes += 1;
      writeFileSync(releaseFile(gate), "");
      completed = await finishedInProcess(place, taskQueue, () => succeeded(turn.result()));
    } else completed = await succeeded(turn.result());
  } finally {
    worker.process.kill("SIGKILL");
  }
  const where = `${rounds} rounds of terminations`;
  return judged(place, threadId, expected, { kind: "terminate", where, crashes, completed });
}

/**
 * A follower of the thread, on a store of its own, while PostgreSQL terminates its backends round after
 * round: the worker holds a tool call at a gate until FOLLOWER_TERMINATIONS rounds ended. The follower must
 * go on from the last event it delivered and deliver the whole turn, each event once, in order.
 */
export async function followerTrial(place: TrialPlace, admin: Pool, expected: Timeless): Promise<TrialOutcome> {
  if (!("postgres" in place.store.spec)) throw new Error("The follower trial runs on PostgreSQL.");
  const taskQueue = uniqueTaskQueue("fault-follower");
  const threadId = threadIdOf("follower");
  const application = `soev-follower-${counter}`;
  const spec = namedSpec(place.store.spec, application) as { postgres: string; schema: string };
  const follower = new PostgresTraceStore({ connectionString: spec.postgres, schema: spec.schema });
  const gate: GateSpec = { at: "tool", occurrence: 3, dir: gateFolder() };
  const worker = await spawnParallelWorker(place, taskQueue, gate, "soev-followed");
  const stop = new AbortController();
  const delivered: unknown[] = [];
  let crashes = 0;
  let completed = false;
  let rounds = 0;
  try {
    const turn = await startParallelTurn(place.client, taskQueue, threadId);
    // A follow of a thread that does not exist yet ends when it is made: follow once its input is recorded.
    while ((await timelessTrace(place.store.store, threadId)).length === 0) await sleep(20);
    const types = townCatalog(place.store.store).catalog.types("assistant");
    const following = (async () => {
      for await (const entry of follower.read(threadId, { after: 0, follow: true, signal: stop.signal })) {
        delivered.push({ ...types.decode(entry.event), ts: null });
        if (delivered.length === expected.length) return;
      }
    })();
    const followed = following.then(
      () => undefined,
      () => {
        if (!stop.signal.aborted) crashes += 1;
      },
    );
    // A follower that ended early holds no connection to terminate: the turn goes on without it.
    void followed.then(() => writeFileSync(releaseFile(gate), ""));
    const result = succeeded(turn.result());
    rounds = await terminations(admin, application, gate, FOLLOWER_TERMINATIONS, result);
    completed = await result;
    // A follower that delivers the turn's last event ends; one that lost it would wait for ever.
    await Promise.race([followed, sleep(30_000)]);
    if (!alive(worker)) crashes += 1;
  } finally {
    stop.abort();
    worker.process.kill("SIGKILL");
    await follower.close();
  }
  const where = `${rounds} rounds of terminations of the follower`;
  const outcome = await judged(place, threadId, expected, { kind: "follower", where, crashes, completed });
  const got = difference(expected, delivered);
  return {
    ...outcome,
    lost: outcome.lost + got.lost,
    doubled: outcome.doubled + got.doubled,
    equal: outcome.equal && JSON.stringify(delivered) === JSON.stringify(expected),
  };
}

/** A PostgreSQL pool of the test server for terminating backends. */
export function adminPool(url: string): Pool {
  const pool = new Pool({ connectionString: url, max: 1 });
  pool.on("error", () => undefined);
  return pool;
}

/** The looper's budget in its trials: 5 calls of 110 tokens fit under 500 tokens; the sixth is refused. */
const LOOPER_BUDGET = { turnTokens: 500 };

/** What a budget trial saw: the model calls the turn recorded, its Failures, and whether the turn failed on the budget. */
export interface BudgetOutcome {
  where: string;
  calls: number;
  failures: string[];
  endedOnBudget: boolean;
}

/**
 * A worker SIGKILLed in the budget's last allowed model call (the 5th of the looper's 500 tokens); an in-process
 * worker takes the turn over. The retry may redo that call, never a call past the budget.
 */
export async function budgetTrial(place: TrialPlace): Promise<BudgetOutcome> {
  const gate: GateSpec = { at: "model", occurrence: 5, dir: gateFolder() };
  const where = `SIGKILL in model call ${gate.occurrence} of a ${LOOPER_BUDGET.turnTokens}-token budget`;
  const taskQueue = uniqueTaskQueue("fault-budget");
  const threadId = threadIdOf("budget");
  const env = { SOEV_TEST_LOOPER: JSON.stringify(LOOPER_BUDGET) };
  const doomed = await spawnWorker({ taskQueue, store: place.store.spec, gate, env });
  const catalog = looperCatalog(place.store.store, LOOPER_BUDGET);
  try {
    const turn = await startTurn(place.client, {
      agent: "looper",
      threadId,
      input: { payload: "Go.", model: "gpt-4.1-mini" },
      taskQueue,
      settings: SETTINGS,
    });
    await waitForFile(reachedFile(gate));
    doomed.process.kill("SIGKILL");
    await doomed.exited;
    const ended = await withWorker(catalog, taskQueue, () =>
      turn.result().then(
        () => "completed",
        (error: unknown) => String((error as { cause?: { message?: string } }).cause?.message),
      ),
    );
    const trace = await catalog.read(threadId, "looper");
    return {
      where,
      calls: trace.byType(ModelOutput).length,
      failures: trace.byType(Failure).map((failure) => failure.error),
      endedOnBudget: /turnTokens budget is spent/.test(ended),
    };
  } finally {
    doomed.process.kill("SIGKILL");
  }
}
