import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Compaction,
  defineEventType,
  Failure,
  Input,
  ModelOutput,
  referenceType,
  Reopened,
  Request,
  Response,
  sourceType,
  TaskInput,
  ToolOutput,
  Trace,
  ValueError,
  type Event,
  type EventType,
} from "../../../src/domain/index.js";
import { ToolDef, UserMessage, type Message } from "../../../src/ports/index.js";
import { BRACKETS } from "../../../src/runtime/index.js";
import { Budget } from "../../../src/runtime/budget.js";
import {
  MessageBuilder,
  MissingTurnError,
  only,
  renderedBy,
  Text,
  UnrenderedEventError,
  type MessageBuilderOptions,
  type RenderEvent,
} from "../../../src/toolkit/index.js";
import { ModelLimits, Tokens } from "../../../src/toolkit/context/limits.js";

const Document = referenceType("document", { title: z.string() });
const Passage = sourceType("passage");
const Note = defineEventType("note", { text: z.string() });
// A subtype names its parent's fields again: the domain's factory types only the fields it is given.
const Pinned = defineEventType("pinned-note", { text: z.string(), pin: z.boolean() }, { parent: Note });
const Unknown = defineEventType("unknown-kind", {});
const Quoted = defineEventType("quoted-input", { payload: z.string(), model: z.string() }, { parent: Input });

const SEARCH = ToolDef({ name: "search", description: "Search.", parameters: { type: "object" } });
const READ = ToolDef({
  name: "read_document",
  description: "Read one document.",
  parameters: { type: "object" },
  elements: { document: ["document"] },
});
const RECALL = ToolDef({
  name: "recall",
  description: "Show a result again.",
  parameters: { type: "object" },
  results: ["result"],
});

const waste = Document({ id: "waste-collection", title: "Waste collection" });
const bulky = Passage({
  id: "waste-collection#2",
  ref: "waste-collection",
  text: "Bulky waste is picked up four times a year.",
});
const residual = Passage({ id: "waste-collection#0", ref: "waste-collection", text: "Residual waste: Tuesdays." });
const parking = Document({ id: "parking", title: "Parking permits" });
const permit = Passage({ id: "parking#0", ref: "parking", text: "A permit costs 120 euros a year." });

const turnParts = {
  renderInput: renderedBy(Text),
  model: "test-model",
  prompt: (citation: string | null) => `Cite like ${citation}.`,
  tools: [SEARCH, READ, RECALL],
  budget: new Budget(),
  citations: BRACKETS,
  limits: new ModelLimits({ window: new Tokens(32_000) }),
};

const builder = (options: MessageBuilderOptions = {}): MessageBuilder =>
  new MessageBuilder({ ...turnParts, ...options });

/** The first turn of tutorial 2: a search, its elements, and a cited answer. */
function firstTurn(): Event[] {
  return [
    Input({ payload: "How often can I have bulky waste picked up?", model: "test-model" }),
    ModelOutput({ toolCalls: [{ id: "call-1", name: "search", arguments: { query: "bulky waste" } }] }),
    ToolOutput({ callId: "call-1", elements: [waste, bulky, residual] }),
    ModelOutput({
      content: "Four times a year.",
      markers: [{ at: 17, text: " [2]", cited: [{ written: 2, source: bulky.id }] }],
    }),
  ];
}

const contents = (messages: readonly Message[]): unknown[] =>
  messages.map((message) => [message.role, message.content]);

