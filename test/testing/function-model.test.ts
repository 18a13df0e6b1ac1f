import { describe, expect, it } from "vitest";
import { ModelOutput } from "../../src/domain/events.js";
import { ChatRequest, ToolDef, ToolResult, TransientError, UserMessage, type Fragment } from "../../src/ports/index.js";
import { FunctionModel, type ModelCall } from "../../src/testing/index.js";

const SEARCH = ToolDef({
  name: "search",
  description: "Search.",
  parameters: { type: "object", properties: { query: { type: "string" } } },
});

async function collect(stream: AsyncIterable<Fragment | ModelOutput>): Promise<(Fragment | ModelOutput)[]> {
  const items: (Fragment | ModelOutput)[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

describe("FunctionModel", () => {
  it("computes each output from the request and the call", async () => {
    const calls: ModelCall[] = [];
    const model = new FunctionModel(
      (request, call) => {
        calls.push(call);
        const last = request.messages.at(-1);
        if (last?.role === "user" && typeof last.content === "string") {
          return { toolCalls: [{ name: "search", arguments: { query: last.content } }] };
        }
        return `Read: ${last?.content as string} [1]`;
      },
      { name: "echo" },
    );

    const first = await model.complete(new ChatRequest([UserMessage("dogs")], [SEARCH]));
    const call = first.toolCalls[0]!;
    const second = await model.complete(
      new ChatRequest([UserMessage("dogs"), ToolResult(call.id, "Dogs pay tax.")], [SEARCH]),
      { model: "big" },
    );

    expect(call).toEqual({ id: "call_1", name: "search", arguments: { query: "dogs" } });
    expect(second).toMatchObject({ content: "Read: Dogs pay tax. [1]", model: "big", finishReason: "stop" });
    expect(calls).toEqual([
      { index: 0, model: "echo" },
      { index: 1, model: "big" },
    ]);
    expect(model.requests).toHaveLength(2);
    expect(model.models).toEqual([null, "big"]);
  });

  it("numbers generated ids across calls, skipping ids the function names", async () => {
    const model = new FunctionModel((_request, call) =>
      call.index === 0
        ? { toolCalls: [{ id: "call_1", name: "search" }] }
        : { toolCalls: [{ name: "search" }, { name: "search" }] },
    );
    const request = new ChatRequest([UserMessage("x")], [SEARCH]);

    const ids = [...(await model.complete(request)).toolCalls, ...(await model.complete(request)).toolCalls].map(
      (call) => call.id,
    );

    expect(ids).toEqual(["call_1", "call_2", "call_3"]);
  });

  it("lets what the function throws propagate", async () => {
    const model = new FunctionModel(async () => {
      await Promise.resolve();
      throw new TransientError("service down");
    });

    await expect(model.complete(new ChatRequest([UserMessage("x")]))).rejects.toThrow(TransientError);
    await expect(collect(model.streamComplete(new ChatRequest([UserMessage("x")])))).rejects.toThrow(TransientError);
  });

  it("streams the text in fragments and ends with the output", async () => {
    const model = new FunctionModel(() => "Residual waste is collected every Tuesday morning [3].");

    const items = await collect(model.streamComplete(new ChatRequest([UserMessage("When?")])));

    expect(ModelOutput.is(items.at(-1) as ModelOutput)).toBe(true);
    expect(items.slice(0, -1).join("")).toBe("Residual waste is collected every Tuesday morning [3].");
    expect(items.length).toBeGreaterThan(2);
  });
});
