/**
 * The systems of the Temporal comparison (and the floor: a soev-agents turn's activities, doing nothing), each
 * behind one interface: its worker in a process of its own, and a conversation that runs one turn at a time
 * and keeps the thread as that system keeps it.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@temporalio/client";
import { bundleWorkflowCode, type Logger } from "@temporalio/worker";
import proto from "@temporalio/proto";
import { startTurn } from "../../src/temporal/start-turn.js";
import { bundleTurnWorkflows } from "../../src/worker/bundle.js";
import { activityOf } from "../../test/support/temporal.js";
import type { BaselineMessage } from "../baseline/activities.js";
import { phasesOf, type TurnPhases } from "./phases.js";
import { MODEL_NAME, REPORT_CHARACTERS, prompt } from "./scripted.js";

/** The systems compared. */
export const SYSTEMS = ["soev", "baseline", "peer", "floor"] as const;
/** One of the systems. */
export type System = (typeof SYSTEMS)[number];
/** Each system's name in the benches' tables. */
export const SYSTEM_NAMES: Record<System, string> = {
  soev: "soev-agents",
  baseline: "baseline",
  peer: "peer (@temporalio/openai-agents)",
  floor: "floor (the same activities, doing nothing)",
};

/** A worker process: its pid and how to stop it. */
export interface WorkerProcess {
  taskQueue: string;
  child: ChildProcess;
  /** The highest resident memory since the last `resetPeak`, in bytes (Linux: VmHWM). */
  peakBytes(): number;
  /** The CPU time the process used so far (user and system), in seconds. */
  cpuSeconds(): number;
  /** Start measuring the peak afresh. */
  resetPeak(): void;
  stop(): Promise<void>;
}

/** Where each worker finds the services. */
export interface WorkerEnvironment {
  temporalAddress: string;
  modelUrl: string;
  /** The workflow bundle file of the soev-agents worker, of the baseline's and of the floor's. */
  bundles: { soev: string; baseline?: string; floor?: string };
  sqlitePath: string;
}

const HERE = fileURLToPath(new URL(".", import.meta.url));
const PEER = fileURLToPath(new URL("../peer/", import.meta.url));

/** How to start one worker: the task queue it polls, to share it with another worker (default: a new one). */
export interface WorkerOptions {
  taskQueue?: string;
}

/** Bundle the workflows of soev-agents, the baseline and the floor, each into a file of `folder` a worker loads. */
export async function bundleSystems(folder: string, logger: Logger): Promise<WorkerEnvironment["bundles"]> {
  const file = (name: string, code: string) => {
    const path = join(folder, `${name}.js`);
    writeFileSync(path, code);
    return path;
  };
  const bundleOf = async (path: string) =>
    (await bundleWorkflowCode({ logger, workflowsPath: fileURLToPath(new URL(path, import.meta.url)) })).code;
  return {
    soev: file("soev", (await bundleTurnWorkflows({ logger })).code),
    baseline: file("baseline", await bundleOf("../baseline/workflows.ts")),
    floor: file("floor", await bundleOf("../floor/workflows.ts")),
  };
}

/** A new task queue for the workers of `system`. */
export function newTaskQueue(system: System): string {
  return `bench-${system}-${randomBytes(4).toString("hex")}`;
}

/** Start the worker of `system`; it resolves once the worker is ready. */
export async function startWorker(
  system: System,
  environment: WorkerEnvironment,
  options: WorkerOptions = {},
): Promise<WorkerProcess> {
  const taskQueue = options.taskQueue ?? newTaskQueue(system);
  // BENCH_NODE_ARGS passes options to the workers' node, such as `--cpu-prof --cpu-prof-dir=/tmp/profiles`.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const args = [...nodeArgs, ...(system === "peer" ? [`${PEER}worker.mjs`] : ["--import", "tsx", `${HERE}worker.ts`])];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      BENCH_SYSTEM: system,
      BENCH_TASK_QUEUE: taskQueue,
      BENCH_MODEL_URL: environment.modelUrl,
      BENCH_BUNDLE: system === "peer" ? "" : (environment.bundles[system] ?? ""),
      BENCH_SQLITE: environment.sqlitePath,
      BENCH_REPORT_CHARACTERS: String(REPORT_CHARACTERS),
      TEMPORAL_ADDRESS: environment.temporalAddress,
      // The peer's SDK would send its traces to OpenAI: there is no OpenAI here.
      OPENAI_AGENTS_DISABLE_TRACING: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4_000)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes('"ready"') && resolve());
    child.on("exit", (code) =>
      reject(new Error(`The ${system} worker exited (${code}) before it was ready:\n${errors}`)),
    );
  });
  const status = `/proc/${child.pid}/status`;
  return {
    taskQueue,
    child,
    peakBytes: () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(status, "utf8"))?.[1] ?? NaN) * 1024,
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    // Writing 5 to clear_refs resets the peak resident size (Linux 4.0 and later).
    resetPeak: () => writeFileSync(`/proc/${child.pid}/clear_refs`, "5"),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.on("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The fields of /proc/<pid>/stat after the process's name (which is in parentheses and may hold spaces). */
function statOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
}

