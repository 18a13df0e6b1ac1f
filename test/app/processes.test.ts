// The app and its worker in separate processes on PostgreSQL: fragments cross through LISTEN/NOTIFY.
// A worker SIGKILLed mid-stream: the retried attempt's fragments are marked, and one ModelOutput is recorded.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresLiveChannel } from "../../src/adapters/live/postgres.js";
import { createApp, type SoevApp } from "../../src/app/app.js";
import { serveApp, type ServedApp } from "../../src/app/serve.js";
import { ANSWER, appCatalog, StreamingModel } from "../fixtures/app/streaming.js";
import { gateFolder, openStore, sharedBundleFile, type TestStore } from "../temporal/harness.js";
import { connectClient, temporalEnvironment, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { checkFragments, readEvents } from "./sse.js";

const WORKER = fileURLToPath(new URL("../fixtures/app/worker.ts", import.meta.url));
const ALICE = { authorization: "Bearer alice-key" };

let temporal: TestClient;
let store: TestStore;
let live: PostgresLiveChannel;
let app: SoevApp;
let served: ServedApp;
const taskQueue = uniqueTaskQueue("app-processes");
const children: ChildProcess[] = [];

/** A worker process on the test's store and task queue; resolves once it polls. */
async function spawnWorker(hang: { after: number; file: string } | null): Promise<ChildProcess> {
  const spec = store.spec as { postgres: string; schema: string };
  const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
    env: {
      ...temporalEnvironment(taskQueue),
      SOEV_WORKFLOW_BUNDLE: await sharedBundleFile(),
      DATABASE_URL: spec.postgres,
      SOEV_TEST_SCHEMA: spec.schema,
      SOEV_TEST_HANG: hang ? JSON.stringify(hang) : "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes('"ready"')) resolve();
    });
    child.on("exit", (code) =>
      reject(new Error(`The app test worker exited (${code}) before it was ready:\n${errors}`)),
    );
  });
  return child;
}

beforeAll(async () => {
  temporal = await connectClient();
  store = await openStore("postgres");
  const spec = store.spec as { postgres: string };
  live = new PostgresLiveChannel({ connectionString: spec.postgres });
  app = createApp({
    client: temporal.client,
    catalog: appCatalog(store.store, new StreamingModel()),
    live,
    principalOf: (key) => (key === "alice-key" ? "alice" : null),
    taskQueue,
    defaultModel: "function",
    settings: { heartbeatSeconds: 2 },
  });
  served = await serveApp(app, { port: 0, signals: false });
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await served?.close();
  await live?.close();
  await store?.close();
  await temporal?.close();
});

it("streams a worker's fragments to the app through PostgreSQL, before the output, and its text is the output", async () => {
  const worker = await spawnWorker(null);
  try {
    const response = await fetch(`${served.url}/threads`, {
      method: "POST",
      headers: { ...ALICE, "content-type": "application/json" },
      body: JSON.stringify({ agent: "assistant", input: "How often is bulky waste picked up?" }),
    });
    expect(response.status).toBe(202);
    const { events } = (await response.json()) as { events: string };
    const messages = await readEvents(events, ALICE);
    const { texts, attempts } = checkFragments(messages);
    expect(texts.at(-1)).toBe(ANSWER);
    expect(attempts.at(-1)).toEqual([1]);
    expect(messages.filter((message) => message.event === "fragment").length).toBeGreaterThanOrEqual(5);
    expect(messages.at(-1)!.data.status).toBe("completed");
  } finally {
    worker.kill("SIGTERM");
  }
});

it("marks a retried attempt's fragments after the worker is SIGKILLed mid-stream, and records one ModelOutput", async () => {
  const hangFile = join(gateFolder(), "hung");
  const first = await spawnWorker({ after: 2, file: hangFile });
  const response = await fetch(`${served.url}/threads`, {
    method: "POST",
    headers: { ...ALICE, "content-type": "application/json" },
    body: JSON.stringify({ agent: "assistant", input: "How often is bulky waste picked up?" }),
  });
  const { events, threadId } = (await response.json()) as { events: string; threadId: string };
  const following = readEvents(events, ALICE);
  while (!existsSync(hangFile)) await sleep(50);
  first.kill("SIGKILL");
  const second = await spawnWorker(null);
  try {
    const messages = await following;
    const fragments = messages.filter((message) => message.event === "fragment" && message.data.kind === "text");
    const attemptsSeen = [...new Set(fragments.map((fragment) => fragment.data.attempt))];
    expect(attemptsSeen).toEqual([1, 2]);
    // The lost attempt's text is the start of the answer, marked attempt 1; attempt 2 writes it all.
    const lost = fragments.filter((fragment) => fragment.data.attempt === 1).map((fragment) => fragment.data.text);
    expect(ANSWER.startsWith(lost.join(""))).toBe(true);
    const { texts, attempts } = checkFragments(messages);
    expect(texts.at(-1)).toBe(ANSWER);
    expect(attempts.at(-1)).toEqual([1, 2]);
    const outputs = messages.filter((message) => message.event === "event" && message.data.type === "model_output");
    expect(outputs.map((output) => output.data.seq)).toEqual([1, 3]);
    expect(messages.at(-1)!.data.status).toBe("completed");
    let recorded = 0;
    for await (const entry of store.store.read(threadId)) if (entry.event.type === "model_output") recorded++;
    expect(recorded).toBe(2);
  } finally {
    second.kill("SIGTERM");
  }
});
