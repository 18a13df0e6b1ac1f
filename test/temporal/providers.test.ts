// Tutorial 2 on Temporal through each OpenAI wire format the native adapter speaks (chat completions and the
// Responses API), against a local server that speaks it, through the real `openai` client, the calls streamed
// (a live channel): citations resolved, usage recorded, 429 and 503 retried as activity retries, a 400 failing
// the turn for good with the provider's reason, a stream cut mid-way retried without a doubled event.
import { randomBytes } from "node:crypto";
import { WorkflowFailedError, type Client } from "@temporalio/client";
import type { temporal as proto } from "@temporalio/proto";
import { usageByTurn } from "../../src/domain/usage.js";
import { describe, expect, it } from "vitest";
import { QUESTIONS, assistant, show } from "../../examples/tutorials/02-citations/agent.js";
import { InProcessLiveChannel } from "../../src/adapters/live/in-process.js";
import { OpenAIChatModel } from "../../src/adapters/openai/chat-model.js";
import { requestBody } from "../../src/adapters/openai/request-mapping.js";
import { OpenAIResponsesModel } from "../../src/adapters/openai/responses-model.js";
import { mapResponsesRequest, responsesBody } from "../../src/adapters/openai/responses-request.js";
import { Failure, ModelOutput, type Usage } from "../../src/domain/events.js";
import type { ChatModel } from "../../src/ports/model.js";
import type { ChatRequest } from "../../src/ports/request.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { replay } from "../../src/runtime/replay.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { workflowIdOf } from "../../src/temporal/contract.js";
import { startTurn, type TurnHandle } from "../../src/temporal/start-turn.js";
import { createTurnWorker } from "../../worker.js";
import {
  CompatibleServer,
  chunk,
  usageChunk,
  type Reply,
  type StreamReply,
} from "../fixtures/openai-compatible-server.js";
import { callItem, errorReply, messageItem, reasoningItem, responseStream } from "../fixtures/responses-wire.js";
import { connectWorker, temporalNamespace, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { historyText, sharedBundle, useClientAndStore, type TestStore } from "./harness.js";

/** What the model does in one call of the tutorial: call search, or answer. */
type Step = { search: string; callId: string } | { answer: string };

const ANSWERS = [
  "You can have bulky waste picked up for free four times a year [2]. An extra pickup costs 25 euros [2].",
  "A resident parking permit costs 120 euros a year [5].",
];
/** The four calls of the tutorial's two turns. */
const SCRIPT: Step[] = [
  { search: "bulky waste pickup", callId: "call_bulky" },
  { answer: ANSWERS[0]! },
  { search: "parking permit", callId: "call_permit" },
  { answer: ANSWERS[1]! },
];

/** One wire format: the adapter, the server's streamed reply for a step, and the body a request is sent as. */
interface Wire {
  name: string;
  url: string;
  modelName: string;
  model(server: CompatibleServer): ChatModel;
  reply(step: Step, index: number, cutAfter?: number): StreamReply;
  usage(index: number): Usage;
  body(request: ChatRequest): string;
  /** What the second call must send back of the first call's output, beyond its text and calls; null: nothing. */
  kept: unknown;
}

const chatWire: Wire = {
  name: "chat completions",
  url: "/v1/chat/completions",
  modelName: "town-model",
  model: (server) => new OpenAIChatModel(server.client(), { model: "town-model" }),
  reply(step, index, cutAfter) {
    const deltas =
      "answer" in step
        ? [...step.answer.match(/.{1,10}/g)!.map((piece) => chunk({ content: piece })), chunk({}, "stop")]
        : [
            chunk({
              tool_calls: [
                { index: 0, id: step.callId, type: "function", function: { name: "search", arguments: "" } },
              ],
            }),
            chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ query: step.search }) } }] }),
            chunk({}, "tool_calls"),
          ];
    const chunks = [...deltas, usageChunk(100 + index, 20 + index)];
    return cutAfter === undefined ? { chunks } : { chunks: chunks.slice(0, cutAfter), cut: true };
  },
  usage: (index) => ({ promptTokens: 100 + index, completionTokens: 20 + index }),
  body: (request) =>
    Buffer.from(
      requestBody(request, null, { model: "town-model" }, { stream: true, stream_options: { include_usage: true } }),
    ).toString("utf8"),
  kept: null,
};

