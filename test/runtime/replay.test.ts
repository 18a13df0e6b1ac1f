// replay from a catalog and a thread id alone, each rebuilt request prepared by the model's adapter, and an
// agent's explain of one recorded call: what a developer needs to see what a model call of last week received.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { InMemoryTraceStore, OpenAIChatModel } from "../../src/adapters/index.js";
import { ModelOutput, Input, ValueError, type Trace } from "../../src/domain/index.js";
import type { ChatModel } from "../../src/ports/index.js";
import { AgentCatalog, replay } from "../../src/runtime/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import {
  ALWAYS,
  BRACKETS,
  Compact,
  ContextPolicy,
  Form,
  MessageBuilder,
  ReActAgent,
  ReActConfig,
  Tokens,
  type ContextPolicyOptions,
} from "../../src/toolkit/index.js";
import { LIBRARY } from "../../examples/tutorials/01-first-agent/library.js";
import { Document, Passage, search } from "../../examples/tutorials/02-citations/tools.js";
import { openThread } from "../fixtures/delegation.js";

const QUESTIONS = ["How often can I have bulky waste picked up?", "How much is a parking permit?", "And the dog tax?"];

/** A search and a cited answer per question; each output carries reasoning. */
function script(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }], reasoning: "Search first." },
    { content: "Four times a year, for free [2].", reasoning: "Passage 2 says it." },
    { toolCalls: [{ name: "search", arguments: { query: "parking permit" } }], reasoning: "Search first." },
    { content: "120 euros a year [5].", reasoning: "Passage 5 says it." },
    { toolCalls: [{ name: "search", arguments: { query: "dog tax" } }], reasoning: "Search first." },
    { content: "I found nothing on a dog tax.", reasoning: "Nothing fits." },
  ]);
}

// Small thresholds, so the default shrinks act in three questions; the prompt comes from the thread's resources.
const SMALL: ContextPolicyOptions = { startAt: new Tokens(500), target: new Tokens(250), minGain: null };

function agentOn(model: ChatModel, policy: ContextPolicyOptions = SMALL): ReActAgent<{ prompt: string }> {
  return new ReActAgent(
    (resources: { prompt: string }) =>
      new ReActConfig({
        model,
        prompt: resources.prompt,
        tools: [search.bind({ library: LIBRARY })],
        citations: BRACKETS,
        context: new MessageBuilder({ policy: new ContextPolicy({ ...policy, reasoning: ALWAYS }) }),
      }),
    { elementTypes: [Document, Passage] },
  );
}

const RESOURCES = { prompt: "Answer from the town documents; cite like [1]." };

/** Three turns of the conversation in one thread; the catalog gives the agent its resources. */
async function conversation(model: ScriptedModel, policy?: ContextPolicyOptions) {
  const store = new InMemoryTraceStore();
  const catalog = new AgentCatalog(store, { assistant: agentOn(model, policy) }, { resources: () => RESOURCES });
  const [thread] = await catalog.open("assistant", Input({ payload: QUESTIONS[0]!, model: "scripted" }));
  let trace: Trace = await thread.resume();
  for (const question of QUESTIONS.slice(1)) trace = await thread.send(Input({ payload: question, model: "scripted" }));
  return { store, catalog, thread, trace };
}

