// AiSdkChatModel through the real @ai-sdk/anthropic package against a local server that speaks
// Anthropic's Messages API: request mapping, whole and streamed outputs, usage, and error mapping.
import { describe, expect, it } from "vitest";
import { createAnthropic } from "@ai-sdk/anthropic";
import { aiSdkProvider, resolveModel } from "../../../src/adapters/ai-sdk/registry.js";
import { ModelRefusalError } from "../../../src/adapters/ai-sdk/errors.js";
import { ModelRequestError } from "../../../src/adapters/model-errors.js";
import { ModelOutput } from "../../../src/domain/events.js";
import {
  AssistantMessage,
  ChatRequest,
  ReasoningDelta,
  SystemMessage,
  ToolDef,
  ToolResult,
  TransientError,
  UserMessage,
  type ChatModel,
  type Fragment,
} from "../../../src/ports/index.js";
import { anthropicError, anthropicMessage, anthropicStream } from "../../fixtures/anthropic-wire.js";
import { WireServer } from "../../fixtures/wire-server.js";

const server = WireServer.forFile("/v1");
const SEARCH = ToolDef({
  name: "search",
  description: "Search the town documents.",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
});
const REQUEST = new ChatRequest(
  [
    SystemMessage("You are the town's assistant."),
    UserMessage("How often?"),
    AssistantMessage("", { toolCalls: [{ id: "toolu_1", name: "search", arguments: { query: "bulky" } }] }),
    ToolResult("toolu_1", "[1] Four times a year."),
  ],
  [SEARCH],
);

function model(adapter = {}): ChatModel {
  const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.baseURL };
  return resolveModel("anthropic:claude-sonnet-4-5", { env, adapter });
}

