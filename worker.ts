/**
 * The soev-agents worker: runs the turn workflow and its activities for a catalog on a task queue.
 * An app calls `runWorker({ catalog })` with its own catalog; `npm run worker` (this file run directly)
 * serves the example catalog, the town assistant of tutorial 2, configured from the environment:
 * TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, and DATABASE_URL (PostgreSQL) or a SQLite
 * file under SOEV_DATA_DIR (default ./.data).
 *
 * @module soev-agents/worker
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Connection } from "@temporalio/client";
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleOption } from "@temporalio/worker";
import pg from "pg";
import { createActivities } from "./activities/index.js";
import { PostgresTraceStore } from "./src/adapters/stores/postgres.js";
import { migratePostgres } from "./src/adapters/stores/postgres-schema.js";
import { SqliteTraceStore } from "./src/adapters/stores/sqlite.js";
import type { Observer } from "./src/ports/observer.js";
import type { TraceStore } from "./src/ports/store.js";
import type { Authorize } from "./src/temporal/authorize.js";
import type { AgentCatalog } from "./src/runtime/catalog.js";
import { DEFAULT_TASK_QUEUE } from "./src/temporal/contract.js";
import { SearchAttributeRegistrationError } from "./src/temporal/errors.js";
import { registerSearchAttributes } from "./src/temporal/search-attributes.js";

/** Where the worker finds Temporal, from the environment, with its defaults. */
export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE ("default"), TEMPORAL_TASK_QUEUE ("soev-agents"). */
export function temporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  return {
    address: env.TEMPORAL_ADDRESS || "localhost:7233",
    namespace: env.TEMPORAL_NAMESPACE || "default",
    taskQueue: env.TEMPORAL_TASK_QUEUE || DEFAULT_TASK_QUEUE,
  };
}

/** The file of the workflows a worker runs: the TypeScript source, or the built JavaScript next to it. */
export function workflowsPath(): string {
  const source = fileURLToPath(new URL("./workflows/index.ts", import.meta.url));
  return existsSync(source) ? source : fileURLToPath(new URL("./workflows/index.js", import.meta.url));
}

/** Bundle the workflow code once, to share between workers (bundling takes seconds). */
export async function bundleTurnWorkflows(): Promise<{ code: string }> {
  return bundleWorkflowCode({ workflowsPath: workflowsPath() });
}

/** What a turn worker runs: the catalog, and where it polls. Every field but `catalog` is optional. */
export interface TurnWorkerOptions {
  /** The agents, their store and the code version. */
  catalog: AgentCatalog;
  /** Watches the calls and events; default the catalog's observer. */
  observer?: Observer;
  /** Decides whether a turn may open, before its thread is read or written; default every turn may. */
  authorize?: Authorize;
  /** Default TEMPORAL_TASK_QUEUE, else "soev-agents". */
  taskQueue?: string;
  /** Default TEMPORAL_NAMESPACE, else "default". */
  namespace?: string;
  /** A connection to use; default one to TEMPORAL_ADDRESS, else localhost:7233, which the worker closes. */
  connection?: NativeConnection;
  /** A workflow bundle made before (bundleTurnWorkflows); default: bundle the workflows at start. */
  workflowBundle?: WorkflowBundleOption;
}

/** Create a worker for the turn workflow and its activities on `connection`. */
export async function createTurnWorker(options: TurnWorkerOptions & { connection: NativeConnection }): Promise<Worker> {
  const settings = temporalSettings();
  const code = options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: workflowsPath() };
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? settings.namespace,
    taskQueue: options.taskQueue ?? settings.taskQueue,
    activities: createActivities({
      catalog: options.catalog,
      observer: options.observer,
      authorize: options.authorize,
    }),
    ...code,
  });
}

/**
 * Run a worker for the catalog until the process gets SIGINT or SIGTERM, or `signal` aborts. It first
 * registers the turn's search attributes (a server that refuses, such as a cloud namespace, gets them
 * registered by its operator: the worker warns and runs). Its own connection is closed when it stops.
 *
 * @example
 * ```ts
 * import { AgentCatalog } from "soev-agents/runtime";
 * import type { ReActAgent } from "soev-agents/toolkit";
 * import { runWorker, storeFromEnvironment } from "soev-agents/worker";
 *
 * declare const assistant: ReActAgent;
 * const catalog = new AgentCatalog(await storeFromEnvironment(), { assistant }, { version: "2026-01" });
 * await runWorker({ catalog, taskQueue: "soev-agents" }); // until SIGINT or SIGTERM
 * ```
 */
export async function runWorker(options: TurnWorkerOptions & { signal?: AbortSignal }): Promise<void> {
  const settings = temporalSettings();
  await registerOrWarn(settings.address, options.namespace ?? settings.namespace);
  const owned = options.connection ? null : await NativeConnection.connect({ address: settings.address });
  const connection = options.connection ?? owned!;
  try {
    const worker = await createTurnWorker({ ...options, connection });
    const stop = () => worker.shutdown();
    options.signal?.addEventListener("abort", stop, { once: true });
    try {
      await worker.run();
    } finally {
      options.signal?.removeEventListener("abort", stop);
    }
  } finally {
    await owned?.close();
  }
}

async function registerOrWarn(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await registerSearchAttributes(connection, namespace);
  } catch (error) {
    if (!SearchAttributeRegistrationError.isInstance(error)) throw error;
    console.warn(
      `soev-agents worker: ${error.message} Register SoevThreadId and SoevAgent (Keyword) in the namespace, or turns will not start.`,
    );
  } finally {
    await connection.close();
  }
}

/** The trace store the environment names: PostgreSQL at DATABASE_URL, else a SQLite file under SOEV_DATA_DIR (./.data). */
export async function storeFromEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<TraceStore> {
  if (env.DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL });
    await migratePostgres(pool);
    await pool.end();
    return new PostgresTraceStore({ connectionString: env.DATABASE_URL });
  }
  const folder = resolve(env.SOEV_DATA_DIR || ".data");
  // The trace holds the conversations: a folder only the worker's user can open.
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return new SqliteTraceStore(join(folder, "soev-agents.sqlite"));
}

async function main(): Promise<void> {
  const { exampleCatalog } = await import("./examples/catalog.js");
  const store = await storeFromEnvironment();
  const settings = temporalSettings();
  try {
    console.log(
      `soev-agents worker: task queue "${settings.taskQueue}" at ${settings.address}, namespace "${settings.namespace}".`,
    );
    await runWorker({ catalog: exampleCatalog(store) });
  } finally {
    await store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
