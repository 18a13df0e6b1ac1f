// Tutorial 2 end to end on Temporal through the real AI SDK provider packages, each against a local server
// that speaks its provider's wire format (Anthropic Messages; Gemini streamGenerateContent over SSE): the
// model activity streams onto a live channel, citations resolve, usage is recorded, passing failures are
// activity retries, a 400 fails the turn non-retryably with the provider's reason, and a stream cut mid-way
// is retried without a doubled event. Without a live channel the non-streaming APIs answer (messages,
// generateContent). Replay rebuilds each recorded request with the hash it recorded, the same for both.
import { WorkflowFailedError, type Client } from "@temporalio/client";
import { ApplicationFailure } from "@temporalio/common";
import type { temporal as proto } from "@temporalio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUESTIONS, assistant } from "../../../examples/tutorials/02-citations/agent.js";
import { resolveModel } from "../../../src/adapters/ai-sdk/registry.js";
import { InProcessLiveChannel } from "../../../src/adapters/live/in-process.js";
import { Failure, ModelOutput } from "../../../src/domain/events.js";
import type { ChatModel } from "../../../src/ports/model.js";
import { AgentCatalog } from "../../../src/runtime/catalog.js";
import { replay } from "../../../src/runtime/replay.js";
import { readTrace } from "../../../src/runtime/runner/work.js";
import { startTurn, type TurnHandle } from "../../../src/temporal/start-turn.js";
import { createTurnWorker } from "../../../worker.js";
import { anthropicError, anthropicMessage, anthropicStream } from "../../fixtures/anthropic-wire.js";
import { geminiError, geminiResponse, geminiStream } from "../../fixtures/gemini-wire.js";
import type { ModelTurn } from "../../fixtures/model-turn.js";
import { WireServer, type WireReply } from "../../fixtures/wire-server.js";
import {
  connectClient,
  connectWorker,
  temporalNamespace,
  uniqueTaskQueue,
  type TestClient,
} from "../../support/temporal.js";
import { openStore, sharedBundle, type TestStore } from "../../temporal/harness.js";

/** A provider as the test drives it: its server, its model string, and its wire format's replies. */
interface Provider {
  name: string;
  server: WireServer;
  model: () => ChatModel;
  stream: (turn: ModelTurn, options?: { cutAfter?: number }) => WireReply;
  /** The whole (non-streamed) reply, and the path it is asked for at. */
  whole: (turn: ModelTurn) => WireReply;
  wholeUrl: string;
  rateLimited: WireReply;
  overloaded: WireReply;
  invalid: WireReply;
  invalidReason: string;
  /** Events of the answer's stream before the cut: after its first text fragment. */
  cutAfter: number;
}

const anthropicServer = WireServer.forFile("/v1");
const geminiServer = WireServer.forFile("/v1beta");
const PROVIDERS: Provider[] = [
  {
    name: "Anthropic Messages",
    server: anthropicServer,
    model: () =>
      resolveModel("anthropic:claude-sonnet-4-5", {
        env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: anthropicServer.baseURL },
      }),
    stream: anthropicStream,
    whole: anthropicMessage,
    wholeUrl: "/v1/messages",
    rateLimited: anthropicError(429, "rate_limit_error", "Rate limited: slow down.", { "retry-after": "1" }),
    overloaded: anthropicError(529, "overloaded_error", "Overloaded"),
    invalid: anthropicError(400, "invalid_request_error", "tools.0.input_schema: JSON schema is invalid"),
    invalidReason: "tools.0.input_schema: JSON schema is invalid",
    cutAfter: 4,
  },
  {
    name: "Gemini streamGenerateContent",
    server: geminiServer,
    model: () =>
      resolveModel("google:gemini-2.5-pro", {
        env: { GOOGLE_GENERATIVE_AI_API_KEY: "test-key", GOOGLE_GENERATIVE_AI_BASE_URL: geminiServer.baseURL },
      }),
    stream: geminiStream,
    whole: geminiResponse,
    wholeUrl: "/v1beta/models/gemini-2.5-pro:generateContent",
    rateLimited: geminiError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
    overloaded: geminiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
    invalid: geminiError(400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
    invalidReason: "Request contains an invalid argument.",
    cutAfter: 1,
  },
];

const SEARCH: ModelTurn = {
  toolCalls: [{ id: "toolu_search_1", name: "search", input: { query: "bulky waste pickup" } }],
  usage: { input: 420, output: 18, cached: 400 },
};
const ANSWER: ModelTurn = { text: "Four times a year, for free [2].", usage: { input: 610, output: 12, cached: 400 } };

let temporal: TestClient;
let store: TestStore;
beforeAll(async () => {
  temporal = await connectClient();
  store = await openStore("sqlite");
  await sharedBundle();
});
afterAll(async () => {
  await store.close();
  await temporal.close();
});

