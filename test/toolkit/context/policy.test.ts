import { describe, expect, it } from "vitest";
import { ValueError } from "../../../src/domain/errors.js";
import { Input, ModelOutput, Reopened, type Event } from "../../../src/domain/events.js";
import { Trace } from "../../../src/domain/trace.js";
import {
  ImagePart,
  TextPart,
  ToolDef,
  UserMessage,
  type Message,
  type ToolResult,
} from "../../../src/ports/messages.js";
import { BRACKETS } from "../../../src/runtime/citations.js";
import { Budget } from "../../../src/runtime/budget.js";
import { renderedBy } from "../../../src/toolkit/inputs/render.js";
import { Text } from "../../../src/toolkit/inputs/input-types.js";
import type { RenderInput } from "../../../src/toolkit/inputs/render.js";
import {
  ALWAYS,
  COMPRESSED,
  CURRENT_TURN,
  Compress,
  ContextFullError,
  ContextPolicy,
  Floor,
  Forms,
  FULL,
  MessageBuilder,
  ModelLimits,
  Share,
  ShortenError,
  STUBBED,
  Stub,
  Tokens,
  cited,
  turns,
  type ContextPolicyOptions,
  type Shorten,
} from "../../../src/toolkit/index.js";
import { Conversation, documentOf } from "../../fixtures/context-conversation.js";

const SEARCH = ToolDef({ name: "search", description: "Search the documents.", parameters: { type: "object" } });
const LIMITS = new ModelLimits({ window: new Tokens(100_000) });
const SMALL: ContextPolicyOptions = { startAt: new Tokens(200), target: new Tokens(100), minGain: null };

function builder(
  policy: ContextPolicyOptions = SMALL,
  limits: ModelLimits | null = LIMITS,
  options: { renderInput?: RenderInput } = {},
): MessageBuilder {
  return new MessageBuilder({
    policy: new ContextPolicy(policy),
    renderInput: options.renderInput ?? renderedBy(Text),
    model: "test-model",
    prompt: () => "Answer from the documents.",
    tools: [SEARCH],
    citations: BRACKETS,
    limits,
  });
}

/** Three turns: r1 (document a, passage a#1 cited), r2 (document b), and the running turn's r3. */
function threeTurns(): Conversation {
  return new Conversation()
    .ask("one")
    .search("a", documentOf("a", 3))
    .answer("A.", ["a#1"])
    .ask("two")
    .search("b", documentOf("b", 3))
    .answer("B.")
    .ask("three")
    .search("c", documentOf("c", 3));
}

function results(messages: readonly Message[]): string[] {
  return messages.filter((message): message is ToolResult => message.role === "tool").map((message) => message.content);
}