describe("replay(catalog, threadId)", () => {
  it("rebuilds every request of the thread with the thread's resources, to the hashes the outputs recorded", async () => {
    const model = script();
    const { catalog, thread, trace } = await conversation(model);
    const calls = await replay(catalog, thread.id);
    expect(calls.map((call) => call.output)).toEqual(trace.byType(ModelOutput));
    expect(calls.map((call) => call.request?.hash)).toEqual(model.requests.map((request) => request.hash));
    expect(calls.every((call) => call.matches)).toBe(true);
  });

  it("rebuilds a task's calls on its delegation's graph", async () => {
    const parent = new ScriptedModel([
      { toolCalls: [{ id: "p1", name: "research", arguments: { question: "bulky waste pickup" } }] },
      "Four times a year [2].",
    ]);
    const child = new ScriptedModel([
      { toolCalls: [{ name: "search", arguments: { query: "bulky waste" } }] },
      "Four times a year [2].",
    ]);
    const { catalog, thread } = await openThread(parent, child, QUESTIONS[0]!);
    await thread.resume();
    const calls = await replay(catalog, thread.id);
    expect(calls.map((call) => call.output.stream)).toEqual(["main", "task-p1", "task-p1", "main"]);
    expect(calls.every((call) => call.matches)).toBe(true);
  });

  it("shows what the model's adapter changes in each rebuilt request, without calling it", async () => {
    const { store, thread } = await conversation(script());
    // The same thread, replayed on the OpenAI adapter: its client points nowhere, since nothing is sent.
    const client = new OpenAI({ apiKey: "unused", baseURL: "http://127.0.0.1:9/v1" });
    const openai = new OpenAIChatModel(client, { model: "scripted", settings: { temperature: 0 } });
    const catalog = new AgentCatalog(store, { assistant: agentOn(openai) }, { resources: () => RESOURCES });
    const calls = await replay(catalog, thread.id);
    expect(calls.every((call) => call.matches)).toBe(true);
    const [first, second] = calls;
    // The first call sends no earlier output; the second sends the first's reasoning, which chat completions drops.
    expect(first!.prepared).toMatchObject({ settings: { model: "scripted", temperature: 0 }, changes: [] });
    expect(first!.prepared!.request.hash).toBe(first!.request!.hash);
    expect(second!.prepared!.changes).toEqual(["reasoning dropped: chat completions has no field for it"]);
    const sentReasoning = (call: typeof second) =>
      call!.request!.messages.flatMap((message) => (message.role === "assistant" ? [message.reasoning] : []));
    expect(sentReasoning(second)).toEqual(["Search first."]);
    expect(
      second!.prepared!.request.messages.flatMap((message) =>
        message.role === "assistant" ? [message.reasoning] : [],
      ),
    ).toEqual([null]);
  });

  it("prepares nothing for a model that cannot say what it sends", async () => {
    const { store, thread } = await conversation(script());
    const scripted = new ScriptedModel([]);
    const plain: ChatModel = {
      resolve: (name) => scripted.resolve(name),
      complete: (request, options) => scripted.complete(request, options),
      streamComplete: (request, options) => scripted.streamComplete(request, options),
    };
    const catalog = new AgentCatalog(store, { assistant: agentOn(plain) }, { resources: () => RESOURCES });
    const calls = await replay(catalog, thread.id);
    expect(calls.map((call) => call.prepared)).toEqual(calls.map(() => null));
    expect(calls.every((call) => call.matches)).toBe(true);
  });
});

describe("ReActAgent.explain(trace, call)", () => {
  for (const [name, policy] of [
    ["a MessageBuilder", SMALL],
    // A compact whose `when` no call reaches: the model step is wrapped, and explain reads through the wrap.
    ["a MessageBuilder with a compact", { ...SMALL, compact: new Compact({ when: new Tokens(30_000) }) }],
  ] as const) {
    it(`tells why each result has its form at a recorded call (${name})`, async () => {
      const { catalog, trace } = await conversation(script(), policy);
      const agent = catalog.agent("assistant") as ReActAgent<{ prompt: string }>;
      const outputs = trace.byType(ModelOutput);
      const explained = await agent.explain(trace, outputs.at(-1)!, { resources: RESOURCES });
      expect(explained.map((shrunk) => [shrunk.result, shrunk.form, String(shrunk.by), shrunk.at])).toEqual([
        ["r1", Form.COMPRESSED, "Compress(turns.slice(0, -2))", 5],
      ]);
      // The request passes startAt only with the third search's result: nothing was shrunk before.
      expect(await agent.explain(trace, outputs[4]!, { resources: RESOURCES })).toEqual([]);
    });
  }

  it("refuses a call that is not a model output of the trace", async () => {
    const { catalog, trace } = await conversation(script());
    const other = await conversation(script());
    const agent = catalog.agent("assistant") as ReActAgent<{ prompt: string }>;
    const foreign = { ...other.trace.byType(ModelOutput).at(-1)!, seq: 99 };
    await expect(agent.explain(trace, foreign, { resources: RESOURCES })).rejects.toThrow(ValueError);
  });
});
