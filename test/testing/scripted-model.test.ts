import { describe, expect, it } from "vitest";
import { CallerError, ValueError } from "../../src/domain/errors.js";
import { ModelOutput } from "../../src/domain/events.js";
import {
  ChatRequest,
  ReasoningDelta,
  TransientError,
  UNPARSED_ARGUMENTS,
  UserMessage,
  preparesRequests,
  type Fragment,
} from "../../src/ports/index.js";
import { ScriptExhaustedError, ScriptedModel } from "../../src/testing/index.js";

const ASK = new ChatRequest([UserMessage("How often is bulky waste picked up?")]);
const AGAIN = new ChatRequest([UserMessage("And a parking permit?")]);

async function collect(stream: AsyncIterable<Fragment | ModelOutput>): Promise<(Fragment | ModelOutput)[]> {
  const items: (Fragment | ModelOutput)[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

describe("ScriptedModel", () => {
  it("replays its outputs in order, with markers left in the text for the runtime", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search", arguments: { query: "bulky waste" } }] },
      "Four times a year [2].",
    ]);

    const first = await model.complete(ASK);
    const second = await model.complete(AGAIN);

    expect(first).toMatchObject({
      content: "",
      finishReason: "tool_calls",
      model: "scripted",
      toolCalls: [{ id: "call_1", name: "search", arguments: { query: "bulky waste" } }],
      promptCharacters: ASK.characters,
      requestHash: ASK.hash,
    });
    expect(ModelOutput.is(second)).toBe(true);
    expect(second).toMatchObject({
      content: "Four times a year [2].",
      markers: [],
      toolCalls: [],
      finishReason: "stop",
      reasoning: null,
    });
    expect(model.remaining).toBe(0);
  });

  it("records every request and the model option of each call", async () => {
    const model = new ScriptedModel(["one", "two", "three"], { name: "town-model" });

    await model.complete(ASK);
    await model.complete(AGAIN, { model: "big-model" });
    await collect(model.streamComplete(ASK, { model: null }));

    expect(model.requests).toEqual([ASK, AGAIN, ASK]);
    expect(model.models).toEqual([null, "big-model", null]);
    expect(model.resolve(null)).toBe("town-model");
    expect((await model.prepare(ASK, { model: "big-model" })).settings).toEqual({ model: "big-model" });
    expect(preparesRequests(model)).toBe(true);
  });

  it("records the model a call names, unless the script names one", async () => {
    const model = new ScriptedModel(["a", { content: "b", model: "answering-model" }]);

    expect((await model.complete(ASK, { model: "big-model" })).model).toBe("big-model");
    expect((await model.complete(ASK, { model: "big-model" })).model).toBe("answering-model");
  });

  it("generates tool-call ids in script order, skipping ids the script names", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search" }, { id: "call_2", name: "search" }] },
      { toolCalls: [{ name: "read_document", arguments: { document: "1" } }] },
    ]);

    const ids = [...(await model.complete(ASK)).toolCalls, ...(await model.complete(AGAIN)).toolCalls].map(
      (call) => call.id,
    );

    expect(ids).toEqual(["call_1", "call_2", "call_3"]);
  });

  it("parses argument text like a model's, keeping text that is not JSON", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "search", arguments: '{"query":"dogs"}' },
          { name: "search", arguments: "{query" },
        ],
      },
    ]);

    const output = await model.complete(ASK);

    expect(output.toolCalls.map((call) => call.arguments)).toEqual([
      { query: "dogs" },
      { [UNPARSED_ARGUMENTS]: "{query" },
    ]);
  });

  it("accepts a whole ModelOutput, and keeps its reasoning, usage and finish reason", async () => {
    const model = new ScriptedModel([
      ModelOutput({
        content: "42",
        reasoning: "Six times seven.",
        usage: { promptTokens: 3, completionTokens: 1 },
        finishReason: "length",
      }),
    ]);

    expect(await model.complete(ASK)).toMatchObject({
      content: "42",
      reasoning: "Six times seven.",
      usage: { promptTokens: 3, completionTokens: 1 },
      finishReason: "length",
    });
  });

  it("throws a CallerError naming how many outputs it had when it runs out", async () => {
    const model = new ScriptedModel(["only one"]);
    await model.complete(ASK);

    const error = await model.complete(AGAIN).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect(error).toBeInstanceOf(CallerError);
    expect((error as Error).message).toMatch(/had 1 output and replayed them all: call 2 has none/);
    expect(model.requests).toEqual([ASK, AGAIN]);
  });

  it("throws an Error of the script at its call", async () => {
    const model = new ScriptedModel([new TransientError("service down"), "back"]);

    await expect(model.complete(ASK)).rejects.toThrow(TransientError);
    expect((await model.complete(ASK)).content).toBe("back");
  });

  it("streams reasoning as ReasoningDeltas, then the text in a few fragments, then the output", async () => {
    const model = new ScriptedModel([
      { content: "Bulky waste is picked up four times a year [2].", reasoning: "The passage says so." },
    ]);

    const items = await collect(model.streamComplete(ASK));
    const output = items.at(-1) as ModelOutput;
    const reasoning = items.filter((item): item is ReasoningDelta => item instanceof ReasoningDelta);
    const text = items.filter((item): item is string => typeof item === "string");

    expect(ModelOutput.is(output)).toBe(true);
    expect(items.filter((item) => ModelOutput.is(item as ModelOutput))).toHaveLength(1);
    expect(items.indexOf(reasoning.at(-1)!)).toBeLessThan(items.indexOf(text[0]!));
    expect(reasoning.map((delta) => delta.text).join("")).toBe("The passage says so.");
    expect(text.length).toBeGreaterThan(1);
    expect(text.join("")).toBe(output.content);
  });

  it("refuses a bad script at construction", () => {
    expect(() => new ScriptedModel([{ toolCalls: [{ name: "" }] }])).toThrow(ValueError);
    expect(() => new ScriptedModel([{ content: "x", markers: [{ at: 0, text: "[1]", cited: [] }] }])).toThrow(
      /write them in the content/,
    );
    expect(() => new ScriptedModel([42 as never])).toThrow(/Output 1 of the ScriptedModel script/);
  });
});
