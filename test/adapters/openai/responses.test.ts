// OpenAIResponsesModel against a local server that speaks POST /v1/responses, through the real `openai` client.
import { describe, expect, it } from "vitest";
import { ModelRequestError } from "../../../src/adapters/openai/errors.js";
import { RESPONSES_KEY } from "../../../src/adapters/openai/responses-kept.js";
import { OpenAIResponsesModel } from "../../../src/adapters/openai/responses-model.js";
import { ValueError } from "../../../src/domain/errors.js";
import { ModelOutput } from "../../../src/domain/events.js";
import {
  AssistantMessage,
  ChatRequest,
  ImagePart,
  ReasoningDelta,
  SystemMessage,
  TextPart,
  ToolDef,
  ToolResult,
  TransientError,
  UserMessage,
  type Fragment,
} from "../../../src/ports/index.js";
import { CompatibleServer } from "../../fixtures/openai-compatible-server.js";
import {
  callItem,
  errorReply,
  messageItem,
  reasoningItem,
  responseReply,
  responseStream,
} from "../../fixtures/responses-wire.js";

const SEARCH = ToolDef({
  name: "search",
  description: "Search the town documents.",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  elements: { document: ["document"] },
});
const QUESTION = new ChatRequest([SystemMessage("Answer from the documents."), UserMessage("How often?")], [SEARCH]);
const PIXEL = new Uint8Array([137, 80, 78, 71]);

const server = CompatibleServer.forFile();
const modelOf = (name = "gpt-4.1", settings = {}) =>
  new OpenAIResponsesModel(server.client(), { model: name, settings });

async function streamed(model: OpenAIResponsesModel, request: ChatRequest) {
  const fragments: Fragment[] = [];
  let output: ModelOutput | undefined;
  for await (const item of model.streamComplete(request)) {
    if (ModelOutput.is(item)) output = item;
    else fragments.push(item);
  }
  return { fragments, output: output! };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("the call succeeded; it should have failed"),
    (error: unknown) => error,
  );
}

describe("OpenAIResponsesModel request mapping", () => {
  it("sends messages as input items, calls and results as function_call items, tools as function tools", async () => {
    server.reply(responseReply([messageItem("Four times a year.")]));
    const request = new ChatRequest(
      [
        SystemMessage("Answer."),
        UserMessage([TextPart("What is this?"), ImagePart(PIXEL, { name: "scan.png" })]),
        AssistantMessage("", { toolCalls: [{ id: "call_7", name: "search", arguments: { query: "bulky" } }] }),
        ToolResult("call_7", "<passage>four times</passage>"),
        AssistantMessage("Four times."),
      ],
      [SEARCH],
    );
    await modelOf("gpt-4.1", { tool_choice: "required", max_output_tokens: 500 }).complete(request);

    expect(server.requests[0]!.url).toBe("/v1/responses");
    expect(server.lastBody).toEqual({
      model: "gpt-4.1",
      store: false,
      tool_choice: "required",
      max_output_tokens: 500,
      input: [
        { role: "system", content: "Answer." },
        {
          role: "user",
          content: [
            { type: "input_text", text: "What is this?" },
            { type: "input_image", image_url: "data:image/png;base64,iVBORw==", detail: "auto" },
          ],
        },
        { type: "function_call", call_id: "call_7", name: "search", arguments: '{"query":"bulky"}' },
        { type: "function_call_output", call_id: "call_7", output: "<passage>four times</passage>" },
        { role: "assistant", content: "Four times." },
      ],
      tools: [
        {
          type: "function",
          name: "search",
          description: "Search the town documents.",
          parameters: SEARCH.parameters,
          strict: false,
        },
      ],
    });
  });

  it("prepare shows the settings and what it changed, without a call", async () => {
    const request = new ChatRequest([UserMessage([ImagePart(PIXEL, { name: "scan.png" })])]);
    const prepared = await modelOf("gpt-5").prepare(request);
    expect(prepared.settings).toEqual({ model: "gpt-5", store: false, include: ["reasoning.encrypted_content"] });
    expect(prepared.changes).toEqual(["image names dropped: the Responses API sends no name with an image"]);
    expect(server.requests).toHaveLength(0);
  });

  it("refuses settings the adapter owns, and a bad include, at construction", () => {
    expect(() => modelOf("gpt-5", { input: [] })).toThrow(ValueError);
    expect(() => modelOf("gpt-5", { input: [] })).toThrow(/cannot hold input/);
    expect(() => modelOf("gpt-5", { include: "x" })).toThrow(/include must be a list of texts/);
    expect(() => new OpenAIResponsesModel(server.client(), { model: "" })).toThrow(/needs a model/);
  });
});

