/**
 * `npm run app`: the HTTP app with everything it needs in one process. A Temporal dev server (with its
 * UI) unless TEMPORAL_ADDRESS names one, a worker of the example catalog (the town assistant, with a
 * booking that waits for a person; on the offline demo model, or OpenAI when OPENAI_API_KEY is set), and
 * the app, streaming through the in-process live channel. It prints the URL and a curl example; Ctrl-C
 * stops it all.
 *
 * Env: PORT (default 3000), HOST (the address it listens on, default 127.0.0.1), SOEV_API_KEYS
 * ("key=principal,..."; default "dev-key=dev", refused unless HOST is loopback), SOEV_APP_HOSTS (host
 * names it answers to besides localhost, 127.0.0.1 and [::1], such as "app.example.com"), TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, TEMPORAL_UI, DATABASE_URL or SOEV_DATA_DIR (as the worker),
 * TEMPORAL_CLI_PATH (the dev server's binary; else examples/temporal-cli.ts finds one or the SDK downloads it),
 * SOEV_TOKEN_SECRET (the secret browser tokens are signed with; default a random one of the process).
 */
import { Client, Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { exampleCatalog } from "./examples/catalog.js";
import { startWithTemporalCli, TemporalCliMissingError } from "./examples/temporal-cli.js";
import { chooseModel } from "./examples/tutorials/model.js";
import { InProcessLiveChannel } from "./src/adapters/live/in-process.js";
import { createApp } from "./src/app/app.js";
import { serveApp } from "./src/app/serve.js";
import { runSettings } from "./src/app/run-settings.js";
import { SOEV_SEARCH_ATTRIBUTES } from "./src/temporal/search-attributes.js";
import { createTurnWorker, storeFromEnvironment, temporalSettings } from "./worker.js";

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger("WARN") });
  const settings = temporalSettings();
  const { port, hostname, keys, hosts } = runSettings(process.env);
  let environment: TestWorkflowEnvironment | null = null;
  let address = settings.connection.address;
  let temporalUi = process.env.TEMPORAL_UI || "http://localhost:8233";
  if (!process.env.TEMPORAL_ADDRESS) {
    console.log("Starting a Temporal dev server (set TEMPORAL_ADDRESS to use your own)...");
    environment = await startWithTemporalCli({
      start: (executable) =>
        TestWorkflowEnvironment.createLocal({
          server: {
            executable,
            namespace: settings.namespace,
            searchAttributes: [...SOEV_SEARCH_ATTRIBUTES],
            ui: true,
            log: { format: "pretty", level: "warn" },
          },
        }),
    });
    address = environment.address;
    const [host, serverPort] = address.split(":");
    temporalUi = process.env.TEMPORAL_UI || `http://${host}:${Number(serverPort) + 1000}`;
  }
  const store = await storeFromEnvironment();
  const model = chooseModel();
  const catalog = exampleCatalog(store, model);
  const live = new InProcessLiveChannel();
  const workerConnection = await NativeConnection.connect({ address });
  const worker = await createTurnWorker({
    catalog,
    live,
    connection: workerConnection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: settings.namespace });
  const app = createApp({
    client,
    catalog,
    live,
    principalOf: (key) => keys.get(key) ?? null,
    taskQueue: settings.taskQueue,
    defaultModel: model.resolve(null),
    temporalUi,
    hosts,
    ...(process.env.SOEV_TOKEN_SECRET ? { tokenSecret: process.env.SOEV_TOKEN_SECRET } : {}),
  });
  const served = await serveApp(app, { port, hostname });
  const [key] = keys.keys();
  console.log(`soev-agents app: ${served.url} (API docs: ${served.url}/docs; Temporal UI: ${temporalUi})`);
  console.log(`Try it:
  curl -s -X POST ${served.url}/threads -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' \\
    -d '{"agent":"assistant","input":"How often can I have bulky waste picked up?"}'
  curl -N ${served.url}/threads/<threadId>/events -H 'Authorization: Bearer ${key}'
Or open ${served.url}/ (key ${key}) and ask "Please book a bulky waste pickup for an old sofa.": the
booking waits for your approval, then asks for a slot.`);
  await served.closed;
  // The worker drains on SIGINT and SIGTERM by itself; shut it down only when the app closed another way.
  if (worker.getState() === "RUNNING") worker.shutdown();
  await running;
  await connection.close();
  await workerConnection.close();
  await store.close();
  await environment?.teardown();
}

main().catch((error: unknown) => {
  console.error(error instanceof TemporalCliMissingError ? error.message : error);
  process.exit(1);
});
