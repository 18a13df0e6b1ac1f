/**
 * The demo: the town assistant of tutorial 2 on Temporal. It starts a local Temporal dev server (unless
 * TEMPORAL_ADDRESS is set) and a worker, runs two turns of one thread, and prints each answer with its
 * citations resolved to passages and the Temporal UI link of its turn. Run: npm run demo
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { Client, Connection } from "@temporalio/client";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { SqliteTraceStore } from "../../src/adapters/index.js";
import { registerSearchAttributes, startTurn, type TurnResult } from "../../src/temporal/index.js";
import { createTurnWorker } from "../../worker.js";
import type { ChatModel } from "../../src/ports/index.js";
import { exampleCatalog } from "../catalog.js";
import { LIBRARY } from "../tutorials/01-first-agent/library.js";
import { QUESTIONS } from "../tutorials/02-citations/agent.js";
import { chooseModel } from "../tutorials/model.js";
import { startDevServer, TemporalCliMissingError, type DevServer } from "./dev-server.js";

const step = (text: string) => console.log(`• ${text}`);

/** The answer of a turn with each citation resolved to the passage it names. */
export function answerLines(result: TurnResult): string[] {
  const lines = [`Answer: ${result.answer}${result.truncated ? " …" : ""}`];
  for (const citation of result.citations) {
    for (const source of citation.sources)
      lines.push(`  ${citation.marker.trim()} ${source === null ? "names no passage" : LIBRARY.section(source).text}`);
  }
  return lines;
}

/** The settings of the demo; each defaults to the environment. */
export interface DemoOptions {
  /** A Temporal server to use (TEMPORAL_ADDRESS); none starts a local dev server. */
  address?: string;
  /** The Temporal UI of that server (TEMPORAL_UI_URL, default http://localhost:8233). */
  uiUrl?: string;
  /** The model (default: OpenAI when configured, else the offline demo model). */
  model?: ChatModel;
  /** Where the dev server and the trace store keep their files (SOEV_DATA_DIR, default ./.data). */
  dataDir?: string;
  /** Whether to keep the dev server, its UI and the worker up after the turns, until Ctrl-C or SIGTERM. */
  keepOpen?: boolean;
  signal?: AbortSignal;
}

/** Run the demo; returns the results of its two turns. Everything it started is stopped before it returns. */
export async function demo(options: DemoOptions = {}): Promise<TurnResult[]> {
  const dataDir = resolve(options.dataDir ?? process.env.SOEV_DATA_DIR ?? ".data");
  mkdirSync(dataDir, { recursive: true });
  const model = options.model ?? chooseModel();
  let server: DevServer | null = null;
  const given = options.address ?? process.env.TEMPORAL_ADDRESS;
  if (!given) {
    step(`Starting a local Temporal dev server (its data in ${join(dataDir, "temporal.db")}) ...`);
    server = await startDevServer(join(dataDir, "temporal.db"));
    step(`Temporal dev server running${server.pid === null ? "" : ` (pid ${server.pid})`}`);
  }
  const address = server?.address ?? given!;
  const uiUrl = server?.uiUrl ?? options.uiUrl ?? process.env.TEMPORAL_UI_URL ?? "http://localhost:8233";
  const namespace = process.env.TEMPORAL_NAMESPACE ?? "default";
  const taskQueue = process.env.TEMPORAL_TASK_QUEUE ?? "soev-agents-demo";
  const store = new SqliteTraceStore(join(dataDir, "demo-traces.sqlite"));
  const connection = await Connection.connect({ address });
  const workerConnection = await NativeConnection.connect({ address });
  try {
    step(`Temporal at ${address}, namespace "${namespace}"; its UI at ${uiUrl}`);
    await registerSearchAttributes(connection, namespace);
    step("Starting a worker (bundling the workflow code takes a few seconds) ...");
    const worker = await createTurnWorker({
      catalog: exampleCatalog(store, model),
      connection: workerConnection,
      namespace,
      taskQueue,
    });
    const results = await worker.runUntil(async () => {
      const client = new Client({ connection, namespace });
      const modelName = model.resolve(null);
      let threadId: string | null = null;
      const done: TurnResult[] = [];
      for (const question of QUESTIONS) {
        options.signal?.throwIfAborted();
        console.log(`\nQuestion: ${question}`);
        const turn = await startTurn(client, {
          agent: "assistant",
          threadId,
          input: { payload: question, model: modelName },
          taskQueue,
        });
        threadId = turn.threadId;
        const result = await untilAborted(turn.result(), options.signal);
        for (const line of answerLines(result)) console.log(line);
        console.log(
          `  Temporal UI: ${uiUrl}/namespaces/${namespace}/workflows/${turn.workflowId}/${turn.runId}/history`,
        );
        done.push(result);
      }
      console.log("\nDone. The trace of the thread is in", join(dataDir, "demo-traces.sqlite"));
      // The worker keeps running while the UI is held, so the UI shows each turn's current details.
      if (server && options.keepOpen) {
        console.log(`The Temporal UI stays up at ${uiUrl} to look at the turns. Press Ctrl-C to stop.`);
        await untilAborted(new Promise<never>(() => {}), options.signal).catch(() => {});
      }
      return done;
    });
    return results;
  } finally {
    await workerConnection.close();
    await connection.close();
    await store.close();
    if (server) {
      step("Stopping the Temporal dev server ...");
      await server.stop();
    }
  }
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new Error("Stopped."));
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  // The worker's state changes are noise in a demo: show warnings and errors only. The worker's runtime
  // must not stop it on a signal by itself: the demo stops the worker, the connections and the dev server.
  Runtime.install({ logger: new DefaultLogger("WARN"), shutdownSignals: [] });
  const stop = new AbortController();
  for (const name of ["SIGINT", "SIGTERM"] as const) {
    process.once(name, () => {
      console.log(`\nStopping (${name}) ...`);
      stop.abort();
    });
  }
  // From a terminal the UI stays up until Ctrl-C; piped or with --exit, the demo ends after its turns;
  // --keep-open holds it up when piped.
  const keepOpen = (process.stdout.isTTY || process.argv.includes("--keep-open")) && !process.argv.includes("--exit");
  demo({ signal: stop.signal, keepOpen }).catch((error: unknown) => {
    if (error instanceof TemporalCliMissingError) console.error(error.message);
    else console.error(stop.signal.aborted ? "Stopped." : error);
    process.exitCode = 1;
  });
}
