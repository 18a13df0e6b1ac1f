import { describe, expect, it } from "vitest";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Compaction, Failure, Input, ModelOutput, Trace, encode } from "../../../src/domain/index.js";
import type { CallOptions, ChatRequest, Fragment } from "../../../src/ports/index.js";
import { AgentCatalog, InputTooLargeError, accepted, replay } from "../../../src/runtime/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import {
  BRACKETS,
  COMPACT_INSTRUCTIONS,
  Compact,
  CompactingStep,
  CompactionError,
  ContextPolicy,
  MessageBuilder,
  ModelLimits,
  ReActAgent,
  ReActConfig,
  Text,
  Tokens,
  turns,
  type AssessingBuilder,
  type ContextPolicyOptions,
  type ContextStrategy,
} from "../../../src/toolkit/index.js";
import { LIBRARY } from "../../../examples/tutorials/01-first-agent/library.js";
import { Document, Passage, readDocument, search } from "../../../examples/tutorials/02-citations/tools.js";
import type { ModelOutput as Output } from "../../../src/domain/index.js";

/** A scripted model that says which of its calls were streamed. */
class StreamWatchingModel extends ScriptedModel {
  readonly streamed: number[] = [];

  override async *streamComplete(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<Fragment | Output> {
    this.streamed.push(this.requests.length);
    yield* super.streamComplete(request, options);
  }
}

const QUESTIONS = [
  "How often is bulky waste picked up?",
  "How much is a parking permit?",
  "What is the dog tax?",
  "When is paper collected?",
];
const SUMMARY_1 = "The user asked about bulky waste: four times a year for free [2].";
const SUMMARY_2 = "Bulky waste: four times a year for free [2]. A parking permit: 120 euros a year [5].";

/** Four turns of a search and a cited answer; before the first call of turns 3 and 4 the model writes a summary. */
function script(): StreamWatchingModel {
  return new StreamWatchingModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste" } }] },
    "Four times a year, for free [2].",
    { toolCalls: [{ name: "search", arguments: { query: "parking permit" } }] },
    "120 euros a year [5].",
    SUMMARY_1,
    { toolCalls: [{ name: "search", arguments: { query: "dog tax" } }] },
    "95 euros a year for each dog [9]; bulky waste, as I said, four times a year [2].",
    SUMMARY_2,
    { toolCalls: [{ name: "search", arguments: { query: "paper" } }] },
    "Every other Friday [11].",
  ]);
}

function agentOn(model: ScriptedModel, policy: ContextPolicyOptions): ReActAgent {
  const config = new ReActConfig({
    model,
    prompt: "Answer from the town documents; cite like [1].",
    tools: [search.bind({ library: LIBRARY }), readDocument.bind({ library: LIBRARY })],
    citations: BRACKETS,
    limits: new ModelLimits({ window: new Tokens(32_000) }),
    context: new MessageBuilder({ policy: new ContextPolicy(policy) }),
  });
  return new ReActAgent(config, { elementTypes: [Document, Passage] });
}

// Every call is over this `when`, so the model summarises whenever a turn is left to replace.
const COMPACTING: ContextPolicyOptions = { compact: new Compact({ when: new Tokens(50) }), shrink: [] };

async function converse(model: ScriptedModel, policy = COMPACTING) {
  const agent = agentOn(model, policy);
  const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
  const fragments: Fragment[] = [];
  const [opened] = await agents.open("assistant", Input({ payload: QUESTIONS[0]!, model: "scripted" }));
  let trace = await opened.resume({ onFragment: (fragment) => fragments.push(fragment) });
  for (const question of QUESTIONS.slice(1)) {
    const input = Input({ payload: question, model: "scripted" });
    trace = await (
      await agents.thread(opened.id, { input })
    ).send(input, { onFragment: (fragment) => fragments.push(fragment) });
  }
  return { agent, trace };
}