/** The highest resident memory of a process since it started or its peak was reset, in bytes (Linux: VmHWM). */
export function peakBytesOf(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) * 1024;
}

/** The CPU time a process used so far (user and system: fields 14 and 15, in ticks of 1/100 s), in seconds. */
export function cpuSecondsOf(pid: number): number {
  const fields = statOf(pid);
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The Temporal dev server that this process started (`temporal server start-dev`), found among its children. */
export function devServerPid(): number {
  const found = readdirSync("/proc").find((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const parent = statOf(Number(entry))[1];
      return parent === String(process.pid) && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("start-dev");
    } catch {
      return false;
    }
  });
  if (found === undefined) throw new Error("The bench found no Temporal dev server among its child processes.");
  return Number(found);
}

/** Whether the peer's scratch project is installed (bench/peer/node_modules). */
export function peerInstalled(): boolean {
  return existsSync(`${PEER}node_modules/@temporalio/openai-agents/package.json`);
}

/** Install the peer's scratch project once (npm install --prefix bench/peer); null when it is ready, else why it is not. */
export function installPeerOnce(): string | null {
  if (peerInstalled()) return null;
  console.log("Installing the peer into bench/peer (npm install --prefix bench/peer) ...");
  try {
    execFileSync("npm", ["install", "--prefix", PEER, "--no-audit", "--no-fund"], { stdio: "inherit" });
    return null;
  } catch (error) {
    return `npm install --prefix bench/peer failed: ${(error as Error).message}`;
  }
}

/** One turn as run: its workflow, and the milliseconds from start to result. */
export interface RanTurn {
  workflowId: string;
  runId: string;
  milliseconds: number;
}

/** A thread of one system: each `turn` runs one turn of `passes` tool calls and waits for it. */
export interface Conversation {
  /** Run a turn; `onStarted` is called once the server has started its workflow. */
  turn(passes: number, onStarted?: () => void): Promise<RanTurn>;
}

/** A new thread of `system` on its worker's task queue. */
export function conversation(system: System, client: Client, taskQueue: string): Conversation {
  const threadId = randomUUID();
  let turns = 0;
  // The baseline and the peer keep the thread in the workflow's input and result, as the peers do.
  let messages: BaselineMessage[] = [{ role: "system", content: "You read the day's report." }];
  let items: unknown[] = [];
  return {
    async turn(passes, onStarted) {
      const text = prompt(++turns, passes);
      const started = performance.now();
      if (system === "soev") {
        const handle = await startTurn(client, {
          agent: "reader",
          threadId,
          input: { payload: text, model: MODEL_NAME },
          taskQueue,
        });
        onStarted?.();
        await handle.result();
        return { workflowId: handle.workflowId, runId: handle.runId, milliseconds: performance.now() - started };
      }
      const workflowId = `bench-${system}-${threadId}-${turns}`;
      if (system === "floor") {
        const handle = await client.workflow.start("floorTurn", { args: [passes], taskQueue, workflowId });
        onStarted?.();
        await handle.result();
        return { workflowId, runId: handle.firstExecutionRunId, milliseconds: performance.now() - started };
      }
      const handle =
        system === "baseline"
          ? await client.workflow.start("baselineTurn", {
              args: [[...messages, { role: "user", content: text }]],
              taskQueue,
              workflowId,
            })
          : await client.workflow.start("peerTurn", { args: [items, text], taskQueue, workflowId });
      onStarted?.();
      const result: unknown = await handle.result();
      const milliseconds = performance.now() - started;
      if (system === "baseline") messages = result as BaselineMessage[];
      else items = result as unknown[];
      return { workflowId, runId: handle.firstExecutionRunId, milliseconds };
    },
  };
}

/** What a turn cost in Temporal, from its fetched history. */
export interface HistoryCounts {
  /** The activity types scheduled, in order (a local activity as `local <type>`). */
  activities: string[];
  events: number;
  workflowTasks: number;
  /** The history's encoded size. */
  bytes: number;
  /** Where the turn's time went, by its events' times. */
  phases: TurnPhases;
}

const { History } = proto.temporal.api.history.v1;

/** Count a turn's activities, events, workflow tasks and bytes from its history. */
export async function historyCounts(client: Client, turn: RanTurn): Promise<HistoryCounts> {
  const history = await client.workflow.getHandle(turn.workflowId, turn.runId).fetchHistory();
  const events = history.events ?? [];
  return {
    activities: events.flatMap((event) => activityOf(event) ?? []),
    events: events.length,
    workflowTasks: events.filter((event) => event.workflowTaskCompletedEventAttributes).length,
    bytes: History.encode(History.fromObject(history)).finish().length,
    phases: phasesOf(events),
  };
}