async function collect(stream: AsyncIterable<Fragment | ModelOutput>): Promise<(Fragment | ModelOutput)[]> {
  const items: (Fragment | ModelOutput)[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

describe("AiSdkChatModel on Anthropic Messages", () => {
  it("sends messages, tool results and tools as the Messages API takes them, with the key in x-api-key", async () => {
    server.reply(anthropicMessage({ text: "Four times a year [1].", usage: { input: 30, output: 8 } }));
    await model({ toolChoice: "required" }).complete(REQUEST);
    const [received] = server.requests;
    expect(received!.url).toBe("/v1/messages");
    expect(received!.headers["x-api-key"]).toBe("test-key");
    expect(received!.body).toMatchObject({
      model: "claude-sonnet-4-5",
      system: [{ type: "text", text: "You are the town's assistant." }],
      messages: [
        { role: "user", content: [{ type: "text", text: "How often?" }] },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_1", name: "search", input: { query: "bulky" } }],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "[1] Four times a year." }] },
      ],
      tools: [{ name: "search", description: "Search the town documents.", input_schema: SEARCH.parameters }],
      tool_choice: { type: "any" },
    });
  });

  it("marks the system prompt and the last message for prompt caching, and sends the reasoning budget", async () => {
    server.reply(anthropicMessage({ text: "Yes.", usage: { input: 30, output: 8 } }));
    await model({
      promptCaching: true,
      providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } },
    }).complete(REQUEST);
    const body = server.requests[0]!.body as {
      system: unknown[];
      messages: { content: unknown[] }[];
      thinking: unknown;
    };
    expect(body.system[0]).toMatchObject({ cache_control: { type: "ephemeral" } });
    expect(body.messages.at(-1)!.content.at(-1)).toMatchObject({ cache_control: { type: "ephemeral" } });
    expect(body.messages[0]!.content.at(-1)).not.toHaveProperty("cache_control");
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });

  it("maps a whole message: text, reasoning, tool calls, finish reason, usage with cached tokens, the request's hash", async () => {
    server.reply(
      anthropicMessage({
        reasoning: "Look it up.",
        text: "Let me search.",
        toolCalls: [{ id: "toolu_2", name: "search", input: { query: "parking" } }],
        usage: { input: 120, output: 15, cached: 100 },
      }),
    );
    const output = await model().complete(REQUEST);
    expect(output).toMatchObject({
      content: "Let me search.",
      reasoning: "Look it up.",
      toolCalls: [{ id: "toolu_2", name: "search", arguments: { query: "parking" } }],
      finishReason: "tool-calls",
      model: "claude-sonnet-4-5",
      usage: { promptTokens: 120, completionTokens: 15, cachedTokens: 100 },
      promptCharacters: REQUEST.characters,
      requestHash: REQUEST.hash,
    });
  });

  it("streams text and reasoning fragments in order, then one output with the assembled tool call and usage", async () => {
    server.reply(
      anthropicStream({
        reasoning: "Think.",
        text: "Four times a year [1].",
        toolCalls: [{ id: "toolu_3", name: "search", input: { query: "bulky waste" } }],
        usage: { input: 50, output: 12, cached: 40 },
      }),
    );
    const items = await collect(model().streamComplete(REQUEST));
    expect(items.slice(0, -1)).toEqual([new ReasoningDelta("Think."), "Four times ", "a year [1]."]);
    expect(server.requests[0]!.body).toMatchObject({ stream: true });
    expect(items.at(-1)).toMatchObject({
      content: "Four times a year [1].",
      reasoning: "Think.",
      toolCalls: [{ id: "toolu_3", name: "search", arguments: { query: "bulky waste" } }],
      finishReason: "tool-calls",
      usage: { promptTokens: 50, completionTokens: 12, cachedTokens: 40 },
    });
  });

  it.each([
    [429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."],
    [529, "overloaded_error", "Overloaded"],
    [500, "api_error", "Internal server error"],
  ])("maps %i (%s) to TransientError with the provider's message and retry-after", async (status, type, message) => {
    server.reply(anthropicError(status, type, message, { "retry-after": "7" }));
    const error = await model()
      .complete(REQUEST)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).message).toContain(`failed with ${status}: ${message}`);
    expect((error as TransientError).retryAfter).toBe(7);
  });

  it("maps 400 to a permanent ModelRequestError with the provider's reason", async () => {
    server.reply(anthropicError(400, "invalid_request_error", "messages: text content blocks must be non-empty"));
    const error = await model()
      .complete(REQUEST)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelRequestError);
    expect(error).not.toBeInstanceOf(TransientError);
    expect((error as ModelRequestError).status).toBe(400);
    expect((error as ModelRequestError).message).toContain("messages: text content blocks must be non-empty");
  });

  it("maps a timeout of the provider's fetch to TransientError, and lets a caller's abort propagate", async () => {
    server.reply({ silent: true }, { silent: true });
    const timed = resolveModel("anthropic:claude-sonnet-4-5", {
      providers: {
        anthropic: aiSdkProvider((name) =>
          createAnthropic({
            apiKey: "test-key",
            baseURL: server.baseURL,
            fetch: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(50) }),
          })(name),
        ),
      },
    });
    const error = await timed.complete(REQUEST).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientError);
    const caller = new AbortController();
    const aborted = model().complete(REQUEST, { signal: caller.signal });
    caller.abort();
    const abort = await aborted.catch((caught: unknown) => caught);
    expect(abort).not.toBeInstanceOf(TransientError);
    expect((abort as Error).name).toBe("AbortError");
  });

  it("maps 401 to a permanent error that says to check the key", async () => {
    server.reply(anthropicError(401, "authentication_error", "invalid x-api-key"));
    const error = await model()
      .complete(REQUEST)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as Error).message).toMatch(/invalid x-api-key.*Check the API key/);
  });

  it("maps a refusal (stop_reason refusal) to a permanent ModelRefusalError", async () => {
    const refused = anthropicMessage({ text: "", usage: { input: 5, output: 1 } });
    (refused.json as { stop_reason: string }).stop_reason = "refusal";
    server.reply(refused);
    const error = await model()
      .complete(REQUEST)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelRefusalError);
    expect((error as ModelRefusalError).reason).toBe("refusal");
  });

  it("raises TransientError for a stream cut mid-way, after the fragments that arrived", async () => {
    server.reply(anthropicStream({ text: "Four times a year.", usage: { input: 5, output: 5 } }, { cutAfter: 4 }));
    const items: unknown[] = [];
    const error = await (async () => {
      for await (const item of model().streamComplete(REQUEST)) items.push(item);
    })().catch((caught: unknown) => caught);
    expect(items).toEqual(["Four time"]);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toContain("broke off");
  });

  it("raises TransientError for an overloaded_error event inside an accepted stream", async () => {
    const stream = anthropicStream({ text: "Four times a year.", usage: { input: 5, output: 5 } });
    stream.events.splice(3, stream.events.length, {
      event: "error",
      data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
    server.reply(stream);
    const error = await collect(model().streamComplete(REQUEST)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toContain("Overloaded");
  });
});
