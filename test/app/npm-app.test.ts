// `npm run app` (app.ts) answers the README's curl examples: spawned as a process on the run's dev server
// (TEMPORAL_ADDRESS set, so it starts none), with the offline demo model and a SQLite store of its own.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { temporalAddress, temporalNamespace, uniqueTaskQueue } from "../support/temporal.js";
import { readEvents } from "./sse.js";

const APP = fileURLToPath(new URL("../../app.ts", import.meta.url));
const KEY = { authorization: "Bearer dev-key" };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

it("starts a worker and the app, prints the URL and a curl example, and answers the README's examples", async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", APP], {
    env: {
      ...process.env,
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      SOEV_MODEL: "",
      PORT: String(port),
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_NAMESPACE: temporalNamespace(),
      TEMPORAL_TASK_QUEUE: uniqueTaskQueue("npm-app"),
      SOEV_DATA_DIR: mkdtempSync(join(tmpdir(), "soev-app-")),
      DATABASE_URL: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("curl -N")) resolve();
      });
      void exited.then((code) => reject(new Error(`npm run app exited (${code}):\n${output}\n${errors}`)));
    });
    const url = `http://127.0.0.1:${port}`;
    expect(output).toContain(`soev-agents app: ${url}`);
    expect(output).toContain("Authorization: Bearer dev-key");
    const post = (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { ...KEY, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const opened = await post("/threads", { agent: "assistant", input: "How often can I have bulky waste picked up?" });
    expect(opened.status).toBe(202);
    const { threadId, events } = (await opened.json()) as { threadId: string; events: string };
    const messages = await readEvents(events, KEY);
    expect(messages.at(-1)!.data.status).toBe("completed");
    const thread = (await (await fetch(`${url}/threads/${threadId}`, { headers: KEY })).json()) as {
      turns: { answer: { citations: { passages: { text: string }[] }[] } }[];
    };
    expect(thread.turns[0]!.answer.citations[0]!.passages[0]!.text).toMatch(/Bulky waste/);
    const call = (await (await fetch(`${url}/threads/${threadId}/calls/2`, { headers: KEY })).json()) as {
      matches: boolean;
    };
    expect(call.matches).toBe(true);
    const next = await post(`/threads/${threadId}/turns`, { input: "And how much is a parking permit?" });
    expect(next.status).toBe(202);
    const second = await readEvents(`${url}/threads/${threadId}/events?after=4`, KEY);
    expect(second.at(-1)!.data.status).toBe("completed");
    // No turn runs now: nothing waits for an answer, and the README's cancel answers 409.
    expect(await (await fetch(`${url}/threads/${threadId}/requests`, { headers: KEY })).json()).toMatchObject({
      running: false,
      requests: [],
    });
    expect((await post(`/threads/${threadId}/requests/call_1:approval`, { approved: true })).status).toBe(404);
    expect((await fetch(`${url}/threads/${threadId}/cancel`, { method: "POST", headers: KEY })).status).toBe(409);
    const listed = (await (await fetch(`${url}/threads`, { headers: KEY })).json()) as {
      threads: { threadId: string }[];
    };
    expect(listed.threads.map((listedThread) => listedThread.threadId)).toContain(threadId);
    expect(await (await fetch(`${url}/agents`, { headers: KEY })).json()).toEqual({ agents: ["assistant"] });
    child.kill("SIGTERM");
    const code = await exited;
    expect(code, errors).toBe(0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});

/** The process `root` and every process under it, from `ps`: pids with their command lines. */
function processTree(root: number): Map<number, string> {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line)!)
    .map(([, pid, parent, args]) => ({ pid: Number(pid), parent: Number(parent), args: args! }));
  const tree = new Map<number, string>();
  const visit = (pid: number) => {
    for (const row of rows.filter((candidate) => candidate.parent === pid)) {
      tree.set(row.pid, row.args);
      visit(row.pid);
    }
  };
  visit(root);
  return tree;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it("stops everything it started on SIGTERM to `npm run app`: its dev server, worker and app", async () => {
  const port = await freePort();
  // No TEMPORAL_ADDRESS: the app starts a dev server of its own, with the CLI the project provisions.
  const child = spawn("npm", ["run", "app", "--silent"], {
    env: {
      ...process.env,
      PORT: String(port),
      TEMPORAL_ADDRESS: "",
      SOEV_MODEL: "",
      OPENAI_API_KEY: "",
      SOEV_DATA_DIR: mkdtempSync(join(tmpdir(), "soev-app-")),
      DATABASE_URL: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
  });
  let output = "";
  const exited = new Promise<string>((resolve) =>
    child.on("exit", (code, signal) => resolve(signal ?? `code ${code}`)),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("curl -N")) resolve();
    });
    void exited.then((how) => reject(new Error(`npm run app exited (${how}) before it served:\n${output}`)));
  });
  const started = processTree(child.pid!);
  try {
    expect([...started.values()].some((args) => /temporal.* server start-dev/.test(args))).toBe(true);
    child.kill("SIGTERM");
    await exited;
    // Every process it started ends: the dev server last, after the worker drained.
    for (let waited = 0; [...started.keys()].some(isAlive) && waited < 300; waited++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect([...started].filter(([pid]) => isAlive(pid)).map(([, args]) => args)).toEqual([]);
  } finally {
    for (const pid of [...started.keys()].filter(isAlive)) process.kill(pid, "SIGKILL");
  }
}, 120_000);