describe("OpenAIResponsesModel outputs", () => {
  it("maps text, calls, usage with cached and reasoning tokens, and the finish reason", async () => {
    server.reply(
      responseReply([messageItem("Let me look."), callItem("search", { query: "bulky" })], {
        usage: { input: 120, output: 30, cached: 64, reasoning: 12 },
      }),
    );
    const output = await modelOf().complete(QUESTION);
    expect(output).toMatchObject({
      content: "Let me look.",
      toolCalls: [{ id: "call_1", name: "search", arguments: { query: "bulky" } }],
      finishReason: "tool_calls",
      model: "gpt-4.1",
      usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 64, reasoningTokens: 12 },
      requestHash: QUESTION.hash,
    });
    // No reasoning item with encrypted content: nothing to keep, the output is sent back as text and calls.
    expect(output.providerData).toBeUndefined();
  });

  it("maps an incomplete response's reason: max_output_tokens is length", async () => {
    server.reply(
      responseReply([messageItem("Four ti")], { status: "incomplete", incompleteReason: "max_output_tokens" }),
    );
    expect((await modelOf().complete(QUESTION)).finishReason).toBe("length");
  });

  it("streams text and reasoning summary deltas in order, and records the same output as a whole response", async () => {
    const items = [
      reasoningItem(["Look it up.", "Then answer."], { encrypted: "enc-1" }),
      messageItem("Four times a year [2]."),
    ];
    server.reply(responseStream(items, { piece: 5, usage: { input: 50, output: 9, reasoning: 4 } }));
    server.reply(responseReply(items, { usage: { input: 50, output: 9, reasoning: 4 } }));
    const model = modelOf("gpt-5");
    const { fragments, output } = await streamed(model, QUESTION);
    const whole = await model.complete(QUESTION);

    const reasoning = fragments.filter((fragment) => fragment instanceof ReasoningDelta).map((delta) => delta.text);
    expect(reasoning.join("")).toBe("Look it up.\n\nThen answer.");
    expect(fragments.filter((fragment) => typeof fragment === "string")).toEqual([
      "Four ",
      "times",
      " a ye",
      "ar [2",
      "].",
    ]);
    expect(fragments.findIndex((fragment) => typeof fragment === "string")).toBeGreaterThan(
      fragments.findLastIndex((fragment) => fragment instanceof ReasoningDelta),
    );
    expect(output.reasoning).toBe("Look it up.\n\nThen answer.");
    expect(output.usage).toEqual({ promptTokens: 50, completionTokens: 9, cachedTokens: 0, reasoningTokens: 4 });
    expect(server.requests[0]!.body).toMatchObject({ stream: true, include: ["reasoning.encrypted_content"] });
    const { seq: _a, ts: _b, ...fromStream } = output;
    const { seq: _c, ts: _d, ...fromWhole } = whole;
    expect(fromStream).toEqual(fromWhole);
  });

  it("assembles a streamed call's arguments from their deltas", async () => {
    server.reply(
      responseStream([callItem("search", { query: "bulky waste pickup" }, { callId: "call_9" })], { piece: 3 }),
    );
    const { output } = await streamed(modelOf(), QUESTION);
    expect(output.toolCalls).toEqual([{ id: "call_9", name: "search", arguments: { query: "bulky waste pickup" } }]);
  });
});

