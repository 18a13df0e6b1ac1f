// A builder keeps what it rendered of a thread, so the next build of that thread does only the new events'
// work: a warm build must send exactly the request that a new builder (cold) sends for the same trace.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ModelOutput, type Event } from "../../../src/domain/events.js";
import { Trace } from "../../../src/domain/trace.js";
import { ToolDef } from "../../../src/ports/messages.js";
import {
  BRACKETS,
  ContextPolicy,
  MessageBuilder,
  ModelLimits,
  Reasoning,
  Text,
  Tokens,
  renderedBy,
  type ContextPolicyOptions,
} from "../../../src/toolkit/index.js";
import { conversationOf, conversationPlans, policies } from "../../fixtures/context-arbitraries.js";
import { Chunk, Conversation, documentOf } from "../../fixtures/context-conversation.js";

const SEARCH = ToolDef({ name: "search", description: "Search.", parameters: { type: "object" } });

function builder(policy: ContextPolicyOptions, window = 100_000): MessageBuilder {
  return new MessageBuilder({
    policy: new ContextPolicy(policy),
    renderInput: renderedBy(Text),
    model: "test-model",
    prompt: () => "Answer.",
    tools: [SEARCH],
    citations: BRACKETS,
    limits: new ModelLimits({ window: new Tokens(window) }),
  });
}

/** What a build decides: the request byte for byte (its canonical JSON), its size, and why each result has its form. */
function built(made: MessageBuilder, trace: Trace): unknown {
  const { context, tokens, fits } = made.assess(trace);
  const shrunk = made.explain(trace).map((record) => [record.result, record.form, record.at]);
  return { request: JSON.stringify(context.request.toCanonical()), tokens, fits, shrunk };
}

/** Each prefix of the events as a trace of its own, the way a thread grows one event at a time. */
function prefixes(events: readonly Event[]): Trace[] {
  return events.map((_, index) => Trace.of(events.slice(0, index + 1)));
}

describe("a warm build", () => {
  it("sends byte for byte the request of a cold build, at every event of a generated conversation", () => {
    fc.assert(
      fc.property(
        conversationPlans,
        policies,
        fc.constantFrom(Reasoning.NEVER, Reasoning.CURRENT_TURN, Reasoning.ALWAYS),
        fc.constantFrom(null, 1),
        fc.integer({ min: 1_500, max: 100_000 }),
        (plan, policy, reasoning, maxImages, window) => {
          const options = { ...policy, reasoning, maxImages };
          const warm = builder(options, window);
          // Each model output thinks aloud, so which reasoning is sent back shows in the request.
          const events = conversationOf(plan).events.map((event, index) =>
            ModelOutput.is(event) ? { ...event, reasoning: `Thought ${index}.` } : event,
          );
          for (const trace of prefixes(events))
            expect(built(warm, trace)).toEqual(built(builder(options, window), trace));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("plans forms from summed sizes exactly as from a laid-out request", () => {
    // A maxImages above any image count changes no request, but makes the builder lay each view out to measure it.
    fc.assert(
      fc.property(conversationPlans, policies, fc.integer({ min: 1_500, max: 100_000 }), (plan, policy, window) => {
        const summed = builder(policy, window);
        const events = conversationOf(plan).events;
        for (const trace of prefixes(events))
          expect(built(summed, trace)).toEqual(built(builder({ ...policy, maxImages: 10_000 }, window), trace));
      }),
      { numRuns: 60 },
    );
  });

  it("builds an earlier cut of the thread, as a replay does, as a cold build does", () => {
    const events = conversationOf({
      turns: [
        { rounds: [{ calls: [{ passages: 3, words: 30 }], cites: [1] }], cites: [0] },
        { rounds: [{ calls: [{ passages: 2, words: 30 }], cites: [] }], cites: [] },
      ],
    }).events;
    const policy = { startAt: new Tokens(300), target: new Tokens(100), minGain: null };
    const warm = builder(policy);
    const whole = Trace.of(events);
    warm.build(whole);
    for (const trace of prefixes(events)) expect(built(warm, trace)).toEqual(built(builder(policy), trace));
    expect(built(warm, whole)).toEqual(built(builder(policy), whole));
  });

  it("shows a part's whole once the whole is recorded, though the part was rendered before it", () => {
    // The passage names a document that a later result records: its number exists only from then on.
    const conversation = new Conversation()
      .ask("Where is the permit?")
      .search("permit", [Chunk({ id: "late#0", ref: "late", text: "The permit page." })]);
    const warm = builder({});
    warm.build(conversation.trace());
    conversation.search("permit document", documentOf("late", 1));
    const cold = builder({}).build(conversation.trace()).request;
    expect(warm.build(conversation.trace()).request.hash).toBe(cold.hash);
    const first = cold.messages.find((message) => message.role === "tool")!;
    expect(first.content).toContain('doc="2"');
  });

  it("starts again for a trace that does not extend the one it kept", () => {
    const one = new Conversation().ask("One?").search("one", documentOf("one", 2));
    const two = new Conversation().ask("Two?").search("two", documentOf("two", 1));
    const made = builder({});
    made.build(one.trace());
    expect(made.build(two.trace()).request.hash).toBe(builder({}).build(two.trace()).request.hash);
    expect(made.build(one.trace()).request.hash).toBe(builder({}).build(one.trace()).request.hash);
  });

  it("gives a context whose numbering stays as it was at its build", () => {
    const conversation = new Conversation().ask("One?").search("one", documentOf("one", 1));
    const made = builder({});
    const first = made.build(conversation.trace());
    conversation.search("two", documentOf("two", 1));
    made.build(conversation.trace());
    expect(first.numbering.size).toBe(2);
    expect(first.numbering.numberOf("two")).toBeUndefined();
    expect(first.numbering.numberOf("one#0")).toBe(2);
  });
});
