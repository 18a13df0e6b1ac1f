import { describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../../src/adapters/openai/chat-model.js";
import { ModelOutput } from "../../../src/domain/events.js";
import {
  ChatRequest,
  ReasoningDelta,
  ToolDef,
  TransientError,
  UserMessage,
  type Fragment,
} from "../../../src/ports/index.js";
import { CompatibleServer, chunk, usageChunk } from "../../fixtures/openai-compatible-server.js";

const SEARCH = ToolDef({
  name: "search",
  description: "Search.",
  parameters: { type: "object", properties: { query: { type: "string" } } },
});
const LOOKUP = ToolDef({
  name: "lookup",
  description: "Look up.",
  parameters: { type: "object", properties: { id: { type: "integer" } } },
});

const server = CompatibleServer.forFile();

async function collect(stream: AsyncIterable<Fragment | ModelOutput>): Promise<(Fragment | ModelOutput)[]> {
  const items: (Fragment | ModelOutput)[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

describe("OpenAIChatModel.streamComplete", () => {
  it("yields text fragments in arrival order, then exactly one complete output", async () => {
    server.reply({
      chunks: [
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Four times " }),
        chunk({ content: "a year " }),
        chunk({ content: "[2]." }, "stop"),
        usageChunk(20, 5),
      ],
    });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });
    const request = new ChatRequest([UserMessage("How often?")]);

    const items = await collect(model.streamComplete(request));

    expect(items.slice(0, -1)).toEqual(["Four times ", "a year ", "[2]."]);
    const output = items.at(-1) as ModelOutput;
    expect(ModelOutput.is(output)).toBe(true);
    expect(output).toMatchObject({
      content: "Four times a year [2].",
      finishReason: "stop",
      model: "town-model",
      usage: { promptTokens: 20, completionTokens: 5 },
      promptCharacters: request.characters,
      requestHash: request.hash,
    });
    expect(server.lastBody).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      model: "town-model",
    });
  });

  it("yields reasoning as ReasoningDeltas before the text, and records the whole reasoning", async () => {
    server.reply({
      chunks: [
        chunk({ reasoning_content: "Six " }),
        chunk({ reasoning_content: "times seven." }),
        chunk({ reasoning: " Check." }),
        chunk({ content: "42" }, "stop"),
      ],
    });
    const model = new OpenAIChatModel(server.client(), { model: "thinker" });

    const items = await collect(model.streamComplete(new ChatRequest([UserMessage("6*7?")])));

    expect(items.slice(0, -1)).toEqual([
      new ReasoningDelta("Six "),
      new ReasoningDelta("times seven."),
      new ReasoningDelta(" Check."),
      "42",
    ]);
    expect(items.at(-1)).toMatchObject({ content: "42", reasoning: "Six times seven. Check.", usage: null });
  });

  it("assembles tool-call deltas by index, whatever order they interleave in", async () => {
    server.reply({
      chunks: [
        chunk({
          tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "search", arguments: "" } }],
        }),
        chunk({
          tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "lookup", arguments: '{"id"' } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"query":' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: ":7}" } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"bulky waste"}' } }] }),
        chunk({}, "tool_calls"),
      ],
    });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });

    const items = await collect(model.streamComplete(new ChatRequest([UserMessage("bulky?")], [SEARCH, LOOKUP])));

    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      content: "",
      finishReason: "tool_calls",
      toolCalls: [
        { id: "call_a", name: "search", arguments: { query: "bulky waste" } },
        { id: "call_b", name: "lookup", arguments: { id: 7 } },
      ],
    });
  });

  it("raises TransientError for a stream cut mid-way, after the fragments that arrived", async () => {
    server.reply({ chunks: [chunk({ content: "Four times " }), chunk({ content: "a year" })], cut: true });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });
    const items: (Fragment | ModelOutput)[] = [];

    const reading = (async () => {
      for await (const item of model.streamComplete(new ChatRequest([UserMessage("How often?")]))) items.push(item);
    })();

    await expect(reading).rejects.toBeInstanceOf(TransientError);
    await expect(reading).rejects.toThrow(/broke off/);
    expect(items).toEqual(["Four times ", "a year"]);
  });

  it("raises TransientError for a stream that ends without a finish reason", async () => {
    server.reply({ chunks: [chunk({ content: "Four times " })] });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });

    const reading = collect(model.streamComplete(new ChatRequest([UserMessage("How often?")])));

    await expect(reading).rejects.toThrow(TransientError);
    await expect(reading).rejects.toThrow(/ended before the model finished/);
  });

  it("raises TransientError for an error event inside the stream", async () => {
    server.reply({
      chunks: [chunk({ content: "Four" }), { error: { message: "engine overloaded", type: "server_error" } }],
    });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });

    const reading = collect(model.streamComplete(new ChatRequest([UserMessage("How often?")])));

    await expect(reading).rejects.toThrow(TransientError);
    await expect(reading).rejects.toThrow(/engine overloaded/);
  });

  it("maps a refusal before the stream starts like complete does", async () => {
    server.reply({ status: 429, headers: { "retry-after": "7" }, json: { error: { message: "rate limited" } } });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });

    const error = await collect(model.streamComplete(new ChatRequest([UserMessage("hi")]))).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).retryAfter).toBe(7);
    expect(server.requests).toHaveLength(1);
  });
});
