/**
 * What the Temporal runner's tests share: one workflow bundle per test file, the two real stores,
 * in-process and child-process workers, and recorded histories for the replay test.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client, WorkflowHandle } from "@temporalio/client";
import { IllegalStateError } from "@temporalio/common";
import proto from "@temporalio/proto";
import { DefaultLogger, Runtime, Worker } from "@temporalio/worker";
import { createActivities } from "../../activities/index.js";
import { PostgresTraceStore } from "../../src/adapters/stores/postgres.js";
import { migratePostgres } from "../../src/adapters/stores/postgres-schema.js";
import { SqliteTraceStore } from "../../src/adapters/stores/sqlite.js";
import type { Event } from "../../src/domain/events.js";
import type { Trace } from "../../src/domain/trace.js";
import type { TraceStore } from "../../src/ports/store.js";
import type { AgentCatalog } from "../../src/runtime/catalog.js";
import { workflowIdOf } from "../../src/temporal/contract.js";
import { bundleTurnWorkflows, createTurnWorker } from "../../worker.js";
import type { GateSpec } from "../fixtures/temporal/gates.js";
import { afterAll, beforeAll } from "vitest";
import { connectClient, type TestClient } from "../support/temporal.js";
import type { StoreSpec } from "../fixtures/temporal/worker.js";
import { freshSchema } from "../support/postgres.js";
import { connectWorker, temporalEnvironment, temporalNamespace } from "../support/temporal.js";

// Workers log their state changes at INFO: the test output keeps warnings and errors only. The runtime is
// one per process, and a process may run several test files: the first file installs it.
try {
  Runtime.install({ logger: new DefaultLogger("WARN") });
} catch (error) {
  if (!(error instanceof IllegalStateError)) throw error;
}

/** The two stores the Temporal runner is tested on. */
export const STORE_KINDS = ["sqlite", "postgres"] as const;
/** One of the stores. */
export type StoreKind = (typeof STORE_KINDS)[number];

/** A store of a test's own, and how a worker in another process opens the same store. */
export interface TestStore {
  store: TraceStore;
  spec: StoreSpec;
  close(): Promise<void>;
}

/** A fresh store: a SQLite file in a new folder, or a PostgreSQL schema of its own. */
export async function openStore(kind: StoreKind): Promise<TestStore> {
  if (kind === "sqlite") {
    const path = join(mkdtempSync(join(tmpdir(), "soev-temporal-")), "trace.sqlite");
    const store = new SqliteTraceStore(path);
    return { store, spec: { sqlite: path }, close: () => store.close() };
  }
  const schema = await freshSchema("temporal");
  await migratePostgres(schema.pool, { schema: schema.name });
  const store = new PostgresTraceStore({ connectionString: schema.url, schema: schema.name });
  return {
    store,
    spec: { postgres: schema.url, schema: schema.name },
    close: async () => {
      await store.close();
      await schema.drop();
    },
  };
}

let bundle: Promise<{ code: string }> | undefined;
let bundlePath: string | undefined;

/** The workflow bundle of this test file: made once, shared by its workers (bundling takes seconds). */
export function sharedBundle(): Promise<{ code: string }> {
  return (bundle ??= bundleTurnWorkflows());
}

/** The shared bundle in a file, for workers in other processes. */
export async function sharedBundleFile(): Promise<string> {
  if (bundlePath) return bundlePath;
  const path = join(mkdtempSync(join(tmpdir(), "soev-bundle-")), "workflows.js");
  writeFileSync(path, (await sharedBundle()).code);
  return (bundlePath = path);
}

/** Run `body` while an in-process worker of `catalog` polls `taskQueue`; the worker stops after it. */
export async function withWorker<T>(catalog: AgentCatalog, taskQueue: string, body: () => Promise<T>): Promise<T> {
  const connection = await connectWorker();
  try {
    const worker = await createTurnWorker({
      catalog,
      connection,
      taskQueue,
      namespace: temporalNamespace(),
      workflowBundle: await sharedBundle(),
    });
    return await worker.runUntil(body);
  } finally {
    await connection.close();
  }
}

/**
 * Run `body` while an in-process worker does one part of the work on `taskQueue`: the workflows (and the
 * local activities they run, which need the catalog) only, or the activities of the catalog only. A test
 * splits the parts to say which worker gets an activity.
 */
export async function withPartWorker<T>(
  part: { workflows: AgentCatalog } | { activities: AgentCatalog },
  taskQueue: string,
  body: () => Promise<T>,
): Promise<T> {
  const connection = await connectWorker();
  try {
    const worker = await Worker.create({
      connection,
      taskQueue,
      namespace: temporalNamespace(),
      ...("workflows" in part
        ? {
            workflowBundle: await sharedBundle(),
            activities: createActivities({ catalog: part.workflows }),
            enableNonLocalActivities: false,
          }
        : { activities: createActivities({ catalog: part.activities }) }),
    });
    return await worker.runUntil(body);
  } finally {
    await connection.close();
  }
}