// A reasoning model: each call thinks first, and its encrypted reasoning must come back with the next call.
const responsesWire: Wire = {
  name: "responses",
  url: "/v1/responses",
  modelName: "gpt-5",
  model: (server) => new OpenAIResponsesModel(server.client(), { model: "gpt-5" }),
  reply(step, index, cutAfter) {
    const thought = reasoningItem([`Step ${index + 1}.`], { id: `rs_${index}`, encrypted: `enc-${index}` });
    const item =
      "answer" in step
        ? messageItem(step.answer, `msg_${index}`)
        : callItem("search", { query: step.search }, { id: `fc_${index}`, callId: step.callId });
    const usage = { input: 100 + index, output: 20 + index, cached: 50, reasoning: 8 };
    return responseStream([thought, item], { usage, ...(cutAfter === undefined ? {} : { cutAfter }) });
  },
  usage: (index) => ({ promptTokens: 100 + index, completionTokens: 20 + index, cachedTokens: 50, reasoningTokens: 8 }),
  body: (request) =>
    Buffer.from(
      responsesBody(
        mapResponsesRequest(request, "gpt-5"),
        { model: "gpt-5", store: false, include: ["reasoning.encrypted_content"] },
        { stream: true },
      ),
    ).toString("utf8"),
  // The default context policy sends no reasoning text back: the encrypted item goes without its summary.
  kept: { type: "reasoning", id: "rs_0", summary: [], encrypted_content: "enc-0" },
};

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));
const server = CompatibleServer.forFile();

/** Run `body` while a worker of the tutorial's assistant on `model` polls a queue of its own, streaming its calls. */
async function withTownWorker<T>(model: ChatModel, body: (run: TownRun) => Promise<T>): Promise<T> {
  const catalog = new AgentCatalog(store.store, { assistant: assistant(model) }, { version: "tutorial-2" });
  const taskQueue = uniqueTaskQueue("providers");
  const connection = await connectWorker();
  try {
    const worker = await createTurnWorker({
      catalog,
      connection,
      taskQueue,
      namespace: temporalNamespace(),
      workflowBundle: await sharedBundle(),
      live: new InProcessLiveChannel(),
    });
    return await worker.runUntil(() => body(new TownRun(catalog, taskQueue)));
  } finally {
    await connection.close();
  }
}

/** The turns of one thread on a worker's queue. */
class TownRun {
  readonly threadId = `providers-${randomBytes(4).toString("hex")}`;
  constructor(
    readonly catalog: AgentCatalog,
    private readonly taskQueue: string,
  ) {}

  start(question: string, model: string): Promise<TurnHandle> {
    const input = { payload: question, model };
    return startTurn(temporal.client, {
      agent: "assistant",
      threadId: this.threadId,
      input,
      taskQueue: this.taskQueue,
    });
  }

  trace() {
    return readTrace(store.store, this.catalog.types("assistant"), this.threadId);
  }
}

/** The started event of each callModel activity of a run: its attempt, and the failure before it. */
async function modelAttempts(
  client: Client,
  turn: TurnHandle,
): Promise<proto.api.history.v1.IActivityTaskStartedEventAttributes[]> {
  const events = (await client.workflow.getHandle(turn.workflowId, turn.runId).fetchHistory()).events ?? [];
  const models = new Set(
    events
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === "callModel")
      .map((event) => Number(event.eventId)),
  );
  return events.flatMap((event) => {
    const started = event.activityTaskStartedEventAttributes;
    return started && models.has(Number(started.scheduledEventId)) ? [started] : [];
  });
}

const TURN_EVENTS = ["input", "model-output", "tool-output", "model-output"];

