// Small payloads: activities carry ids, positions and counts, never the conversation, so the Temporal
// history of a turn stays the same size however long the thread grows.
import proto from "@temporalio/proto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { ToolOutput } from "../../src/domain/events.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { tool } from "../../src/runtime/tools/function-tool.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { FunctionModel } from "../../src/testing/index.js";
import { ModelLimits, ReActAgent, ReActConfig, Tokens } from "../../src/toolkit/index.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { openStore, sharedBundle, withWorker } from "./harness.js";

const TURNS = 20;
const { History } = proto.temporal.api.history.v1;
const RESULT_CHARACTERS = 20_000;

/** A tool whose every result is 20 KB of text. */
const fetchReport = tool({
  name: "fetch_report",
  description: "Fetch the day's report.",
  args: { day: z.number().int().describe("The day of the report.") },
  async run({ day }) {
    return ToolOutput({ text: `Report of day ${day}: ${"x".repeat(RESULT_CHARACTERS)}`.slice(0, RESULT_CHARACTERS) });
  },
});

/** Each turn: fetch the report of the turn's day, then answer. */
const model = new FunctionModel(
  (request) => {
    const day = request.messages.filter((message) => message.role === "user").length;
    return request.messages.at(-1)?.role === "user"
      ? { toolCalls: [{ id: `report-${day}`, name: "fetch_report", arguments: { day } }] }
      : `Here is the report of day ${day}.`;
  },
  { name: "scripted" },
);

const clerk = new ReActAgent(
  new ReActConfig({
    model,
    prompt: "You fetch the day's report.",
    tools: [fetchReport],
    // A window that holds every result of the thread, so the context never shrinks them: the model reads all 20.
    limits: new ModelLimits({ window: new Tokens(10_000_000) }),
  }),
);

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundle();
});
afterAll(() => temporal.close());

it(
  "the history bytes of turn 20 of a thread with 20 KB tool results are within 10 % of turn 1's",
  { timeout: 180_000 },
  async () => {
    const store = await openStore("sqlite");
    try {
      const catalog = new AgentCatalog(store.store, { clerk }, { version: "history-size" });
      const taskQueue = uniqueTaskQueue("history-size");
      const sizes = await withWorker(catalog, taskQueue, async () => {
        const bytes: number[] = [];
        for (let day = 1; day <= TURNS; day++) {
          const turn = await startTurn(temporal.client, {
            agent: "clerk",
            threadId: "history-size",
            input: { payload: `Report of day ${day}, please.`, model: "scripted" },
            taskQueue,
          });
          expect(await turn.result()).toMatchObject({ answer: `Here is the report of day ${day}.`, toolCalls: 1 });
          // The history as fetched, encoded: the server's historySizeBytes also counts bookkeeping of a reused workflow id.
          const history = await temporal.client.workflow.getHandle(turn.workflowId, turn.runId).fetchHistory();
          bytes.push(History.encode(History.fromObject(history)).finish().length);
        }
        return bytes;
      });
      const [first, last] = [sizes[0]!, sizes.at(-1)!];
      console.log(
        `Temporal history of turn 1: ${first} bytes; of turn ${TURNS}: ${last} bytes (each turn's tool result: ${RESULT_CHARACTERS} characters; every turn: ${sizes.join(", ")}).`,
      );
      expect(model.requests.at(-1)!.characters).toBeGreaterThan(TURNS * RESULT_CHARACTERS);
      expect(Math.abs(last - first) / first).toBeLessThan(0.1);
    } finally {
      await store.close();
    }
  },
);