const userTexts = (request: ChatRequest) =>
  request.messages.flatMap((message) =>
    message.role === "user" && typeof message.content === "string" ? [message.content] : [],
  );

describe("compaction", () => {
  it("summarises the turns that where selects, and the next request shows the summary instead of them", async () => {
    const model = script();
    const { trace } = await converse(model);
    const events = trace.events;
    const compactions = trace.byType(Compaction);
    expect(compactions.map((compaction) => compaction.summary)).toEqual([SUMMARY_1, SUMMARY_2]);
    const inputs = events.flatMap((event, index) => (Input.is(event) ? [index] : []));
    expect(compactions.map((compaction) => compaction.keptFrom)).toEqual([inputs[1], inputs[2]]);
    // Each Compaction is recorded with the output of the call made from it, in one append.
    for (const compaction of compactions) expect(ModelOutput.is(events[events.indexOf(compaction) + 1])).toBe(true);

    const afterFirst = model.requests[5]!;
    expect(afterFirst.messages[0]!.content).toContain(SUMMARY_1);
    expect(userTexts(afterFirst)).toEqual([QUESTIONS[1], QUESTIONS[2]]);
    expect(
      afterFirst.messages.some(
        (message) => message.role === "tool" && message.content.includes("Bulky waste, such as furniture"),
      ),
    ).toBe(false);
    const afterSecond = model.requests[8]!;
    expect(afterSecond.messages[0]!.content).toContain(SUMMARY_2);
    expect(afterSecond.messages[0]!.content).not.toContain(SUMMARY_1);
    expect(userTexts(afterSecond)).toEqual([QUESTIONS[2], QUESTIONS[3]]);
  });

  it("asks for the summary after the builder's messages, with no tools, without streaming", async () => {
    const model = script();
    await converse(model);
    const summaryCall = model.requests[4]!;
    expect(summaryCall.tools).toEqual([]);
    const last = summaryCall.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(last.content).toBe(
      `${COMPACT_INSTRUCTIONS}\nKeep the citation marker of each fact, such as [1], so that it still names its source.`,
    );
    expect(userTexts(summaryCall).slice(0, 3)).toEqual(QUESTIONS.slice(0, 3));
    expect(model.streamed).not.toContain(4);
    expect(model.streamed).not.toContain(7);
    expect(model.streamed).toContain(5);
  });

  it("keeps element numbers and citations: a citation of a replaced passage still resolves", async () => {
    const { trace } = await converse(script());
    const dogAnswer = trace.byType(ModelOutput).find((output) => output.content.startsWith("95 euros"))!;
    expect(dogAnswer.markers.flatMap((marker) => marker.cited)).toEqual([
      { written: 9, source: "dog-tax#0" },
      { written: 2, source: "waste-collection#2" },
    ]);
    const paper = trace.byType(ModelOutput).at(-1)!;
    expect(paper.markers.flatMap((marker) => marker.cited)).toEqual([{ written: 11, source: "waste-collection#1" }]);
  });

  it("replays every call, after a summary too, to the hash its output recorded", async () => {
    const { agent, trace } = await converse(script());
    const calls = await replay(trace.events, (input) => agent.build(undefined, accepted(Text, input)[1], input.model));
    expect(calls).toHaveLength(8);
    expect(calls.every((call) => call.matches)).toBe(true);
  });

  it("offers reopen from the first call that follows a summary", async () => {
    const model = script();
    await converse(model);
    expect(model.requests.map((request) => request.tools.map((tool) => tool.name).includes("reopen"))).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
      true,
      false,
      true,
      true,
    ]);
  });

  it("fails the turn with CompactionError when the model writes an empty summary", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search", arguments: { query: "bulky waste" } }] },
      "A [2].",
      { toolCalls: [{ name: "search", arguments: { query: "parking permit" } }] },
      "B [5].",
      "   ",
    ]);
    await expect(converse(model)).rejects.toThrow(/empty summary/);
    expect(model.requests).toHaveLength(5);
  });

  it("fails the turn with CompactionError when the request after the summary is the same as before it", async () => {
    // A context strategy of your own whose builder does not show Compaction events: a summary cannot make room.
    const compact = new Compact({ when: new Tokens(50) });
    const shown = new MessageBuilder({ policy: new ContextPolicy({ shrink: [] }) });
    const hidden = (trace: Trace) =>
      new Trace(
        trace.entries.filter((entry) => !Compaction.is(entry.event)),
        trace.thread,
      );
    const context: ContextStrategy = {
      addedTools: [],
      forTurn(parts) {
        const builder = shown.forTurn(parts);
        return {
          build: (trace) => builder.build(hidden(trace)),
          assess: (trace: Trace) => builder.assess(hidden(trace)),
        };
      },
      wrap: (step, limits) => new CompactingStep(step, compact, limits, step.builder as unknown as AssessingBuilder),
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search", arguments: { query: "bulky waste" } }] },
      "A [2].",
      { toolCalls: [{ name: "search", arguments: { query: "parking permit" } }] },
      "B [5].",
      SUMMARY_1,
      "Never called.",
    ]);
    const config = new ReActConfig({
      model,
      prompt: "Answer from the town documents; cite like [1].",
      tools: [search.bind({ library: LIBRARY })],
      citations: BRACKETS,
      context,
    });
    const agents = new AgentCatalog(
      new InMemoryTraceStore(),
      { assistant: new ReActAgent(config, { elementTypes: [Document, Passage] }) },
      { version: "test" },
    );
    const [opened] = await agents.open("assistant", Input({ payload: QUESTIONS[0]!, model: "scripted" }));
    await opened.resume();
    await opened.send(Input({ payload: QUESTIONS[1]!, model: "scripted" }));
    const third = opened.send(Input({ payload: QUESTIONS[2]!, model: "scripted" }));
    await expect(third).rejects.toThrow(CompactionError);
    await expect(third).rejects.toThrow(/same as before it/);
    // The summary was asked for, and nothing after it: no Compaction recorded, the turn failed once.
    expect(model.requests).toHaveLength(5);
    const trace = await opened.trace();
    expect(trace.byType(Compaction)).toEqual([]);
    expect(trace.byType(Failure).map((failure) => failure.error)).toEqual(["CompactionError"]);
  });

  it("raises ContextFullError before any model call when nothing more can be replaced", async () => {
    const model = new ScriptedModel([]);
    const tight = { compact: new Compact(), shrink: [], outputReserve: new Tokens(31_990) };
    const agent = agentOn(model, tight);
    const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
    const input = Input({ payload: QUESTIONS[0]!, model: "scripted" });
    // Admission refuses such an input (it never fits); one recorded by an older version still fails cleanly.
    await expect(agents.open("assistant", input)).rejects.toThrow(InputTooLargeError);
    await agents.store.append("t1", [encode(agents.opening("assistant", input))]);
    const opened = await agents.thread("t1");
    await expect(opened.resume()).rejects.toThrow(/replaced every turn/);
    expect(model.requests).toHaveLength(0);
    expect((await opened.trace()).byType(Failure).map((failure) => failure.error)).toEqual(["ContextFullError"]);
  });

  it("wraps the model step only when the policy has a compact; the compact's where can be any selection", () => {
    const withCompact = new MessageBuilder({
      policy: new ContextPolicy({ compact: new Compact({ where: turns.slice(0, -1) }) }),
    });
    const step = agentOn(new ScriptedModel([]), {}).build(undefined, Text.parse("x"), "scripted").step("model");
    expect(step).not.toBeInstanceOf(CompactingStep);
    const compacted = agentOn(new ScriptedModel([]), COMPACTING)
      .build(undefined, Text.parse("x"), "scripted")
      .step("model");
    expect(compacted).toBeInstanceOf(CompactingStep);
    expect(withCompact.policy.compact?.where.toString()).toBe("turns.slice(0, -1)");
  });
});