describe("the policy of a MessageBuilder with limits", () => {
  it("compresses the results of all turns but the last two under a handle line, and keeps the cited passage full", () => {
    const [r1, r2, r3] = results(builder().build(threeTurns().trace()).request.messages);
    expect(r1!.split("\n")[0]).toBe("[r1: text left out to save space]");
    expect(r1).toContain('<chunk id="3" cite="[3]">a1w0 a1w1');
    expect(r1).toContain('<chunk id="2" cite="[2]"/>');
    expect(r1).toContain('<chunk id="4" cite="[4]"/>');
    expect(r2!.startsWith("<doc")).toBe(true);
    expect(r3!.startsWith("<doc")).toBe(true);
  });

  it("keeps a passage full that an answer cited before any result recorded it (an imported thread), cold and warm", () => {
    // The first answer names "a#1" before the search that records it: the id has no number when a build first
    // shrinks (turn zero's result, at turn two).
    const conversation = new Conversation().ask("zero").search("z", documentOf("z", 8));
    conversation.events.push(
      ModelOutput({ content: "Z.", markers: [{ at: 2, text: "", cited: [{ written: 99, source: "a#1" }] }] }),
    );
    conversation.ask("one").search("y", documentOf("y", 8)).answer("Y.").ask("two").search("x", documentOf("x", 8));
    const early = conversation.trace();
    conversation
      .answer("X.")
      .ask("three")
      .search("a", documentOf("a", 3))
      .answer("A.")
      .ask("four")
      .search("b", documentOf("b", 3))
      .answer("B.")
      .ask("five")
      .search("c", documentOf("c", 3));
    const made = builder();
    expect(made.explain(early).map((shrunk) => shrunk.result)).toContain("r1");
    const warm = made.build(conversation.trace()).request;
    const cold = builder().build(conversation.trace()).request;
    const r4 = results(cold.messages)[3]!;
    expect(r4.split("\n")[0]).toBe("[r4: text left out to save space]");
    expect(r4).toMatch(/<chunk id="\d+" cite="\[\d+\]">a1w0 a1w1/);
    expect(r4).toMatch(/<chunk id="\d+" cite="\[\d+\]"\/>/);
    expect(warm.hash).toBe(cold.hash);
  });

  it("stubs a result to its handle line and the elements that floors keep", () => {
    const [r1, r2] = results(
      builder({ ...SMALL, shrink: [Stub(turns.slice(0, -1))] }).build(threeTurns().trace()).request.messages,
    );
    expect(r1).toBe(
      '[r1: result left out to save space]\n<chunk id="3" cite="[3]" doc="1">a1w0 a1w1 a1w2 a1w3 a1w4 a1w5 a1w6 a1w7 a1w8 a1w9 a1w10 a1w11</chunk>',
    );
    expect(r2).toBe("[r2: result left out to save space]");
  });

  it("stubs a result that a shrink compressed at the same call with the elements that floors keep, in their forms", () => {
    // A floor that lifts to COMPRESSED keeps its element in the stub, though not above the compressed form.
    const keepsA2 = new Floor((element) => element.id === "a#2", COMPRESSED);
    const policy = {
      ...SMALL,
      shrink: [Compress(turns.slice(0, -1)), Stub(turns.slice(0, -1))],
      protect: [new Floor(cited, FULL), keepsA2],
    };
    const [r1] = results(builder(policy).build(threeTurns().trace()).request.messages);
    expect(r1).toBe(
      '[r1: result left out to save space]\n<chunk id="3" cite="[3]" doc="1">a1w0 a1w1 a1w2 a1w3 a1w4 a1w5 a1w6 a1w7 a1w8 a1w9 a1w10 a1w11</chunk>\n<chunk id="4" cite="[4]" doc="1"/>',
    );
  });

  it("stubs a result compressed at an earlier call of the turn with the floors that hold at the stub's call", () => {
    // The floor applies only from the turn's second call on: the stub at that call keeps a#2, the compress at the
    // first did not.
    const late = new Floor((element, _tool, before) => before.events.length >= 10 && element.id === "a#2", FULL);
    const policy = {
      ...SMALL,
      shrink: [Compress(turns.slice(0, -1)), Stub(turns.slice(0, -1), { when: new Tokens(1_000) })],
      protect: [late],
    };
    const conversation = new Conversation()
      .ask("one")
      .search("a", documentOf("a", 8))
      .answer("A.")
      .ask("two")
      .search("b", documentOf("b", 8))
      .answer("B.")
      .ask("three")
      .search("c", documentOf("c", 3, 400))
      .search("d", documentOf("d", 1));
    const made = builder(policy);
    const [r1] = results(made.build(conversation.trace()).request.messages);
    expect(r1).toBe(
      '[r1: result left out to save space]\n<chunk id="4" cite="[4]" doc="1">a2w0 a2w1 a2w2 a2w3 a2w4 a2w5 a2w6 a2w7 a2w8 a2w9 a2w10 a2w11</chunk>',
    );
    // The stub was made at the turn's second call: five model calls before it (the turn's first has four).
    expect(made.explain(conversation.trace()).find((shrunk) => shrunk.result === "r1")).toMatchObject({
      form: STUBBED,
      at: 5,
    });
  });

  it("stubs a result at the call that compressed it, a cited passage kept full by its floor", () => {
    const conversation = new Conversation()
      .ask("one")
      .search("a", documentOf("a", 3))
      .answer("A.", ["a#1"])
      .ask("two")
      .search("b", documentOf("b", 1));
    const made = builder({
      shrink: [Compress(turns.slice(0, -1)), Stub(turns.slice(0, -1))],
      startAt: new Tokens(60),
      target: new Tokens(30),
      minGain: null,
    });
    const [r1] = results(made.build(conversation.trace()).request.messages);
    expect(r1).toBe(
      '[r1: result left out to save space]\n<chunk id="3" cite="[3]" doc="1">a1w0 a1w1 a1w2 a1w3 a1w4 a1w5 a1w6 a1w7 a1w8 a1w9 a1w10 a1w11</chunk>',
    );
    // The turn's first call compressed r1 and, still over target, stubbed it: the two states differ in form alone.
    expect(made.explain(conversation.trace())).toMatchObject([{ result: "r1", form: STUBBED, at: 2 }]);
  });

  it("leaves the context as it is while it is not over startAt", () => {
    const [r1] = results(
      builder({ ...SMALL, startAt: new Tokens(50_000), target: new Tokens(40_000) }).build(threeTurns().trace()).request
        .messages,
    );
    expect(r1!.startsWith("<doc")).toBe(true);
  });

  it("runs a shrink with its own when over that size, whatever startAt", () => {
    const policy = {
      startAt: new Tokens(50_000),
      target: new Tokens(40_000),
      minGain: null,
      shrink: [Stub(turns.slice(0, -2), { when: new Tokens(100) })],
    };
    expect(results(builder(policy).build(threeTurns().trace()).request.messages)[0]).toMatch(/^\[r1: result left out/);
  });

  it("does not make a pass that frees less than minGain", () => {
    const [r1] = results(
      builder({ ...SMALL, minGain: new Tokens(5_000) }).build(threeTurns().trace()).request.messages,
    );
    expect(r1!.startsWith("<doc")).toBe(true);
  });

  it("makes a pass that frees less than minGain when without it the call would not fit", () => {
    const trace = threeTurns().trace();
    // No reopen tool: the offered tools stay the same, so the pass's gain is all it frees.
    const small = { ...SMALL, reopen: null };
    const whole = builder({ ...small, startAt: new Tokens(50_000), target: new Tokens(40_000) }).assess(trace).tokens;
    const shrunk = builder(small).assess(trace).tokens;
    const gain = whole - shrunk;
    expect(gain).toBeGreaterThan(0);
    // minGain above the pass's gain; an output reserve that leaves room for the shrunk prompt and not the whole one.
    const tight = { ...small, minGain: new Tokens(gain + 1), outputReserve: new Tokens(LIMITS.window.count - shrunk) };
    const [r1] = results(builder(tight).build(trace).request.messages);
    expect(r1).toMatch(/^\[r1: text left out/);
    // With room for the whole prompt, the same small pass is not made.
    const roomy = { ...tight, outputReserve: new Tokens(LIMITS.window.count - whole) };
    expect(results(builder(roomy).build(trace).request.messages)[0]!.startsWith("<doc")).toBe(true);
  });

  it("counts the real prompt tokens that the last call to the model recorded, and estimates only what was added", () => {
    const conversation = new Conversation()
      .ask("one")
      .search("a", documentOf("a", 3))
      .answer("A.")
      .ask("two")
      .search("b", documentOf("b", 1))
      .ask("three");
    const policy = { startAt: new Tokens(5_000), target: new Tokens(4_000), minGain: null };
    const plain = builder(policy);
    expect(results(plain.build(conversation.trace()).request.messages)[0]!.startsWith("<doc")).toBe(true);
    // The service counted 6,000 tokens for the prompt of the call that answered "A.": far more than 3 characters a token.
    const answer = conversation.events.findIndex((event) => ModelOutput.is(event) && event.content === "A.");
    const measured = conversation.events.map((event, index) =>
      index === answer
        ? { ...event, usage: { promptTokens: 6_000, completionTokens: 5 }, promptCharacters: 900 }
        : event,
    );
    expect(results(plain.build(Trace.of(measured)).request.messages)[0]).toMatch(/^\[r1: text left out/);
  });

  it("cuts a result at the cap of its tool and says about how many tokens it left out; a tool's Forms can say never", () => {
    const trace = new Conversation()
      .ask("one")
      .search("a", documentOf("a", 3, 200))
      .trace();
    const [cut] = results(builder({ resultCap: new Tokens(50) }).build(trace).request.messages);
    expect(cut!.length).toBeLessThan(250);
    expect(cut).toMatch(/\[… about \d+ more tokens not shown\]$/);
    const [whole] = results(
      builder({ resultCap: new Tokens(50), tools: { search: new Forms({ cap: null }) } }).build(trace).request.messages,
    );
    expect(whole).toMatch(/<\/doc>$/);
  });

  it("uses a tool's own Forms for its results", () => {
    const firstWordsOnly = new Forms({
      compressed: (output) => ({ ...output, elements: output.elements.map((element) => ({ ...element, text: "…" })) }),
    });
    const [r1] = results(
      builder({ ...SMALL, tools: { search: firstWordsOnly } }).build(threeTurns().trace()).request.messages,
    );
    expect(r1).toContain('<chunk id="2" cite="[2]">…</chunk>');
  });

  it("raises ShortenError for a Shorten function that drops an element", () => {
    const drops = new Forms({ compressed: (output) => ({ ...output, elements: output.elements.slice(1) }) });
    expect(() => builder({ ...SMALL, tools: { search: drops } }).build(threeTurns().trace())).toThrow(ShortenError);
  });

  it("stubs even the running turn's results above Share(0.85) by default", () => {
    const tight = new ModelLimits({ window: new Tokens(1_000) });
    const trace = new Conversation()
      .ask("one")
      .search("a", documentOf("a", 20, 40))
      .trace();
    expect(results(builder({ outputReserve: new Tokens(500) }, tight).build(trace).request.messages)).toEqual([
      "[r1: result left out to save space]",
    ]);
  });

  it("raises ContextFullError when the estimated prompt and the output reserve do not fit the window", () => {
    const tight = new ModelLimits({ window: new Tokens(1_000) });
    const trace = new Conversation()
      .ask("one")
      .search("a", documentOf("a", 20, 40))
      .trace();
    expect(() => builder({ outputReserve: new Tokens(500), shrink: [] }, tight).build(trace)).toThrow(ContextFullError);
    const assessed = builder({ outputReserve: new Tokens(500), shrink: [] }, tight).assess(trace);
    expect(assessed.fits).toBe(false);
    expect(assessed.tokens).toBeGreaterThan(500);
  });

  it("refuses at build a target that is not below startAt in the model's window", () => {
    const policy = { startAt: new Tokens(10_000), target: new Share(0.5) };
    expect(() => builder(policy).build(threeTurns().trace())).toThrow(ValueError);
    expect(() =>
      builder(policy, new ModelLimits({ window: new Tokens(15_000) })).build(threeTurns().trace()),
    ).not.toThrow();
  });

  it("explains each shrunk result: its form, the shrink, and the calls before the one at which it shrank", () => {
    const compress = Compress(turns.slice(0, -2));
    const shrunk = builder({ ...SMALL, shrink: [compress] }).explain(threeTurns().trace());
    // r1 shrank at the first call of the running turn, after the four calls of the first two turns.
    expect(shrunk.map((record) => [record.result, record.form, record.by, record.at])).toEqual([
      ["r1", COMPRESSED, compress, 4],
    ]);
    expect(builder(SMALL, null).explain(threeTurns().trace())).toEqual([]);
    expect(
      builder({ ...SMALL, shrink: [Stub(turns.slice(0, -1))] })
        .explain(threeTurns().trace())
        .map((record) => [record.result, record.form]),
    ).toEqual([
      ["r1", STUBBED],
      ["r2", STUBBED],
    ]);
  });
});

describe("forms within a turn", () => {
  /** A turn whose second call cites a passage of r1 that r1's compression had left without text. */
  function citingMidTurn(): Event[] {
    const conversation = threeTurns();
    conversation.events.push(
      ModelOutput({
        content: "Passage [2] may help.",
        markers: [{ at: 15, text: "", cited: [{ written: 2, source: "a#0" }] }],
        toolCalls: [{ id: "c9", name: "search", arguments: { query: "d" } }],
      }),
    );
    return conversation.round({ name: "search", arguments: { query: "e" }, result: { elements: documentOf("e", 1) } })
      .events;
  }

  it("keeps a shrunk result as the model was sent it: a citation later in the turn does not lift an element", () => {
    const events = citingMidTurn();
    const policy = { ...SMALL, shrink: [Compress(turns.slice(0, -2))] };
    const at = (count: number) => results(builder(policy).build(Trace.of(events.slice(0, count))).request.messages)[0];
    const firstCall = events.findIndex((event, index) => index > 8 && ModelOutput.is(event));
    expect(at(firstCall)).toContain('<chunk id="2" cite="[2]"/>');
    expect(at(events.length)).toBe(at(firstCall));
    // The next turn works the forms out again from its first call: the citation now lifts the passage.
    const next = [...events, ModelOutput({ content: "Done." }), Input({ payload: "four", model: "test-model" })];
    expect(results(builder(policy).build(Trace.of(next)).request.messages)[0]).toContain(
      '<chunk id="2" cite="[2]">a0w0',
    );
  });
});

describe("reopen", () => {
  it("is offered after the turn's tools from the first call that shortens a result, and not before", () => {
    const trace = threeTurns().trace();
    expect(
      builder()
        .build(trace)
        .request.tools.map((tool) => tool.name),
    ).toEqual(["search", "reopen"]);
    expect(
      builder({ ...SMALL, startAt: new Tokens(50_000), target: new Tokens(40_000) })
        .build(trace)
        .request.tools.map((tool) => tool.name),
    ).toEqual(["search"]);
    expect(
      builder({ ...SMALL, reopen: null })
        .build(trace)
        .request.tools.map((tool) => tool.name),
    ).toEqual(["search"]);
  });

  it("is withdrawn with the turn's tools when the budget withdraws them", () => {
    const withdrawn = new MessageBuilder({
      policy: new ContextPolicy(SMALL),
      renderInput: renderedBy(Text),
      model: "test-model",
      tools: [SEARCH],
      budget: new Budget({ passes: 1, toolRoundsAfterCap: 0 }),
      limits: LIMITS,
    });
    const request = withdrawn.build(threeTurns().trace()).request;
    expect(results(request.messages)[0]).toMatch(/^\[r1: text left out/);
    expect(request.tools).toEqual([]);
  });

  it("shows each element inside its whole and each whole result under its handle, drawn from where it was recorded", () => {
    const conversation = threeTurns();
    conversation.events.push(
      ModelOutput({ toolCalls: [{ id: "c9", name: "reopen", arguments: { elements: ["a#2"], results: ["c2"] } }] }),
      Reopened({ callId: "c9", reopenedElements: ["a#2"], reopenedResults: ["c2"] }),
    );
    const request = builder().build(conversation.trace()).request;
    const reopened = results(request.messages).at(-1)!;
    expect(reopened.split("\n")).toEqual([
      "[r2]",
      '<doc id="5" title="The b document">',
      '<chunk id="6" cite="[6]">b0w0 b0w1 b0w2 b0w3 b0w4 b0w5 b0w6 b0w7 b0w8 b0w9 b0w10 b0w11</chunk>',
      '<chunk id="7" cite="[7]">b1w0 b1w1 b1w2 b1w3 b1w4 b1w5 b1w6 b1w7 b1w8 b1w9 b1w10 b1w11</chunk>',
      '<chunk id="8" cite="[8]">b2w0 b2w1 b2w2 b2w3 b2w4 b2w5 b2w6 b2w7 b2w8 b2w9 b2w10 b2w11</chunk>',
      "</doc>",
      "",
      '<doc id="1" title="The a document">',
      '<chunk id="4" cite="[4]">a2w0 a2w1 a2w2 a2w3 a2w4 a2w5 a2w6 a2w7 a2w8 a2w9 a2w10 a2w11</chunk>',
      "</doc>",
    ]);
    const call = request.messages.findLast((message) => message.role === "assistant")!;
    expect(call).toMatchObject({ toolCalls: [{ name: "reopen", arguments: { elements: ["4"], results: ["r2"] } }] });
    // r1 itself stays compressed: nothing earlier in the conversation changes.
    expect(results(request.messages)[0]).toMatch(/^\[r1: text left out/);
  });
});

describe("a reopened element", () => {
  // A full form that marks the text of each element that has one, so a test sees which Forms drew it.
  const marking =
    (label: string): Shorten =>
    (output) => ({
      ...output,
      elements: output.elements.map((element) =>
        typeof element.text === "string" ? { ...element, text: `${label}: ${element.text}` } : element,
      ),
    });

  function reopenedA2(policy: ContextPolicyOptions): string {
    const conversation = threeTurns();
    conversation.events.push(
      ModelOutput({ toolCalls: [{ id: "c9", name: "reopen", arguments: { elements: ["a#2"] } }] }),
      Reopened({ callId: "c9", reopenedElements: ["a#2"], reopenedResults: [] }),
    );
    const reopened = results(builder(policy).build(conversation.trace()).request.messages).at(-1)!;
    return reopened.split("\n").find((line) => line.startsWith('<chunk id="4"'))!;
  }

  it("shows in the full form of the tool that recorded it, not the policy's, and not shortened twice", () => {
    const policy = { ...SMALL, full: marking("policy"), tools: { search: new Forms({ full: marking("search") }) } };
    expect(reopenedA2(policy)).toBe(
      '<chunk id="4" cite="[4]">search: a2w0 a2w1 a2w2 a2w3 a2w4 a2w5 a2w6 a2w7 a2w8 a2w9 a2w10 a2w11</chunk>',
    );
    // With no Forms of its own, the tool's full form is the policy's: applied once.
    expect(reopenedA2({ ...SMALL, full: marking("policy") })).toMatch(/>policy: a2w0 /);
  });

  it("is shaped again only by Forms given to the reopen tool itself", () => {
    const policy = {
      ...SMALL,
      tools: { search: new Forms({ full: marking("search") }), reopen: new Forms({ full: marking("reopen") }) },
    };
    expect(reopenedA2(policy)).toMatch(/>reopen: search: a2w0 /);
  });
});

describe("without limits", () => {
  it("shows each result full and as recorded, cuts nothing and offers no reopen", () => {
    const trace = new Conversation()
      .ask("one")
      .search("a", documentOf("a", 3, 4000))
      .answer("A.")
      .ask("two")
      .ask("three")
      .trace();
    const request = builder({ resultCap: new Tokens(10) }, null).build(trace).request;
    expect(results(request.messages)[0]).toMatch(/^<doc id="1"[\s\S]*<\/doc>$/);
    expect(request.tools.map((tool) => tool.name)).toEqual(["search"]);
  });
});

describe("reasoning", () => {
  const events = [
    Input({ payload: "one", model: "test-model" }),
    ModelOutput({ content: "A.", reasoning: "Earlier thought." }),
    Input({ payload: "two", model: "test-model" }),
    ModelOutput({ toolCalls: [{ id: "c1", name: "search", arguments: {} }], reasoning: "Current thought." }),
  ];
  const reasoningOf = (policy: ContextPolicyOptions) =>
    builder(policy)
      .build(Trace.of(events))
      .request.messages.flatMap((message) => (message.role === "assistant" ? [message.reasoning] : []));

  it("sends none back by default, the running turn's with CURRENT_TURN, and all with ALWAYS", () => {
    expect(reasoningOf({})).toEqual([null, null]);
    expect(reasoningOf({ reasoning: CURRENT_TURN })).toEqual([null, "Current thought."]);
    expect(reasoningOf({ reasoning: ALWAYS })).toEqual(["Earlier thought.", "Current thought."]);
  });
});

describe("maxImages", () => {
  const picture = (name: string) => ImagePart(new Uint8Array([1, 2, 3]), { name });
  const renderInput = (input: Input) =>
    UserMessage([TextPart(String(input.payload)), picture(`${String(input.payload)}.png`)]);
  const events = ["one", "two", "three"].map((payload) => Input({ payload, model: "test-model" }));

  it("sends the newest images, and each older one becomes a note that it was left out", () => {
    const request = builder({ maxImages: 1 }, LIMITS, { renderInput }).build(Trace.of(events)).request;
    const parts = request.messages.flatMap((message) =>
      message.role === "user" && Array.isArray(message.content) ? [message.content] : [],
    );
    expect(
      parts.map((content) => content.map((part) => (part.kind === "image" ? `image ${part.name}` : part.text))),
    ).toEqual([
      ["one", '[the image "one.png" left out to save space]'],
      ["two", '[the image "two.png" left out to save space]'],
      ["three", "image three.png"],
    ]);
    const all = builder({}, LIMITS, { renderInput }).build(Trace.of(events)).request;
    expect(
      all.messages.filter(
        (message) => message.role === "user" && Array.isArray(message.content) && message.content[1]!.kind === "image",
      ),
    ).toHaveLength(3);
  });
});

describe("MessageBuilder settings of the policy", () => {
  it("refuses a turn tool named like the policy's reopen tool, and a policy that is not a ContextPolicy", () => {
    const reopen = ToolDef({ name: "reopen", description: "Mine.", parameters: { type: "object" } });
    expect(() => new MessageBuilder({ tools: [reopen] })).toThrow(ValueError);
    expect(() => new MessageBuilder({ tools: [reopen], policy: new ContextPolicy({ reopen: null }) })).not.toThrow();
    expect(() => new MessageBuilder({ policy: { startAt: 1 } as never })).toThrow(ValueError);
  });
});
