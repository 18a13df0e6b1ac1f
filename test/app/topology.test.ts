// The app as teams deploy it: two app processes (app-server.ts) and two worker processes on one PostgreSQL
// (store and live channel) and one Temporal dev server. 50 turns are started through one app and followed
// through the other while each worker is SIGKILLed once and replaced: every stream's events are the
// thread's trace (no gap, no duplicate), every turn completes, and each trace records its events once.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore, sharedBundleFile, type TestStore } from "../temporal/harness.js";
import { temporalEnvironment, uniqueTaskQueue } from "../support/temporal.js";
import { readEvents, type SseMessage } from "./sse.js";

const APP_SERVER = fileURLToPath(new URL("../../app-server.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("../fixtures/app/worker.ts", import.meta.url));
const CATALOG = fileURLToPath(new URL("../fixtures/app/catalog-module.ts", import.meta.url));
const ALICE = { authorization: "Bearer alice-key" };
const TURNS = 50;

let store: TestStore;
const taskQueue = uniqueTaskQueue("topology");
const children: ChildProcess[] = [];

/** A child process that is ready once it prints a JSON line with `event` `ready` or `listening`. */
async function spawnChild(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; url?: string }> {
  const spec = store.spec as { postgres: string; schema: string };
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: {
      ...temporalEnvironment(taskQueue),
      DATABASE_URL: spec.postgres,
      SOEV_DATABASE_SCHEMA: spec.schema,
      SOEV_TEST_SCHEMA: spec.schema,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split("\n").find((each) => /"event":"(ready|listening)"/.test(each));
      if (line) resolve({ child, url: (JSON.parse(line) as { url?: string }).url });
    });
    child.on("exit", (code) => reject(new Error(`${script} exited (${code}) before it was ready:\n${errors}`)));
  });
}

const spawnApp = async () =>
  (
    await spawnChild(APP_SERVER, {
      PORT: "0",
      SOEV_API_KEYS: "alice-key=alice",
      SOEV_CATALOG: CATALOG,
      SOEV_DEFAULT_MODEL: "function",
      SOEV_TURN_SETTINGS: JSON.stringify({ heartbeatSeconds: 2, controlSeconds: 3 }),
    })
  ).url!;
const spawnWorker = async () =>
  (await spawnChild(WORKER, { SOEV_WORKFLOW_BUNDLE: await sharedBundleFile(), SOEV_TEST_HANG: "" })).child;

beforeAll(async () => {
  store = await openStore("postgres");
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await store?.close();
});

/** Start a turn through `app`; its events URL on `follower`. */
async function startTurn(app: string, follower: string, question: string): Promise<{ threadId: string; url: string }> {
  const response = await fetch(`${app}/threads`, {
    method: "POST",
    headers: { ...ALICE, "content-type": "application/json" },
    body: JSON.stringify({ agent: "assistant", input: question }),
  });
  expect(response.status).toBe(202);
  const { threadId, events } = (await response.json()) as { threadId: string; events: string };
  return { threadId, url: `${follower}${new URL(events, app).pathname}` };
}

it("runs 50 turns started through one app and followed through another, with workers killed, none lost or doubled", async () => {
  const [first, second] = await Promise.all([spawnApp(), spawnApp()]);
  const workers = await Promise.all([spawnWorker(), spawnWorker()]);
  const follows: Promise<{ threadId: string; messages: SseMessage[] }>[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const { threadId, url } = await startTurn(first!, second!, `Question ${turn}: when is bulky waste picked up?`);
    follows.push(readEvents(url, ALICE).then((messages) => ({ threadId, messages })));
    // Each worker dies once mid-run, with turns in flight, and a new one takes its place.
    if (turn === 15 || turn === 30) {
      const index = turn === 15 ? 0 : 1;
      workers[index]!.kill("SIGKILL");
      workers[index] = await spawnWorker();
    }
  }
  const followed = await Promise.all(follows);
  let completed = 0;
  for (const { threadId, messages } of followed) {
    const streamed = messages.filter((message) => message.event === "event").map((message) => message.data);
    const recorded: { seq: number | null; type: string }[] = [];
    for await (const entry of store.store.read(threadId)) recorded.push(entry.event);
    expect(streamed.map((event) => [event.seq, event.type])).toEqual(recorded.map((event) => [event.seq, event.type]));
    expect(recorded.map((event) => event.type)).toEqual(["input", "model_output", "tool_output", "model_output"]);
    if (messages.at(-1)?.data.status === "completed") completed++;
  }
  expect(completed).toBe(TURNS);
}, 300_000);
