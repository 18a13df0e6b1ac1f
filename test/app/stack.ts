/**
 * The app with its worker in one process, as the app's tests run it: the run's Temporal dev server, a
 * SQLite store, an in-process live channel, and the app catalog on a scripted streaming model.
 */
import type { NativeConnection, Worker } from "@temporalio/worker";
import { InProcessLiveChannel } from "../../src/adapters/live/in-process.js";
import { createApp, type SoevApp } from "../../src/app/app.js";
import { serveApp, type ServedApp } from "../../src/app/serve.js";
import type { Agent } from "../../src/runtime/agent.js";
import type { ResourcesOf } from "../../src/runtime/catalog.js";
import type { AppOptions } from "../../src/app/options.js";
import type { TraceStore } from "../../src/ports/store.js";
import type { AgentCatalog } from "../../src/runtime/catalog.js";
import { createTurnWorker, type TurnWorkerOptions } from "../../worker.js";
import { appCatalog, type StreamingModel } from "../fixtures/app/streaming.js";
import { openStore, sharedBundle, type TestStore } from "../temporal/harness.js";
import {
  connectClient,
  connectWorker,
  temporalNamespace,
  uniqueTaskQueue,
  type TestClient,
} from "../support/temporal.js";

/** The principals of the tests' API keys. */
export const KEYS: Record<string, string> = { "alice-key": "alice", "bob-key": "bob" };

/** A running app and worker. */
export interface AppStack {
  app: SoevApp;
  served: ServedApp;
  store: TestStore;
  temporal: TestClient;
  /** Stop the app, the worker and the connections. */
  close(): Promise<void>;
}

/** What startAppStack runs: the app catalog on `model` (with `more` agents), or a catalog of the test's own. */
export interface AppStackOptions {
  model?: StreamingModel;
  resources?: ResourcesOf;
  more?: Record<string, Agent>;
  /** The catalog to serve instead of the app catalog, on the stack's store. */
  catalog?: (store: TraceStore) => AgentCatalog;
  /** Options of the app over the tests' defaults, such as a client with plugins or the default model. */
  app?: Partial<AppOptions>;
  /** Options of the worker over the tests', such as plugins and the bundle made with them. */
  worker?: Pick<TurnWorkerOptions, "plugins" | "workflowBundle">;
}

/** Start the catalog under a worker, and serve the app on a free port. */
export async function startAppStack(options: AppStackOptions): Promise<AppStack> {
  const temporal = await connectClient();
  const store = await openStore("sqlite");
  const catalog = options.catalog
    ? options.catalog(store.store)
    : appCatalog(store.store, options.model!, options.resources, options.more);
  const live = new InProcessLiveChannel();
  const taskQueue = uniqueTaskQueue("app");
  const connection: NativeConnection = await connectWorker();
  const worker: Worker = await createTurnWorker({
    catalog,
    live,
    connection,
    taskQueue,
    namespace: temporalNamespace(),
    workflowBundle: await sharedBundle(),
    ...options.worker,
  });
  const running = worker.run();
  const app = createApp({
    client: temporal.client,
    catalog,
    live,
    principalOf: (key) => KEYS[key] ?? null,
    taskQueue,
    defaultModel: "function",
    settings: { heartbeatSeconds: 5 },
    limits: { bodyBytes: 2048, keepAliveSeconds: 1 },
    ...options.app,
  });
  const served = await serveApp(app, { port: 0, signals: false });
  return {
    app,
    served,
    store,
    temporal,
    close: async () => {
      await served.close();
      worker.shutdown();
      await running;
      await connection.close();
      await store.close();
      await temporal.close();
    },
  };
}
