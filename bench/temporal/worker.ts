/**
 * A worker of the Temporal comparison in a process of its own, so its peak memory is its own: the
 * soev-agents turn worker (BENCH_SYSTEM=soev), the baseline's (BENCH_SYSTEM=baseline) or the floor's
 * (BENCH_SYSTEM=floor), on the task queue
 * BENCH_TASK_QUEUE of the dev server at TEMPORAL_ADDRESS, with the workflow bundle in BENCH_BUNDLE and the
 * model at BENCH_MODEL_URL. Prints `{"event":"ready"}` once it polls; stops on SIGTERM. With
 * BENCH_PARTS_CPU=1 it prints on SIGUSR2 its CPU milliseconds so far, those of its request builds and request
 * hashes, and the size of the last request hashed: `{"event":"parts","cpu":...,"build":...,"hash":...,"characters":...}`.
 * Started with --expose-gc, it collects on SIGWINCH and prints its memory in bytes:
 * `{"event":"memory","rss":...,"heap":...,"external":...}`.
 */
import { NativeConnection, Runtime, Worker } from "@temporalio/worker";
import OpenAI from "openai";
import { SqliteTraceStore } from "../../src/adapters/stores/sqlite.js";
import { ChatRequest } from "../../src/ports/request.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { MessageBuilder } from "../../src/toolkit/index.js";
import { createTurnWorker } from "../../worker.js";
import { baselineActivities } from "../baseline/activities.js";
import { floorActivities } from "../floor/activities.js";
import { benchAgents } from "./agents.js";

const variable = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`The bench worker needs ${name}; bench/temporal.ts sets it.`);
  return value;
};

/** CPU milliseconds of this process since `since`, user and system. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/**
 * Add up the CPU time of the request builds (MessageBuilder.assess) and of the request hashes, and print
 * the process's CPU time, the sums and the size of the last request hashed on SIGUSR2, so the measuring costs no
 * output per call. The process's CPU time is in µs here, where /proc counts it in ticks of 10 ms.
 */
function printPartsCpu(): void {
  const parts = { build: 0, hash: 0 };
  let characters = 0;
  // A hash taken inside a build is the build's.
  let building = 0;
  const assess = MessageBuilder.prototype.assess;
  MessageBuilder.prototype.assess = function timed(this: MessageBuilder, ...args: Parameters<typeof assess>) {
    const start = process.cpuUsage();
    building++;
    try {
      return assess.apply(this, args);
    } finally {
      building--;
      parts.build += cpuMs(start);
    }
  };
  const hash = Object.getOwnPropertyDescriptor(ChatRequest.prototype, "hash")!.get!;
  Object.defineProperty(ChatRequest.prototype, "hash", {
    get(this: ChatRequest) {
      if (building > 0) return hash.call(this) as string;
      const start = process.cpuUsage();
      try {
        return hash.call(this) as string;
      } finally {
        parts.hash += cpuMs(start);
        characters = this.characters;
      }
    },
  });
  // The SDK's Runtime shuts the worker down on SIGUSR2 by default: here the signal asks for the sums.
  Runtime.install({ shutdownSignals: ["SIGINT", "SIGTERM", "SIGQUIT"] });
  process.on("SIGUSR2", () =>
    console.log(
      JSON.stringify({
        event: "parts",
        cpu: cpuMs({ user: 0, system: 0 }),
        ...parts,
        characters,
      }),
    ),
  );
}

/** On SIGWINCH (which a worker without this handler ignores), collect the garbage and print the memory left. */
function printMemoryAfterGc(collect: () => void): void {
  process.on("SIGWINCH", () => {
    // Twice: what the first collection's finalizers release goes in the second.
    collect();
    collect();
    const { rss, heapUsed, external } = process.memoryUsage();
    console.log(JSON.stringify({ event: "memory", rss, heap: heapUsed, external }));
  });
}

if (process.env.BENCH_PARTS_CPU === "1") printPartsCpu();
if (typeof globalThis.gc === "function") printMemoryAfterGc(globalThis.gc);
const system = variable("BENCH_SYSTEM");
const client = new OpenAI({ apiKey: "bench", baseURL: variable("BENCH_MODEL_URL"), maxRetries: 0 });
const connection = await NativeConnection.connect({ address: variable("TEMPORAL_ADDRESS") });
const common = {
  connection,
  namespace: "default",
  taskQueue: variable("BENCH_TASK_QUEUE"),
  workflowBundle: { codePath: variable("BENCH_BUNDLE") },
};
let worker: Worker;
if (system === "soev") {
  const store = new SqliteTraceStore(variable("BENCH_SQLITE"));
  worker = await createTurnWorker({ ...common, catalog: new AgentCatalog(store, benchAgents(client)) });
} else if (system === "baseline") {
  worker = await Worker.create({ ...common, activities: { ...baselineActivities(client) } });
} else if (system === "floor") {
  worker = await Worker.create({ ...common, activities: { ...floorActivities() } });
} else {
  throw new Error(`BENCH_SYSTEM is "soev", "baseline" or "floor", not "${system}".`);
}
process.on("SIGTERM", () => worker.shutdown());
console.log(JSON.stringify({ event: "ready" }));
await worker.run();
await connection.close();
