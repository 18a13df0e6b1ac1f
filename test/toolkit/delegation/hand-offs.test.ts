import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Input, ModelOutput, TaskInput, ToolOutput, type Event, type ToolCall } from "../../../src/domain/events.js";
import { Trace } from "../../../src/domain/trace.js";
import { parseToolArguments } from "../../../src/ports/tool-arguments.js";
import { Graph } from "../../../src/runtime/graph.js";
import { ElementId, ToolStep } from "../../../src/runtime/index.js";
import { ToolDelegation } from "../../../src/toolkit/index.js";
import { Document, Passage } from "../../../examples/tutorials/02-citations/tools.js";

const RESULT_SCHEMA = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };

const research = new ToolDelegation({
  name: "research",
  description: "Research a question in one document.",
  input: z.object({ question: z.string().min(3), document: ElementId(Document).nullable().default(null) }),
  build: () => new Graph(),
  resultSchema: RESULT_SCHEMA,
});

const SHOWN = ToolOutput({
  callId: "c0",
  elements: [Document({ id: "waste", title: "Waste" }), Passage({ id: "waste#1", ref: "waste", text: "Bulky waste." })],
});

/** The parent stream: an input on `model`, a result that showed a document and a passage, and an output with `calls`. */
function parent(calls: ToolCall[], options: { stream?: string; model?: string | null } = {}): Trace {
  const stream = options.stream ?? "main";
  const opening =
    stream === "main"
      ? Input({ payload: "Hi", model: options.model ?? "gpt-test" })
      : TaskInput({ payload: "Hi", model: options.model ?? "gpt-test", callId: "p0" });
  const events: Event[] = [
    opening,
    ModelOutput({ toolCalls: [{ id: "c0", name: "search", arguments: {} }] }),
    SHOWN,
    ModelOutput({ toolCalls: calls }),
  ];
  return Trace.of(events.map((event) => ({ ...event, stream }))).stream(stream);
}

describe("handOffs", () => {
  it("gives one TaskInput per call of the delegation, in call order, each on a stream of its own", () => {
    const handed = research.handOffs(
      parent([
        { id: "a", name: "research", arguments: { question: "When is bulky waste picked up?", document: "waste" } },
        { id: "b", name: "search", arguments: { query: "permits" } },
        { id: "c", name: "research", arguments: { question: "What does a permit cost?" } },
      ]),
    );
    expect(handed.map((event) => [event.type, event.stream, (event as TaskInput).callId])).toEqual([
      ["task-input", "task-a", "a"],
      ["task-input", "task-c", "c"],
    ]);
    const [first, second] = handed as TaskInput[];
    expect(first!.payload).toEqual({ question: "When is bulky waste picked up?", document: "waste" });
    expect(second!.payload).toEqual({ question: "What does a permit cost?" });
    expect(first!.expects).toEqual(RESULT_SCHEMA);
    expect(first!.actor).toBe("model");
  });

  it("runs a task on the model of the parent's latest input", () => {
    const [task] = research.handOffs(
      parent([{ id: "a", name: "research", arguments: { question: "Bins?" } }], { model: "gpt-parent" }),
    ) as TaskInput[];
    expect(task!.model).toBe("gpt-parent");
  });

  it("puts the task of a call made inside a task on a stream under the task's own", () => {
    const [task] = research.handOffs(
      parent([{ id: "a", name: "research", arguments: { question: "Bins?" } }], { stream: "task-p0" }),
    );
    expect(task!.stream).toBe("task-p0/task-a");
  });

  it("gives a call whose arguments do not fit an error as its result, and no task", () => {
    const handed = research.handOffs(
      parent([
        { id: "a", name: "research", arguments: { question: "Hi" } },
        { id: "b", name: "research", arguments: { question: "Bulky waste?", topic: "waste" } },
        { id: "c", name: "research", arguments: { question: "Bulky waste?", document: "7" } },
        { id: "d", name: "research", arguments: { question: "Bulky waste?", document: "waste#1" } },
        { id: "e", name: "research", arguments: parseToolArguments("{question:") },
        { id: "f", name: "research", arguments: { question: "Bulky waste?" } },
      ]),
    );
    expect(handed.map((event) => [event.type, event.stream])).toEqual([
      ...["a", "b", "c", "d", "e"].map(() => ["tool-output", "main"]),
      ["task-input", "task-f"],
    ]);
    const errors = (handed.slice(0, 5) as ToolOutput[]).map((output) => [output.callId, output.error]);
    expect(errors[0]).toEqual([
      "a",
      expect.stringMatching(/^The arguments of research do not fit its schema \(question: /),
    ]);
    expect(errors[1]).toEqual(["b", expect.stringMatching(/topic/)]);
    expect(errors[2]).toEqual(["c", "No document has the number 7. Use a number that a result showed."]);
    expect(errors[3]).toEqual(["d", expect.stringMatching(/not the number of a document/)]);
    expect(errors[4]).toEqual([
      "e",
      expect.stringMatching(/^The arguments of research are not a JSON object: \{question:/),
    ]);
  });

  it("shows an input that is not an object under `input`, and records the value itself as the payload", () => {
    const ask = new ToolDelegation({
      name: "ask",
      description: "Ask.",
      input: z.string().min(2),
      build: () => new Graph(),
    });
    const handed = ask.handOffs(
      parent([
        { id: "a", name: "ask", arguments: { input: "Where is the town hall?" } },
        { id: "b", name: "ask", arguments: { question: "Where?" } },
      ]),
    );
    expect((handed[0] as TaskInput).payload).toBe("Where is the town hall?");
    expect((handed[1] as ToolOutput).error).toMatch(/input/);
  });

  it("makes a ToolStep plan a task for each call that starts one, and run the refusal of one that does not", async () => {
    const step = new ToolStep({ tools: [research] });
    const trace = parent([
      { id: "a", name: "research", arguments: { question: "Bulky waste?" } },
      { id: "b", name: "research", arguments: { question: "Hi" } },
    ]);
    const context = { threadId: "t", agent: null, stream: "main", node: "tools", trace: trace.thread };
    expect(step.plan(context).map((unit) => [unit.key, unit.kind])).toEqual([
      ["a", "task"],
      ["b", "tool"],
    ]);
    expect(step.delegation(context, "a")).toBe(research);
    expect(step.delegation(context, "b")).toBeNull();
    const [refused] = (await step.run(context, "b")) as ToolOutput[];
    expect(refused).toMatchObject({ type: "tool-output", callId: "b", stream: "main", origin: "tools" });
    expect(refused!.error).toMatch(/do not fit/);
    await expect(step.run(context, "a")).rejects.toThrow(/"task" unit/);
  });
});