/** Run the tutorial's first question as a turn on a worker that streams onto a live channel, unless `live` is false. */
async function runTurn(
  provider: Provider,
  thread: string,
  options: { live?: boolean } = {},
): Promise<{ turn: TurnHandle; catalog: AgentCatalog; outcome: unknown }> {
  const model = provider.model();
  const catalog = new AgentCatalog(store.store, { assistant: assistant(model) }, { version: "tutorial-2" });
  const taskQueue = uniqueTaskQueue("ai-sdk");
  const turn = await startTurn(temporal.client, {
    agent: "assistant",
    threadId: `${thread}-${taskQueue}`,
    input: { payload: QUESTIONS[0]!, model: model.resolve(null) },
    taskQueue,
  });
  const connection = await connectWorker();
  try {
    const worker = await createTurnWorker({
      catalog,
      connection,
      taskQueue,
      namespace: temporalNamespace(),
      workflowBundle: await sharedBundle(),
      ...(options.live === false ? {} : { live: new InProcessLiveChannel() }),
    });
    const outcome = await worker.runUntil(() => turn.result().catch((error: unknown) => error));
    return { turn, catalog, outcome };
  } finally {
    await connection.close();
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

async function eventTypes(catalog: AgentCatalog, turn: TurnHandle): Promise<string[]> {
  const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
  return trace.events.map((event) => event.type);
}

describe.each(PROVIDERS)("tutorial 2 on Temporal through $name", (provider) => {
  it("answers with its citations resolved and the provider's usage recorded; replay rebuilds each request", async () => {
    provider.server.reply(provider.stream(SEARCH), provider.stream(ANSWER));
    const { turn, catalog, outcome } = await runTurn(provider, "answer");

    expect(outcome).toMatchObject({ answer: "Four times a year, for free [2].", modelCalls: 2, toolCalls: 1 });
    expect(provider.server.requests).toHaveLength(2);
    const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
    const [search, answer] = trace.byType(ModelOutput);
    expect(search!.usage).toMatchObject({ promptTokens: 420, completionTokens: 18, cachedTokens: 400 });
    expect(answer!.usage).toMatchObject({ promptTokens: 610, completionTokens: 12, cachedTokens: 400 });
    expect(answer!.content).toBe("Four times a year, for free.");
    const cited = answer!.markers.flatMap((marker) => marker.cited);
    expect(cited).toHaveLength(1);
    expect(cited[0]!.written).toBe(2);
    expect(cited[0]!.source).toMatch(/\S/);
    const calls = await replay(catalog, turn.threadId);
    expect(calls.map((call) => call.matches)).toEqual([true, true]);
  });

  it("without a live channel, calls the provider's non-streaming API and records the same answer", async () => {
    provider.server.reply(provider.whole(SEARCH), provider.whole(ANSWER));
    const { turn, catalog, outcome } = await runTurn(provider, "whole", { live: false });

    expect(outcome).toMatchObject({ answer: "Four times a year, for free [2].", modelCalls: 2, toolCalls: 1 });
    expect(provider.server.requests.map((request) => request.url)).toEqual([provider.wholeUrl, provider.wholeUrl]);
    const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
    expect(trace.byType(ModelOutput).map((output) => output.usage?.promptTokens)).toEqual([420, 610]);
  });

  it("a 429 and then an overloaded service: two activity retries, and the turn completes", async () => {
    provider.server.reply(provider.rateLimited, provider.overloaded, provider.stream(SEARCH), provider.stream(ANSWER));
    const { turn, catalog, outcome } = await runTurn(provider, "retried");

    expect(outcome).toMatchObject({ answer: "Four times a year, for free [2].", modelCalls: 2 });
    const [first, second] = await modelAttempts(temporal.client, turn);
    expect(first!.attempt).toBe(3);
    expect(first!.lastFailure).toMatchObject({
      applicationFailureInfo: { type: "TransientError", nonRetryable: false },
    });
    expect(second!.attempt).toBe(1);
    expect(await eventTypes(catalog, turn)).toEqual(["input", "model-output", "tool-output", "model-output"]);
  });

  it("a 400 fails the turn once, non-retryably, with the provider's reason in the workflow's failure and the trace", async () => {
    provider.server.reply(provider.invalid);
    const { turn, catalog, outcome } = await runTurn(provider, "invalid");

    expect(outcome).toBeInstanceOf(WorkflowFailedError);
    const cause = (outcome as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toMatchObject({ type: "ModelRequestError", nonRetryable: true });
    expect(cause.message).toContain(provider.invalidReason);
    expect((await modelAttempts(temporal.client, turn)).map((started) => started.attempt)).toEqual([1]);
    expect(provider.server.requests).toHaveLength(1);
    const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
    expect(trace.events.map((event) => event.type)).toEqual(["input", "failure"]);
    expect(trace.byType(Failure)[0]!.message).toContain(provider.invalidReason);
  });

  it("a stream cut mid-way is retried, and the trace holds each output once", async () => {
    provider.server.reply(
      provider.stream(SEARCH),
      provider.stream(ANSWER, { cutAfter: provider.cutAfter }),
      provider.stream(ANSWER),
    );
    const { turn, catalog, outcome } = await runTurn(provider, "cut");

    expect(outcome).toMatchObject({ answer: "Four times a year, for free [2].", modelCalls: 2 });
    const attempts = await modelAttempts(temporal.client, turn);
    expect(attempts.map((started) => started.attempt)).toEqual([1, 2]);
    expect(attempts[1]!.lastFailure).toMatchObject({
      message: expect.stringContaining("broke off"),
      applicationFailureInfo: { type: "TransientError", nonRetryable: false },
    });
    expect(provider.server.requests).toHaveLength(3);
    expect(await eventTypes(catalog, turn)).toEqual(["input", "model-output", "tool-output", "model-output"]);
  });
});

describe("the request hash", () => {
  it("is the same whichever provider answers: it is taken on the ChatRequest, before the provider's mapping", async () => {
    const hashes: string[] = [];
    for (const provider of PROVIDERS) {
      provider.server.reply(provider.stream(SEARCH), provider.stream(ANSWER));
      const { turn, catalog } = await runTurn(provider, "hash");
      const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
      hashes.push(trace.byType(ModelOutput)[0]!.requestHash!);
    }
    expect(hashes[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(hashes[1]).toBe(hashes[0]);
  });
});
