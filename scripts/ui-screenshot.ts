/**
 * Screenshot of one turn in the Temporal UI: starts a dev server with its UI, runs one turn of the
 * example catalog (the tutorial-2 town assistant on the offline demo model), and saves a headless
 * Chromium screenshot of the turn's workflow page: its User Metadata tab, with the turn's summary and
 * details and the summary of each activity (SOEV_UI_TAB=history shows the event timeline instead).
 *
 *   npx tsx scripts/ui-screenshot.ts [out.png]      (default: .data/ui-turn.png)
 *
 * Needs the Temporal CLI ($TEMPORAL_CLI_PATH, else what scripts/provision-temporal.sh finds) and
 * Chromium ($CHROMIUM, default `chromium`; on Debian: apt-get install chromium).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { Client, Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { exampleCatalog } from "../examples/catalog.js";
import { QUESTIONS } from "../examples/tutorials/02-citations/agent.js";
import { DEMO_MODEL, DemoModel } from "../src/adapters/demo-model.js";
import { InMemoryTraceStore } from "../src/adapters/stores/memory.js";
import { startTurn } from "../src/temporal/start-turn.js";
import { SOEV_SEARCH_ATTRIBUTES } from "../src/temporal/search-attributes.js";
import { createTurnWorker } from "../worker.js";

Runtime.install({ logger: new DefaultLogger("WARN") });
const output = resolve(process.argv[2] ?? ".data/ui-turn.png");
const taskQueue = "ui-screenshot";

/** A TCP port that is free now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

function temporalCli(): string {
  if (process.env.TEMPORAL_CLI_PATH) return process.env.TEMPORAL_CLI_PATH;
  const script = fileURLToPath(new URL("./provision-temporal.sh", import.meta.url));
  return execFileSync("bash", [script], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}

/** Wait until `check` passes, or fail naming `what` after `seconds`. */
async function waitUntil(what: string, seconds: number, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${what} did not come up within ${seconds} s.`);
    await sleep(250);
  }
}

const [port, uiPort] = [await freePort(), await freePort()];
const address = `127.0.0.1:${port}`;
const attributes = SOEV_SEARCH_ATTRIBUTES.flatMap((key) => ["--search-attribute", `${key.name}=Keyword`]);
const server = spawn(
  temporalCli(),
  [
    "server",
    "start-dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--ui-port",
    String(uiPort),
    "--log-level",
    "error",
    ...attributes,
  ],
  {
    stdio: ["ignore", "ignore", "inherit"],
  },
);
const store = new InMemoryTraceStore();
try {
  await waitUntil(`The Temporal dev server at ${address}`, 60, async () => {
    const probe = await Connection.connect({ address, connectTimeout: 1000 });
    await probe.close();
    return true;
  });
  await waitUntil(`The Temporal UI on port ${uiPort}`, 60, async () => (await fetch(`http://127.0.0.1:${uiPort}/`)).ok);

  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const workerConnection = await NativeConnection.connect({ address });
  const worker = await createTurnWorker({
    catalog: exampleCatalog(store, new DemoModel()),
    connection: workerConnection,
    taskQueue,
    namespace: "default",
  });
  const turn = await worker.runUntil(async () => {
    const started = await startTurn(client, {
      agent: "assistant",
      input: { payload: QUESTIONS[0]!, model: DEMO_MODEL },
      taskQueue,
    });
    console.log(`Turn ${started.workflowId}: ${(await started.result()).answer}`);
    return started;
  });
  await workerConnection.close();
  await connection.close();

  const page = `http://127.0.0.1:${uiPort}/namespaces/default/workflows/${encodeURIComponent(turn.workflowId)}/${turn.runId}/${process.env.SOEV_UI_TAB ?? "user-metadata"}`;
  const profile = mkdtempSync(join(tmpdir(), "soev-chromium-"));
  mkdirSync(dirname(output), { recursive: true });
  const shoot = () =>
    execFileSync(
      process.env.CHROMIUM ?? "chromium",
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        `--user-data-dir=${profile}`,
        "--window-size=1440,1100",
        "--virtual-time-budget=20000",
        "--hide-scrollbars",
        `--screenshot=${output}`,
        page,
      ],
      { stdio: ["ignore", "ignore", "pipe"], timeout: 90_000 },
    );
  try {
    // Headless Chromium now and then hangs after its virtual time runs out: one more try gets the page.
    try {
      shoot();
    } catch {
      console.log("Chromium did not finish; trying once more.");
      shoot();
    }
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  console.log(`Saved ${output} (${statSync(output).size} bytes) of ${page}`);
} finally {
  await store.close();
  server.kill("SIGTERM");
}
