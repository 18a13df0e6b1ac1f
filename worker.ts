/**
 * The soev-agents worker: runs the turn workflow and its activities for a catalog on a task queue.
 * An app calls `runWorker({ catalog })` with its own catalog; `npm run worker` (this file run directly)
 * serves the example catalog, the town assistant (tutorial 2's, with a booking that waits for a person).
 * Where Temporal is comes from @temporalio/envconfig: a profile of the Temporal config file
 * (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE) overridden by TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY and TEMPORAL_TLS_*; the task queue from TEMPORAL_TASK_QUEUE; the store from DATABASE_URL
 * (PostgreSQL, which also carries the model's fragments to the apps) or a SQLite file under SOEV_DATA_DIR;
 * SOEV_CATALOG names a module exporting a function of the store that returns the catalog to serve instead.
 *
 * @module soev-agents/worker
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createActivities, type ActivitiesOptions } from "./activities/index.js";
import { storeFromEnvironment } from "./src/adapters/stores/from-environment.js";
import { PostgresLiveChannel } from "./src/adapters/live/postgres.js";
import { catalogFrom } from "./src/runtime/catalog-module.js";
import { temporalSettings, type TemporalSettings, type TemporalSettingsOptions } from "./src/temporal/settings.js";
import { runWorker } from "./src/worker/turn-worker.js";

export { createActivities, storeFromEnvironment, temporalSettings };
export type { ActivitiesOptions, TemporalSettings, TemporalSettingsOptions };
export {
  bundleTurnWorkflows,
  idsOnlyInterceptorPath,
  workflowsPath,
  type TurnBundleOptions,
} from "./src/worker/bundle.js";
export {
  createTurnWorker,
  runWorker,
  type RunWorkerOptions,
  type TurnDeployment,
  type TurnWorkerOptions,
} from "./src/worker/turn-worker.js";

async function main(): Promise<void> {
  const store = await storeFromEnvironment();
  const settings = temporalSettings();
  // SOEV_DEPLOYMENT_NAME turns on Worker Deployment versioning; the build id is the catalog's version.
  const deploymentName = process.env.SOEV_DEPLOYMENT_NAME;
  // On PostgreSQL the model's fragments go to the apps (npm run app:server) through LISTEN/NOTIFY.
  const live = process.env.DATABASE_URL
    ? new PostgresLiveChannel({ connectionString: process.env.DATABASE_URL })
    : null;
  try {
    const catalog = process.env.SOEV_CATALOG
      ? await catalogFrom(process.env.SOEV_CATALOG, store)
      : (await import("./examples/catalog.js")).exampleCatalog(store);
    console.log(
      `soev-agents worker: task queue "${settings.taskQueue}" at ${settings.connection.address}, namespace "${settings.namespace}".`,
    );
    await runWorker({
      catalog,
      ...(live ? { live } : {}),
      ...(deploymentName ? { deployment: { name: deploymentName } } : {}),
    });
  } finally {
    await live?.close();
    await store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