describe.each([chatWire, responsesWire])("tutorial 2 on Temporal through $name", (wire) => {
  it("answers both questions with resolved citations, records usage, and replays each request byte for byte", async () => {
    server.reply(...SCRIPT.map((step, index) => wire.reply(step, index)));
    await withTownWorker(wire.model(server), async (run) => {
      await (await run.start(QUESTIONS[0]!, wire.modelName)).result();
      const second = await (await run.start(QUESTIONS[1]!, wire.modelName)).result();
      expect(second).toMatchObject({ answer: ANSWERS[1], modelCalls: 2, toolCalls: 1, sources: ["parking-permits#0"] });

      const trace = await run.trace();
      expect(show(trace)).toEqual([`Answer: ${ANSWERS[1]}`, "  [5] A resident parking permit costs 120 euros a year."]);
      const outputs = trace.byType(ModelOutput);
      expect(outputs[1]!.markers.flatMap((marker) => marker.cited)).toEqual([
        { written: 2, source: "waste-collection#2" },
        { written: 2, source: "waste-collection#2" },
      ]);
      expect(outputs.map((output) => output.usage)).toEqual(SCRIPT.map((_, index) => wire.usage(index)));
      // The turn's usage in its result: the sum of what the provider reported for its two calls.
      const [third, fourth] = [wire.usage(2), wire.usage(3)];
      expect(second.usage).toMatchObject({
        calls: 2,
        promptTokens: third.promptTokens + fourth.promptTokens,
        completionTokens: third.completionTokens + fourth.completionTokens,
        cachedTokens: (third.cachedTokens ?? 0) + (fourth.cachedTokens ?? 0),
        estimatedCalls: 0,
      });
      expect(usageByTurn(trace.events).map((turn) => turn.totalTokens)).toEqual([
        [0, 1].reduce((sum, index) => sum + wire.usage(index).promptTokens + wire.usage(index).completionTokens, 0),
        second.usage.totalTokens,
      ]);
      expect(server.requests.map((request) => request.url)).toEqual(SCRIPT.map(() => wire.url));
      const secondInput = JSON.stringify(server.requests[1]!.body);
      if (wire.kept !== null) expect(secondInput).toContain(JSON.stringify(wire.kept));
      // The encrypted reasoning stays in the trace store: Temporal history holds ids, positions and summaries.
      const history = await historyText(temporal.client, workflowIdOf(run.threadId));
      expect(history).not.toContain("enc-0");

      const calls = await replay(run.catalog, run.threadId);
      expect(calls.map((call) => call.matches)).toEqual([true, true, true, true]);
      expect(calls.map((call) => wire.body(call.request!))).toEqual(server.requests.map((request) => request.text));
    });
  });

  it("a 429 and then a 503 are retried as activity retries, and the turn completes", async () => {
    const [search, answer] = [wire.reply(SCRIPT[0]!, 0), wire.reply(SCRIPT[1]!, 1)];
    server.reply(
      errorReply(429, "Rate limit reached.", { "retry-after": "1" }),
      search,
      errorReply(503, "Overloaded."),
      answer,
    );
    await withTownWorker(wire.model(server), async (run) => {
      const turn = await run.start(QUESTIONS[0]!, wire.modelName);
      expect((await turn.result()).answer).toBe(ANSWERS[0]);
      const [first, second] = await modelAttempts(temporal.client, turn);
      expect([first!.attempt, second!.attempt]).toEqual([2, 2]);
      expect(first!.lastFailure).toMatchObject({
        applicationFailureInfo: { type: "TransientError", nonRetryable: false },
      });
      expect(first!.lastFailure!.message).toContain("failed with 429: Rate limit reached.");
      expect(second!.lastFailure!.message).toContain("failed with 503: Overloaded.");
      expect((await run.trace()).events.map((event) => event.type)).toEqual(TURN_EVENTS);
    });
  });

  it("a 400 fails the turn non-retryably with the provider's reason, recorded as one Failure", async () => {
    server.reply(errorReply(400, "Invalid value for 'input[1]': the item is malformed."));
    await withTownWorker(wire.model(server), async (run) => {
      const turn = await run.start(QUESTIONS[0]!, wire.modelName);
      const failed = await turn.result().then(
        () => null,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(WorkflowFailedError);
      expect((failed as WorkflowFailedError).cause).toMatchObject({ type: "ModelRequestError", nonRetryable: true });
      expect((failed as WorkflowFailedError).cause!.message).toContain(
        "with 400: Invalid value for 'input[1]': the item is malformed.",
      );
      expect((await modelAttempts(temporal.client, turn)).map((started) => started.attempt)).toEqual([1]);
      const trace = await run.trace();
      expect(trace.events.map((event) => event.type)).toEqual(["input", "failure"]);
      expect(trace.byType(Failure)[0]).toMatchObject({ error: "ModelRequestError", retryable: false });
    });
  });

  it("a stream cut mid-way is retried, and the trace holds each output once, whole", async () => {
    const replies: Reply[] = [wire.reply(SCRIPT[0]!, 0), wire.reply(SCRIPT[1]!, 1, 6), wire.reply(SCRIPT[1]!, 1)];
    server.reply(...replies);
    await withTownWorker(wire.model(server), async (run) => {
      const turn = await run.start(QUESTIONS[0]!, wire.modelName);
      expect((await turn.result()).answer).toBe(ANSWERS[0]);
      const attempts = await modelAttempts(temporal.client, turn);
      expect(attempts.map((started) => started.attempt)).toEqual([1, 2]);
      expect(attempts[1]!.lastFailure!.message).toMatch(/broke off|ended before the model finished/);
      const trace = await run.trace();
      expect(trace.events.map((event) => event.type)).toEqual(TURN_EVENTS);
      expect(trace.byType(ModelOutput)[1]!.content).toBe(ANSWERS[0]!.replaceAll(" [2]", ""));
      expect(server.requests).toHaveLength(3);
    });
  });
});
