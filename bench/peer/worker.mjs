// The peer's worker in a process of its own, with the peer's own @temporalio versions (bench/peer's
// node_modules): the OpenAIAgentsPlugin as its README registers it, the model provider on the scripted
// server's chat completions, the report tool as an activity. Environment as for bench/temporal/worker.ts.
// Prints {"event":"ready"} once it polls; stops on SIGTERM.
import { createRequire } from "node:module";
import { OpenAIProvider } from "@openai/agents-openai";
import { OpenAIAgentsPlugin } from "@temporalio/openai-agents";
import { NativeConnection, Worker } from "@temporalio/worker";
import OpenAI from "openai";

const require = createRequire(import.meta.url);
const variable = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`The peer worker needs ${name}; bench/temporal.ts sets it.`);
  return value;
};
const REPORT_CHARACTERS = Number(variable("BENCH_REPORT_CHARACTERS"));

const openAIClient = new OpenAI({ apiKey: "bench", baseURL: variable("BENCH_MODEL_URL"), maxRetries: 0 });
const connection = await NativeConnection.connect({ address: variable("TEMPORAL_ADDRESS") });
const worker = await Worker.create({
  connection,
  namespace: "default",
  taskQueue: variable("BENCH_TASK_QUEUE"),
  workflowsPath: require.resolve("./workflows.cjs"),
  activities: {
    // The same report as bench/temporal/scripted.ts's.
    async fetch_report({ part }) {
      return `Report part ${part}: ${"x".repeat(REPORT_CHARACTERS)}`.slice(0, REPORT_CHARACTERS);
    },
  },
  plugins: [
    new OpenAIAgentsPlugin({
      modelProvider: new OpenAIProvider({ openAIClient, useResponses: false }),
      modelParams: { startToCloseTimeout: "1 minute" },
    }),
  ],
});
process.on("SIGTERM", () => worker.shutdown());
console.log(JSON.stringify({ event: "ready" }));
await worker.run();
await connection.close();
