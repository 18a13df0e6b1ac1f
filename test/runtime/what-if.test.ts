// whatIf: the tutorial-2 conversation recorded, then rebuilt under a candidate agent with another prompt or
// another context policy. The requests must differ exactly where the change reaches, and nowhere else.
import { describe, expect, it } from "vitest";
import { InMemoryTraceStore } from "../../src/adapters/index.js";
import { Input } from "../../src/domain/index.js";
import type { TraceStore } from "../../src/ports/index.js";
import { AgentCatalog, whatIf, whatIfThreads } from "../../src/runtime/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import {
  BRACKETS,
  COMPRESSED,
  ContextPolicy,
  FULL,
  MessageBuilder,
  ReActAgent,
  ReActConfig,
  Tokens,
  type ContextPolicyOptions,
} from "../../src/toolkit/index.js";
import { LIBRARY } from "../../examples/tutorials/01-first-agent/library.js";
import { Document, Passage, search } from "../../examples/tutorials/02-citations/tools.js";

const QUESTIONS = ["How often can I have bulky waste picked up?", "How much is a parking permit?", "And the dog tax?"];
const PROMPT = "Answer from the town documents; cite like [1].";
// Small thresholds, so the recorded policy shrinks old results within three questions.
const SMALL: ContextPolicyOptions = { startAt: new Tokens(500), target: new Tokens(250), minGain: null };
// A policy that never acts on a thread this short.
const LARGE: ContextPolicyOptions = { startAt: new Tokens(100_000), target: new Tokens(50_000), minGain: null };

function script(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }] },
    "Four times a year, for free [2].",
    { toolCalls: [{ name: "search", arguments: { query: "parking permit" } }] },
    "120 euros a year [5].",
    { toolCalls: [{ name: "search", arguments: { query: "dog tax" } }] },
    "I found nothing on a dog tax.",
  ]);
}

function catalogOf(store: TraceStore, options: { prompt?: string; policy?: ContextPolicyOptions } = {}) {
  const agent = new ReActAgent(
    new ReActConfig({
      model: script(),
      prompt: options.prompt ?? PROMPT,
      tools: [search.bind({ library: LIBRARY })],
      citations: BRACKETS,
      context: new MessageBuilder({ policy: new ContextPolicy(options.policy ?? SMALL) }),
    }),
    { elementTypes: [Document, Passage] },
  );
  return new AgentCatalog(store, { assistant: agent });
}

/** The three questions in one thread of a fresh catalog on `store`: its id. */
async function recordThread(store: TraceStore): Promise<string> {
  const catalog = catalogOf(store);
  const [thread] = await catalog.open("assistant", Input({ payload: QUESTIONS[0]!, model: "scripted" }));
  await thread.resume();
  for (const question of QUESTIONS.slice(1)) await thread.send(Input({ payload: question, model: "scripted" }));
  return thread.id;
}

describe("whatIf(recorded, candidate, threadId)", () => {
  it("finds every request equal to the recorded one when the candidate is the same agent", async () => {
    const store = new InMemoryTraceStore();
    const threadId = await recordThread(store);
    const calls = await whatIf(catalogOf(store), catalogOf(store), threadId);
    expect(calls.map((call) => call.call)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(calls.every((call) => call.matches && call.same && call.difference === null)).toBe(true);
    expect(calls.map((call) => call.candidate!.hash)).toEqual(calls.map((call) => call.output.requestHash));
  });

  it("changes only the system message of every call under another prompt", async () => {
    const store = new InMemoryTraceStore();
    const threadId = await recordThread(store);
    const calls = await whatIf(catalogOf(store), catalogOf(store, { prompt: `${PROMPT} Be brief.` }), threadId);
    for (const call of calls) {
      expect(call.same).toBe(false);
      expect(call.difference).toMatchObject({ messages: [0], toolsAdded: [], toolsRemoved: [], forms: [] });
      expect(call.difference!.characters.candidate - call.difference!.characters.recorded).toBe(" Be brief.".length);
      expect(call.candidate!.messages.slice(1)).toEqual(call.recorded!.messages.slice(1));
    }
  });

  it("shows the results a looser policy would have kept whole, and only at the calls where the recorded one shrank", async () => {
    const store = new InMemoryTraceStore();
    const threadId = await recordThread(store);
    const calls = await whatIf(catalogOf(store), catalogOf(store, { policy: LARGE }), threadId);
    const shrunk = calls.filter((call) => !call.same);
    expect(shrunk.length).toBeGreaterThan(0);
    // Before the recorded policy first acted, nothing differs.
    const firstChanged = calls.findIndex((call) => !call.same);
    expect(calls.slice(0, firstChanged).every((call) => call.same)).toBe(true);
    for (const call of shrunk) {
      const { forms, messages, toolsRemoved } = call.difference!;
      expect(forms.length).toBeGreaterThan(0);
      // The looser policy keeps every result whole, and the recorded one had shrunk each of these.
      for (const form of forms) {
        expect(form.candidate).toBe(FULL);
        expect(form.recorded).toBeLessThanOrEqual(COMPRESSED);
        expect(form.by).toBeNull();
      }
      // With nothing shortened, the candidate offers no reopen tool.
      expect(toolsRemoved).toEqual(["reopen"]);
      // Only tool results change, and each is longer whole: the system message and the questions are the same.
      expect(messages.length).toBeGreaterThan(0);
      for (const place of messages) {
        const [recorded, candidate] = [call.recorded!.messages[place]!, call.candidate!.messages[place]!];
        expect([recorded.role, candidate.role]).toEqual(["tool", "tool"]);
        expect(String(candidate.content).length).toBeGreaterThan(String(recorded.content).length);
      }
    }
  });

  it("counts the changed calls over a store's threads", async () => {
    const store = new InMemoryTraceStore();
    const threads = [await recordThread(store), await recordThread(store)];
    const same = await whatIfThreads(catalogOf(store), catalogOf(store), threads);
    expect(same).toMatchObject({ threads: 2, calls: 12, changed: 0, changedCalls: {} });
    expect(same.characters.candidate).toBe(same.characters.recorded);
    const looser = await whatIfThreads(catalogOf(store), catalogOf(store, { policy: LARGE }), threads);
    const perThread = (await whatIf(catalogOf(store), catalogOf(store, { policy: LARGE }), threads[0]!))
      .filter((call) => !call.same)
      .map((call) => call.call);
    expect(looser.changed).toBe(2 * perThread.length);
    expect(looser.changedCalls).toEqual({ [threads[0]!]: perThread, [threads[1]!]: perThread });
  });
});
