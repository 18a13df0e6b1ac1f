// AiSdkChatModel through the real @ai-sdk/google package against a local server that speaks Gemini's
// generateContent and streamGenerateContent (SSE): request mapping, outputs, usage, and error mapping.
import { describe, expect, it } from "vitest";
import { resolveModel } from "../../../src/adapters/ai-sdk/registry.js";
import { ModelRefusalError } from "../../../src/adapters/ai-sdk/errors.js";
import { ModelRequestError } from "../../../src/adapters/model-errors.js";
import type { ModelOutput } from "../../../src/domain/events.js";
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
import { geminiError, geminiResponse, geminiStream } from "../../fixtures/gemini-wire.js";
import { WireServer } from "../../fixtures/wire-server.js";

const server = WireServer.forFile("/v1beta");
const SEARCH = ToolDef({
  name: "search",
  description: "Search the town documents.",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
});
const REQUEST = new ChatRequest(
  [
    SystemMessage("You are the town's assistant."),
    UserMessage("How often?"),
    AssistantMessage("", { toolCalls: [{ id: "call_1", name: "search", arguments: { query: "bulky" } }] }),
    ToolResult("call_1", "[1] Four times a year."),
  ],
  [SEARCH],
);

function model(adapter = {}): ChatModel {
  const env = { GOOGLE_GENERATIVE_AI_API_KEY: "test-key", GOOGLE_GENERATIVE_AI_BASE_URL: server.baseURL };
  return resolveModel("google:gemini-2.5-pro", { env, adapter });
}

async function collect(stream: AsyncIterable<Fragment | ModelOutput>): Promise<(Fragment | ModelOutput)[]> {
  const items: (Fragment | ModelOutput)[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

describe("AiSdkChatModel on Gemini generateContent", () => {
  it("sends contents, function responses and declarations as generateContent takes them", async () => {
    server.reply(geminiResponse({ text: "Four times a year [1].", usage: { input: 30, output: 8 } }));
    await model({ toolChoice: { toolName: "search" }, reasoning: "low" }).complete(REQUEST);
    const [received] = server.requests;
    expect(received!.url).toBe("/v1beta/models/gemini-2.5-pro:generateContent");
    expect(received!.headers["x-goog-api-key"]).toBe("test-key");
    expect(received!.body).toMatchObject({
      systemInstruction: { parts: [{ text: "You are the town's assistant." }] },
      contents: [
        { role: "user", parts: [{ text: "How often?" }] },
        { role: "model", parts: [{ functionCall: { name: "search", args: { query: "bulky" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "search" } }] },
      ],
      tools: [{ functionDeclarations: [{ name: "search", description: "Search the town documents." }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["search"] } },
      generationConfig: { thinkingConfig: { thinkingBudget: expect.any(Number) } },
    });
  });

  it("maps a whole response: text, thought, function call, finish reason, usage with cached and reasoning tokens", async () => {
    server.reply(
      geminiResponse({
        reasoning: "Look it up.",
        text: "Let me search.",
        toolCalls: [{ id: "", name: "search", input: { query: "parking" } }],
        usage: { input: 120, output: 25, cached: 100, reasoning: 10 },
      }),
    );
    const output = await model().complete(REQUEST);
    expect(output).toMatchObject({
      content: "Let me search.",
      reasoning: "Look it up.",
      toolCalls: [{ name: "search", arguments: { query: "parking" } }],
      finishReason: "tool-calls",
      model: "gemini-2.5-pro",
      usage: { promptTokens: 120, completionTokens: 25, cachedTokens: 100, reasoningTokens: 10 },
      requestHash: REQUEST.hash,
    });
  });

  it("streams over SSE: fragments in order, then one output with usage", async () => {
    server.reply(
      geminiStream({
        reasoning: "Think.",
        text: "Four times a year [1].",
        usage: { input: 50, output: 12, reasoning: 2 },
      }),
    );
    const items = await collect(model().streamComplete(REQUEST));
    expect(server.requests[0]!.url).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    expect(items.slice(0, -1)).toEqual([new ReasoningDelta("Think."), "Four times ", "a year [1]."]);
    expect(items.at(-1)).toMatchObject({
      content: "Four times a year [1].",
      finishReason: "stop",
      usage: { promptTokens: 50, completionTokens: 12, reasoningTokens: 2 },
    });
  });

  it.each([
    [429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."],
    [503, "UNAVAILABLE", "The model is overloaded. Please try again later."],
  ])("maps %i (%s) to TransientError with the provider's message", async (code, status, message) => {
    server.reply(geminiError(code, status, message));
    const error = await model()
      .complete(REQUEST)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toContain(`failed with ${code}: ${message}`);
  });

  it("maps 400 to a permanent ModelRequestError with the provider's reason", async () => {
    server.reply(geminiError(400, "INVALID_ARGUMENT", 'Invalid JSON payload received. Unknown name "foo".'));
    const error = await model()
      .complete(REQUEST)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as Error).message).toContain('Invalid JSON payload received. Unknown name "foo".');
  });

  it("maps a response blocked for SAFETY to a permanent ModelRefusalError", async () => {
    server.reply(geminiResponse({ usage: { input: 5, output: 0 } }, "SAFETY"));
    const error = await model()
      .complete(REQUEST)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelRefusalError);
    expect((error as ModelRefusalError).reason).toBe("SAFETY");
  });

  it("raises TransientError for a stream cut mid-way, and for one that ends without a finish", async () => {
    const turn = { text: "Four times a year.", usage: { input: 5, output: 5 } };
    server.reply(geminiStream(turn, { cutAfter: 1 }));
    const cut = await collect(model().streamComplete(REQUEST)).catch((caught: unknown) => caught);
    expect(cut).toBeInstanceOf(TransientError);
    expect((cut as Error).message).toContain("broke off");
    server.reply({ events: geminiStream(turn).events.slice(0, 1) });
    const unfinished = await collect(model().streamComplete(REQUEST)).catch((caught: unknown) => caught);
    expect(unfinished).toBeInstanceOf(TransientError);
  });
});