/** A test worker in a child process (test/fixtures/temporal/worker.ts): its JSON lines, and its end. */
export interface ChildWorker {
  process: ChildProcess;
  /** The JSON lines it printed so far. */
  lines: Record<string, unknown>[];
  /** Resolves when it exited, with its signal or code. */
  exited: Promise<string>;
  /** Wait until it printed a line that `match` accepts. */
  waitFor(match: (line: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>>;
}

const WORKER_SCRIPT = fileURLToPath(new URL("../fixtures/temporal/worker.ts", import.meta.url));

/**
 * Start a test worker in a process of its own, on the task queue and store given, stopping at `gate`.
 * With `activitiesOnly`, it runs no workflows and one activity at a time, so while it is frozen in an
 * activity it holds no poll that the server could hand another task to.
 */
export async function spawnWorker(options: {
  taskQueue: string;
  store: StoreSpec;
  gate: GateSpec | null;
  activitiesOnly?: boolean;
  /** More environment for the worker, such as SOEV_TEST_CLERK. */
  env?: Record<string, string>;
}): Promise<ChildWorker> {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER_SCRIPT], {
    env: {
      ...temporalEnvironment(options.taskQueue),
      SOEV_WORKFLOW_BUNDLE: await sharedBundleFile(),
      SOEV_TEST_STORE: JSON.stringify(options.store),
      SOEV_TEST_GATE: options.gate ? JSON.stringify(options.gate) : "",
      SOEV_TEST_ACTIVITIES_ONLY: options.activitiesOnly ? "1" : "",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  let errors = "";
  let buffer = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    for (const part of parts) if (part.startsWith("{")) lines.push(JSON.parse(part) as Record<string, unknown>);
  });
  child.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<string>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ?? `code ${code}`)),
  );
  const waitFor = async (match: (line: Record<string, unknown>) => boolean, what: string) => {
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`The test worker exited before ${what}. Its stderr:\n${errors}`);
      await sleep(50);
    }
  };
  await waitFor((line) => line.event === "ready", "it was ready");
  return { process: child, lines, exited, waitFor };
}

/** Wait until a file exists (a gate reached). */
export async function waitForFile(path: string): Promise<void> {
  while (!existsSync(path)) await sleep(50);
}

/** A folder for one test's gate files. */
export function gateFolder(): string {
  return mkdtempSync(join(tmpdir(), "soev-gate-"));
}

/** The events of a trace as both runners must record them: everything but the time of the append. */
export function withoutTimes(trace: Trace): { position: number; event: Event }[] {
  return trace.entries.map(({ position, event }) => ({ position, event: { ...event, ts: null } }));
}

/** The histories the replay test replays. */
export const HISTORIES = fileURLToPath(new URL("../fixtures/histories/", import.meta.url));

// The history as protobuf.js writes it as plain JSON (longs, enums and bytes as strings). The SDK's own
// historyToJSON and historyFromJSON fail in this install: @temporalio/common brings protobufjs 8, whose
// protojson does not take the types that @temporalio/proto (protobufjs 7) makes.
const { History } = proto.temporal.api.history.v1;
const AS_JSON = { longs: String, enums: String, bytes: String } as const;

/**
 * Keep a workflow's history as a replay fixture when SOEV_RECORD_HISTORIES=1 (re-record them with
 * `SOEV_RECORD_HISTORIES=1 npx vitest run test/temporal`); otherwise do nothing.
 */
export async function recordHistory(
  client: Client,
  name: string,
  handle: Pick<WorkflowHandle, "workflowId">,
  runId?: string,
): Promise<void> {
  if (process.env.SOEV_RECORD_HISTORIES !== "1") return;
  const history = await client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
  mkdirSync(HISTORIES, { recursive: true });
  writeFileSync(
    join(HISTORIES, `${name}.json`),
    `${JSON.stringify(History.toObject(History.fromObject(history), AS_JSON), null, 1)}\n`,
  );
}

/** A history that recordHistory kept. */
export function loadHistory(path: string): proto.temporal.api.history.v1.History {
  return History.fromObject(JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>);
}

/** The workflow id a recorded turn ran under, its thread's: the workflow refuses any other, so a replay takes it. */
export function turnWorkflowId(history: proto.temporal.api.history.v1.IHistory): string {
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const argument = JSON.parse(Buffer.from(payload!.data!).toString("utf8")) as { threadId: string | null };
  return argument.threadId === null ? "replay" : workflowIdOf(argument.threadId);
}

/** The history as `temporal workflow show --output json` prints it: every string, and every payload's bytes as text. */
export async function historyText(client: Client, workflowId: string, runId?: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) texts.push(Buffer.from(value).toString("utf8"));
    else if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(history.events);
  return texts.join("\n");
}

/** Opens the dev server's client, a SQLite store and the shared bundle for a test file, and closes them after it. */
export function useClientAndStore(receive: (opened: { temporal: TestClient; store: TestStore }) => void): void {
  let opened: { temporal: TestClient; store: TestStore } | undefined;
  beforeAll(async () => {
    opened = { temporal: await connectClient(), store: await openStore("sqlite") };
    await sharedBundle();
    receive(opened);
  });
  afterAll(async () => {
    await opened?.store.close();
    await opened?.temporal.close();
  });
}