describe("MessageBuilder", () => {
  it("writes the system prompt with the example citation of the strategy, and none without a prompt", () => {
    const trace = Trace.of(firstTurn());
    expect(builder().build(trace).request.messages[0]).toEqual({ role: "system", content: "Cite like [1]." });
    expect(builder({ citations: null }).build(trace).request.messages[0]).toEqual({
      role: "system",
      content: "Cite like null.",
    });
    expect(builder({ prompt: null }).build(trace).request.messages[0]?.role).toBe("user");
  });

  it("renders tutorial 2's first turn: the input, the call, the result as XML, the answer with its markers", () => {
    const context = builder().build(Trace.of(firstTurn()));
    expect(context.request.messages.slice(1)).toEqual([
      { role: "user", content: "How often can I have bulky waste picked up?" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call-1", name: "search", arguments: { query: "bulky waste" } }],
        reasoning: null,
      },
      {
        role: "tool",
        toolCallId: "call-1",
        content:
          `<document id="1" title="Waste collection">\n<passage id="2" cite="[2]">${bulky.text}</passage>\n` +
          `<passage id="3" cite="[3]">${residual.text}</passage>\n</document>`,
      },
      { role: "assistant", content: "Four times a year [2].", toolCalls: [], reasoning: null },
    ]);
    expect(context.request.tools).toEqual([SEARCH, READ, RECALL]);
    expect(context.model).toBe("test-model");
    expect(context.citations).toBe(BRACKETS);
    expect(context.numbering.numberOf(bulky.id)).toBe(2);
  });

  it("shows recorded calls as the model wrote them: element numbers and result handles, not real ids", () => {
    const events = [
      ...firstTurn(),
      Input({ payload: "Read it all.", model: "test-model" }),
      ModelOutput({
        toolCalls: [
          { id: "call-2", name: "read_document", arguments: { document: "waste-collection" } },
          { id: "call-3", name: "recall", arguments: { result: "call-1" } },
        ],
      }),
    ];
    const messages = builder().build(Trace.of(events)).request.messages;
    expect(messages.at(-1)).toMatchObject({
      role: "assistant",
      toolCalls: [
        { id: "call-2", name: "read_document", arguments: { document: "1" } },
        { id: "call-3", name: "recall", arguments: { result: "r1" } },
      ],
    });
  });

  it("lays a result out as its text, its elements, its data as JSON and its error, each after a blank line", () => {
    const events = [
      Input({ payload: "Go.", model: "m" }),
      ModelOutput({
        toolCalls: [
          { id: "a", name: "search", arguments: {} },
          { id: "b", name: "search", arguments: {} },
        ],
      }),
      ToolOutput({ callId: "a", text: "Found one.", elements: [permit], data: { total: 1 }, error: "Page 2 failed." }),
      ToolOutput({ callId: "b", error: "No new passages." }),
      ToolOutput({ text: "Not a call's result." }),
    ];
    const messages = builder().build(Trace.of(events)).request.messages;
    expect(messages.slice(3)).toEqual([
      {
        role: "tool",
        toolCallId: "a",
        content: `Found one.\n\n<passage id="1" cite="[1]">${permit.text}</passage>\n\n{"total":1}\n\nError: Page 2 failed.`,
      },
      { role: "tool", toolCallId: "b", content: "Error: No new passages." },
      { role: "user", content: "Not a call's result." },
    ]);
  });

  it("renders TaskInput by renderInput, Reopened as a result, Request and Response as the exchange, no Failure, and a Compaction's summary in the system message", () => {
    const events = [
      TaskInput({ payload: "Summarise the permit rules.", callId: "parent-call", model: "m" }),
      ModelOutput({ toolCalls: [{ id: "c", name: "search", arguments: {} }] }),
      Reopened({ callId: "c", elements: [permit] }),
      Failure({ error: "TransientError", message: "Service down.", retryable: true }),
      Compaction({ summary: "Earlier: permits.", keptFrom: 0 }),
      Request({ requestId: "q1", text: "Which street do you live on?" }),
      Response({ requestId: "q1", payload: "Main Street" }),
      Response({ requestId: "q2", payload: { street: "Main Street", number: 4 } }),
    ];
    expect(contents(builder({ prompt: null }).build(Trace.of(events)).request.messages)).toEqual([
      ["system", "A summary of the earlier conversation, which the messages below continue:\nEarlier: permits."],
      ["user", "Summarise the permit rules."],
      ["assistant", ""],
      ["tool", `<passage id="1" cite="[1]">${permit.text}</passage>`],
      ["assistant", "Which street do you live on?"],
      ["user", "Main Street"],
      ["user", `{"street":"Main Street","number":4}`],
    ]);
  });

  it("keeps an input out when renderInput returns null", () => {
    const renderInput = (input: Input) => (input.payload === "secret" ? null : UserMessage(String(input.payload)));
    const events = [Input({ payload: "secret", model: "m" }), Input({ payload: "visible", model: "m" })];
    expect(contents(builder({ renderInput, prompt: null }).build(Trace.of(events)).request.messages)).toEqual([
      ["user", "visible"],
    ]);
  });

  it("numbers elements across turns and streams once, and never renumbers them", () => {
    const events = [
      ...firstTurn(),
      TaskInput({ payload: "Find parking rules.", callId: "task", model: "m", stream: "task-1" }),
      ModelOutput({ toolCalls: [{ id: "t1", name: "search", arguments: {} }], stream: "task-1" }),
      ToolOutput({ callId: "t1", elements: [parking], stream: "task-1" }),
      Input({ payload: "And a parking permit?", model: "m" }),
      ModelOutput({ toolCalls: [{ id: "call-2", name: "search", arguments: {} }] }),
      ToolOutput({ callId: "call-2", elements: [parking, permit, bulky] }),
    ];
    const thread = Trace.of(events);
    const context = builder().build(thread.stream("main"));
    expect(context.request.messages.at(-1)?.content).toBe(
      `<document id="4" title="Parking permits">\n<passage id="5" cite="[5]">${permit.text}</passage>\n</document>\n` +
        `<passage id="2" cite="[2]" document="1">${bulky.text}</passage>`,
    );
    expect(context.request.messages.some((message) => message.content === "Find parking rules.")).toBe(false);
    expect(builder().build(thread.stream("task-1")).request.messages.at(-1)?.content).toBe(
      `<document id="4" title="Parking permits"/>`,
    );
  });

  it("selects events with only(), subtypes included, in trace order", () => {
    const events = [TaskInput({ payload: "Task.", callId: "x", model: "m" }), ...firstTurn()];
    const select = only(Input, ModelOutput);
    expect(select(Trace.of(events)).map((event) => event.type)).toEqual([
      "task-input",
      "input",
      "model-output",
      "model-output",
    ]);
    expect(contents(builder({ select, prompt: null }).build(Trace.of(events)).request.messages)).toEqual([
      ["user", "Task."],
      ["user", "How often can I have bulky waste picked up?"],
      ["assistant", ""],
      ["assistant", "Four times a year [2]."],
    ]);
    expect(() => only()).toThrow(ValueError);
  });

  it("keeps the thread's numbers when select leaves earlier turns out", () => {
    const lastTurn = (trace: Trace) => trace.events.slice(4);
    const events = [
      ...firstTurn(),
      Input({ payload: "Parking?", model: "m" }),
      ModelOutput({ toolCalls: [{ id: "call-2", name: "search", arguments: {} }] }),
      ToolOutput({ callId: "call-2", elements: [parking, permit] }),
    ];
    const messages = builder({ select: lastTurn, prompt: null }).build(Trace.of(events)).request.messages;
    expect(contents(messages)).toEqual([
      ["user", "Parking?"],
      ["assistant", ""],
      [
        "tool",
        `<document id="4" title="Parking permits">\n<passage id="5" cite="[5]">${permit.text}</passage>\n</document>`,
      ],
    ]);
  });

  it("renders the agent's own event types by renderers, a subtype by its nearest registered ancestor", () => {
    const renderNote: RenderEvent = (event: Event & { text: string }, show) => [
      UserMessage(`Note: ${event.text} ${show([bulky])}`),
    ];
    const renderPinned: RenderEvent = (event: Event & { text: string }) => [UserMessage(`Pinned: ${event.text}`)];
    const renderQuoted: RenderEvent = () => [UserMessage("never used")];
    const events = [
      ...firstTurn(),
      Note({ text: "a" }),
      Pinned({ text: "b", pin: true }),
      Quoted({ payload: "quoted", model: "m" }),
    ];
    const onlyNote = builder({
      prompt: null,
      renderers: [
        [Note, renderNote],
        [Quoted, renderQuoted],
      ],
    });
    expect(contents(onlyNote.build(Trace.of(events)).request.messages.slice(-3))).toEqual([
      ["user", `Note: a <passage id="2" cite="[2]" document="1">${bulky.text}</passage>`],
      ["user", `Note: b <passage id="2" cite="[2]" document="1">${bulky.text}</passage>`],
      ["user", "quoted"],
    ]);
    const both = builder({
      prompt: null,
      renderers: new Map<EventType<any, any>, RenderEvent>([
        [Note, renderNote],
        [Pinned, renderPinned],
      ]),
    });
    expect(both.build(Trace.of(events)).request.messages.at(-2)?.content).toBe("Pinned: b");
  });

  it("refuses a selected event of a type with no renderer", () => {
    const trace = Trace.of([...firstTurn(), Unknown({})]);
    expect(() => builder().build(trace)).toThrow(UnrenderedEventError);
    expect(() => builder().build(trace)).toThrow(/"unknown-kind" has no renderer/);
    expect(() => builder({ select: only(Input, ModelOutput, ToolOutput) }).build(trace)).not.toThrow();
  });

  it("refuses to build without the parts of a turn, and forTurn gives them without changing the builder", () => {
    const trace = Trace.of(firstTurn());
    const base = new MessageBuilder({ select: only(Input) });
    expect(() => base.build(trace)).toThrow(MissingTurnError);
    expect(() => base.build(trace)).toThrow(/no renderInput and model/);
    expect(() => new MessageBuilder({ renderInput: renderedBy(Text) }).build(trace)).toThrow(/no model/);
    const turn = base.forTurn(turnParts);
    expect(turn).not.toBe(base);
    expect(contents(turn.build(trace).request.messages)).toEqual([
      ["system", "Cite like [1]."],
      ["user", "How often can I have bulky waste picked up?"],
    ]);
    expect(() => base.build(trace)).toThrow(MissingTurnError);
  });

  it("offers the tools until the budget withdraws them", () => {
    const budget = new Budget({ passes: 1, toolRoundsAfterCap: 0 });
    const opening = Trace.of(firstTurn().slice(0, 1));
    expect(
      builder({ budget })
        .build(opening)
        .request.tools.map((tool) => tool.name),
    ).toEqual(["search", "read_document", "recall"]);
    expect(builder({ budget }).build(Trace.of(firstTurn().slice(0, 3))).request.tools).toEqual([]);
    expect(builder({ budget: null }).build(Trace.of(firstTurn().slice(0, 3))).request.tools).toHaveLength(3);
  });

  it("adds the policy's reopen tool, and wraps no step when the policy has no compact", () => {
    const base = new MessageBuilder();
    expect(base.addedTools.map((tool) => tool.name)).toEqual(["reopen"]);
    const step = { plan: () => [], run: () => Promise.resolve([]), done: () => true };
    expect(base.wrap(step as never, turnParts.limits)).toBe(step);
  });

  it("refuses settings of the wrong shape when it is made", () => {
    expect(() => new MessageBuilder({ tools: [SEARCH, SEARCH] })).toThrow(/Two tools are named "search"/);
    expect(() => new MessageBuilder({ renderers: { note: () => [] } as never })).toThrow(ValueError);
    expect(() => new MessageBuilder({ show: "xml" as never })).toThrow(ValueError);
    expect(() => new MessageBuilder({ model: "" })).toThrow(ValueError);
    expect(() => new MessageBuilder({ keep: { threads: 0 } })).toThrow(
      /keep.threads must be a positive integer, not 0/,
    );
    expect(() => new MessageBuilder({ keep: { events: 1.5 } })).toThrow(/keep.events must be a positive integer/);
    expect(() => new MessageBuilder({ keep: 8 as never })).toThrow(/keep must be an object of threads and events/);
  });
});
