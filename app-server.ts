/**
 * `npm run app:server`: the HTTP app alone, for a deployment whose workers run in processes of their own
 * (the compose stack's `app` service, as many replicas as you like). The workers publish the model's
 * fragments through PostgreSQL (LISTEN/NOTIFY), so a client's stream may land on any replica: DATABASE_URL
 * is required. `npm run app` keeps everything in one process for trying it.
 *
 * Env: DATABASE_URL (and SOEV_DATABASE_SCHEMA), SOEV_CATALOG (a module exporting, as default or `catalog`,
 * a function of the trace store that returns the AgentCatalog the workers serve; default the example
 * catalog), SOEV_DEFAULT_MODEL (the model of a turn that names none), PORT, HOST, SOEV_API_KEYS and
 * SOEV_APP_HOSTS (as `npm run app`), SOEV_TURN_SETTINGS (JSON TurnSettings of the turns it starts, such as
 * {"heartbeatSeconds": 5}), TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, TEMPORAL_UI,
 * SOEV_TOKEN_SECRET (the secret browser tokens are signed with, at least 32 bytes such as `openssl rand -hex 32`:
 * every replica needs the same one, or a token one replica made is refused by the others; without it each
 * replica makes its own, and a token opens streams on its replica only).
 */
import { Client, Connection } from "@temporalio/client";
import { PostgresLiveChannel } from "./src/adapters/live/postgres.js";
import { storeFromEnvironment } from "./src/adapters/stores/from-environment.js";
import { createApp } from "./src/app/app.js";
import { runSettings } from "./src/app/run-settings.js";
import { serveApp } from "./src/app/serve.js";
import { ValueError } from "./src/domain/errors.js";
import type { TraceStore } from "./src/ports/store.js";
import type { AgentCatalog } from "./src/runtime/catalog.js";
import { catalogFrom } from "./src/runtime/catalog-module.js";
import type { TurnSettings } from "./src/temporal/contract.js";
import { temporalSettings } from "./src/temporal/settings.js";

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl)
    throw new ValueError(
      "npm run app:server needs DATABASE_URL: the workers stream fragments to it through PostgreSQL. Use npm run app for one process.",
    );
  const { port, hostname, keys, hosts } = runSettings(process.env);
  const settings = temporalSettings();
  const store = await storeFromEnvironment();
  const { catalog, defaultModel } = await catalogOfEnvironment(store);
  const live = new PostgresLiveChannel({ connectionString: databaseUrl });
  const connection = await Connection.connect(settings.connection);
  const app = createApp({
    client: new Client({ connection, namespace: settings.namespace }),
    catalog,
    live,
    principalOf: (key) => keys.get(key) ?? null,
    taskQueue: settings.taskQueue,
    defaultModel,
    ...(process.env.SOEV_TURN_SETTINGS ? { settings: turnSettings(process.env.SOEV_TURN_SETTINGS) } : {}),
    ...(process.env.TEMPORAL_UI ? { temporalUi: process.env.TEMPORAL_UI } : {}),
    hosts,
    ...(process.env.SOEV_TOKEN_SECRET ? { tokenSecret: process.env.SOEV_TOKEN_SECRET } : {}),
  });
  const served = await serveApp(app, { port, hostname });
  console.log(JSON.stringify({ event: "listening", url: served.url }));
  await served.closed;
  await live.close();
  await connection.close();
  await store.close();
}

/** The catalog SOEV_CATALOG names, else the example catalog on the model the examples choose. */
async function catalogOfEnvironment(
  store: TraceStore,
): Promise<{ catalog: AgentCatalog; defaultModel: string | null }> {
  const named = process.env.SOEV_DEFAULT_MODEL || null;
  if (process.env.SOEV_CATALOG)
    return { catalog: await catalogFrom(process.env.SOEV_CATALOG, store), defaultModel: named };
  const [{ exampleCatalog }, { chooseModel }] = await Promise.all([
    import("./examples/catalog.js"),
    import("./examples/tutorials/model.js"),
  ]);
  const model = chooseModel();
  return { catalog: exampleCatalog(store, model), defaultModel: named ?? model.resolve(null) };
}

function turnSettings(json: string): TurnSettings {
  try {
    return JSON.parse(json) as TurnSettings;
  } catch (error) {
    throw new ValueError(
      `SOEV_TURN_SETTINGS is not JSON (${(error as Error).message}): give an object such as {"heartbeatSeconds": 5}.`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ValueError ? error.message : error);
  process.exit(1);
});