describe("OpenAIResponsesModel reasoning items", () => {
  const THINKING = [
    reasoningItem(["Search first."], { id: "rs_a", encrypted: "gAAAA-secret" }),
    callItem("search", { query: "bulky" }, { id: "fc_a", callId: "call_a" }),
  ];

  async function firstAndNext(model: OpenAIResponsesModel, reasoning: "sent" | "not sent") {
    server.reply(responseReply(THINKING), responseReply([messageItem("Four times.")]));
    const first = await model.complete(QUESTION);
    const recorded = AssistantMessage(first.content, {
      toolCalls: first.toolCalls,
      reasoning: reasoning === "sent" ? first.reasoning : null,
      providerData: first.providerData!,
    });
    const next = new ChatRequest([...QUESTION.messages, recorded, ToolResult("call_a", "<passage/>")], [SEARCH]);
    await model.complete(next);
    return { first, input: (server.lastBody.input as unknown[]).slice(2) };
  }

  it("keeps a reasoning model's reasoning items in providerData and sends them back before their call, with ids", async () => {
    const { first, input } = await firstAndNext(modelOf("gpt-5"), "sent");
    expect(first.providerData).toEqual({
      [RESPONSES_KEY]: {
        model: "gpt-5",
        items: [
          { type: "reasoning", id: "rs_a", encryptedContent: "gAAAA-secret", summary: ["Search first."] },
          { type: "function_call", id: "fc_a", callId: "call_a" },
        ],
      },
    });
    expect(input).toEqual([
      {
        type: "reasoning",
        id: "rs_a",
        summary: [{ type: "summary_text", text: "Search first." }],
        encrypted_content: "gAAAA-secret",
      },
      { type: "function_call", id: "fc_a", call_id: "call_a", name: "search", arguments: '{"query":"bulky"}' },
      { type: "function_call_output", call_id: "call_a", output: "<passage/>" },
    ]);
  });

  it("sends the encrypted item without its summary when the context sends no reasoning back", async () => {
    const { input } = await firstAndNext(modelOf("gpt-5"), "not sent");
    expect(input[0]).toEqual({ type: "reasoning", id: "rs_a", summary: [], encrypted_content: "gAAAA-secret" });
  });

  it("sends another model's output without its reasoning items or ids, and says so in prepare", async () => {
    const model = modelOf("gpt-5");
    server.reply(responseReply(THINKING));
    const first = await model.complete(QUESTION);
    const recorded = AssistantMessage("", { toolCalls: first.toolCalls, providerData: first.providerData! });
    const next = new ChatRequest([UserMessage("hi"), recorded, ToolResult("call_a", "x")]);
    server.reply(responseReply([messageItem("ok")]));
    await model.complete(next, { model: "o3" });
    expect(server.lastBody.input).toEqual([
      { role: "user", content: "hi" },
      { type: "function_call", call_id: "call_a", name: "search", arguments: '{"query":"bulky"}' },
      { type: "function_call_output", call_id: "call_a", output: "x" },
    ]);
    expect((await model.prepare(next, { model: "o3" })).changes).toEqual([
      "reasoning items of another model dropped: only those of o3 are sent back",
    ]);
  });
});

describe("OpenAIResponsesModel errors", () => {
  it("maps 429 and 503 to TransientError, the retry-after kept", async () => {
    server.reply(
      errorReply(429, "Rate limit reached for gpt-5", { "retry-after": "2" }),
      errorReply(503, "Overloaded"),
    );
    const limited = await failure(modelOf().complete(QUESTION));
    expect(limited).toBeInstanceOf(TransientError);
    expect((limited as TransientError).retryAfter).toBe(2);
    expect(await failure(modelOf().complete(QUESTION))).toBeInstanceOf(TransientError);
  });

  it("maps 400 to a ModelRequestError that keeps the provider's reason and is not retryable", async () => {
    server.reply(errorReply(400, "Invalid schema for function 'search'."));
    const error = await failure(modelOf().complete(QUESTION));
    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as ModelRequestError).retryable).toBe(false);
    expect((error as Error).message).toContain(
      "refused the call of gpt-4.1 with 400: Invalid schema for function 'search'.",
    );
  });

  it("maps a stream cut mid-way, an error event and a failed response to TransientError", async () => {
    const items = [messageItem("Four times a year.")];
    server.reply(responseStream(items, { cutAfter: 4 }));
    const cut = await failure(streamed(modelOf(), QUESTION));
    expect(cut).toBeInstanceOf(TransientError);
    expect((cut as Error).message).toContain("The streamed response of gpt-4.1 broke off");
    // A stream that ends in good order before response.completed: the output is not whole.
    server.reply({ chunks: responseStream(items).chunks.slice(0, 4), named: true });
    const short = await failure(streamed(modelOf(), QUESTION));
    expect(short).toBeInstanceOf(TransientError);
    expect((short as Error).message).toContain("ended before the model finished its output");
    server.reply({
      chunks: [{ type: "error", code: "server_error", message: "The server had an error.", sequence_number: 0 }],
      named: true,
    });
    const event = await failure(streamed(modelOf(), QUESTION));
    expect(event).toBeInstanceOf(TransientError);
    expect((event as Error).message).toContain("(server_error): The server had an error.");
    const failed = responseStream(items, { status: "failed" });
    (failed.chunks.at(-1) as { response: Record<string, unknown> }).response.error = {
      code: "server_error",
      message: "Something broke.",
    };
    server.reply(failed);
    expect(await failure(streamed(modelOf(), QUESTION))).toBeInstanceOf(TransientError);
  });
});
