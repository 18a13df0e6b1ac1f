// The demo as a process: SIGTERM while it holds the UI open stops it and its dev server (checked by pid),
// its worker keeps polling while the UI is held, and a missing Temporal CLI is one clear line.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection } from "@temporalio/client";
import { expect, it } from "vitest";

const MAIN = join(import.meta.dirname, "main.ts");

/** The environment of a demo that starts its own dev server on the offline model. */
function demoEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SOEV_DATA_DIR: mkdtempSync(join(tmpdir(), "soev-demo-")), ...extra };
  for (const name of ["TEMPORAL_ADDRESS", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TEMPORAL_TASK_QUEUE"]) delete env[name];
  return env;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it("keeps its worker while the UI is held, and on SIGTERM stops with its dev server, leaving no process", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "--keep-open"], {
    env: demoEnvironment(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    while (!output.includes("The Temporal UI stays up")) {
      if (child.exitCode !== null) throw new Error(`The demo exited early:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const serverPid = Number(/dev server running \(pid (\d+)\)/.exec(output)?.[1]);
    const address = /Temporal at (\S+),/.exec(output)?.[1];
    expect(alive(serverPid)).toBe(true);

    const connection = await Connection.connect({ address: address! });
    try {
      const queue = await connection.workflowService.describeTaskQueue({
        namespace: "default",
        taskQueue: { name: "soev-agents-demo" },
        taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
      });
      expect(queue.pollers?.length ?? 0).toBeGreaterThan(0);
    } finally {
      await connection.close();
    }

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(output).toContain("Stopping (SIGTERM)");
    expect(alive(child.pid!)).toBe(false);
    for (let attempt = 0; attempt < 100 && alive(serverPid); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(serverPid)).toBe(false);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}, 240_000);

it("without a Temporal CLI, says in one line how to get one", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "--exit"], {
    env: demoEnvironment({ TEMPORAL_CLI_PATH: "/nonexistent/temporal", PATH: "/usr/bin:/bin" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
  expect(code).toBe(1);
  const lines = errors.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/needs the Temporal CLI/);
  expect(lines[0]).toMatch(/TEMPORAL_CLI_PATH/);
  expect(lines[0]).toMatch(/provision-temporal\.sh/);
}, 60_000);
