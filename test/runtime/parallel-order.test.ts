// The local runner records the results of parallel tool calls in the order the model made the calls,
// whichever call finished first, so two runs with different tool timings record the same trace.
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { z } from "zod";
import { InMemoryTraceStore } from "../../src/adapters/index.js";
import { Failure, Input, ToolOutput, type Trace } from "../../src/domain/index.js";
import { AgentCatalog, tool } from "../../src/runtime/index.js";
import { FunctionModel, ScriptedModel } from "../../src/testing/index.js";
import { ReActAgent, ReActConfig } from "../../src/toolkit/index.js";
import { research } from "../fixtures/delegation.js";

const WORDS = ["first", "second", "third"];

/** A tool whose calls finish in `finishing` order (by their words), and raise for the words in `failing`. */
function timed(finishing: string[], failing: string[] = []) {
  const finished: string[] = [];
  return tool({
    name: "echo",
    description: "Say the words back.",
    args: { words: z.string().describe("The words.") },
    async run({ words }) {
      while (finished.length < finishing.indexOf(words)) await sleep(1);
      finished.push(words);
      if (failing.includes(words)) throw new TypeError(`The echo of "${words}" broke.`);
      return ToolOutput({ text: words });
    },
  });
}

async function runOnce(finishing: string[], failing: string[] = []): Promise<Trace> {
  const model = new ScriptedModel([
    { toolCalls: WORDS.map((words) => ({ name: "echo", arguments: { words } })) },
    "Done.",
  ]);
  const agent = new ReActAgent(new ReActConfig({ model, prompt: "Answer.", tools: [timed(finishing, failing)] }));
  const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
  const [thread] = await catalog.open("assistant", Input({ payload: "Echo three times.", model: "scripted" }));
  await thread.resume().catch(() => undefined);
  return thread.trace();
}

const timeless = (trace: Trace) => trace.events.map((event) => ({ ...event, ts: null }));

it("records parallel tool results in call order, whichever call finished first", async () => {
  const trace = await runOnce(["third", "first", "second"]);
  expect(trace.byType(ToolOutput).map((output) => output.text)).toEqual(WORDS);
  expect(trace.byType(ToolOutput).map((output) => output.callId)).toEqual(["call_1", "call_2", "call_3"]);
});

it("records the same trace for two runs whose tools finished in different orders", async () => {
  const one = await runOnce(["third", "second", "first"]);
  const other = await runOnce(["first", "second", "third"]);
  expect(timeless(one)).toEqual(timeless(other));
});

it("records a failed call's Failure where its result would have been, before the later calls' results", async () => {
  const trace = await runOnce(["third", "second", "first"], ["second"]);
  const after = trace.events.slice(trace.events.findIndex((event) => event.type === "model-output") + 1);
  expect(
    after.map((event) => (Failure.is(event) ? `failure ${event.callId}` : `${event.type} ${event.callId}`)),
  ).toEqual(["tool-output call_1", "failure call_2", "tool-output call_3"]);
});

it("does not hold a later call's result until a delegated task before it ends: the task's result lands when it ends", async () => {
  const store = new InMemoryTraceStore();
  let threadId = "";
  // The researcher answers only once the parent's third call has its result: a runner that held that result
  // until the task before it ended would never finish.
  const researcherModel = new FunctionModel(async () => {
    for (;;) {
      const trace = await catalog.read(threadId, "assistant");
      if (trace.byType(ToolOutput).some((output) => output.callId === "call_3")) return "Nothing more to find.";
      await sleep(5);
    }
  });
  const parentModel = new ScriptedModel([
    {
      toolCalls: [
        { name: "echo", arguments: { words: "first" } },
        { name: "research", arguments: { question: "What else?" } },
        { name: "echo", arguments: { words: "third" } },
      ],
    },
    "Done.",
  ]);
  const config = new ReActConfig({
    model: parentModel,
    prompt: "Answer.",
    tools: [research(researcherModel), timed(["first", "third"])],
  });
  const catalog = new AgentCatalog(store, { assistant: new ReActAgent(config) }, { version: "test" });
  const [thread] = await catalog.open("assistant", Input({ payload: "Go.", model: "scripted" }));
  threadId = thread.id;
  const trace = await thread.resume();
  expect(
    trace
      .stream("main")
      .byType(ToolOutput)
      .map((output) => output.callId),
  ).toEqual(["call_1", "call_3", "call_2"]);
});
