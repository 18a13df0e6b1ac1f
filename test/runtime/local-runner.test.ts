// The local runner: streaming when someone follows, a Failure for a passing tool error and a resume that
// finishes the turn, and a permanent error that fails the turn.
import { expect, it } from "vitest";
import { z } from "zod";
import { InMemoryTraceStore } from "../../src/adapters/index.js";
import { Failure, Input, ModelOutput, ToolOutput } from "../../src/domain/index.js";
import { ReasoningDelta, TransientError } from "../../src/ports/index.js";
import { AgentCatalog, tool } from "../../src/runtime/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ReActAgent, ReActConfig } from "../../src/toolkit/index.js";

function catalogOf(model: ScriptedModel, tools = [echo()]) {
  const agent = new ReActAgent(new ReActConfig({ model, prompt: "Answer.", tools }));
  return new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
}

function echo(failures: Error[] = [], counter = { calls: 0 }) {
  return tool({
    name: "echo",
    description: "Say the words back.",
    args: { words: z.string().describe("The words.") },
    async run({ words }) {
      counter.calls++;
      const failure = failures.shift();
      if (failure) throw failure;
      return ToolOutput({ text: words });
    },
  });
}

it("streams the model's fragments to a follower and records the same output", async () => {
  const model = new ScriptedModel([{ content: "The answer is four.", reasoning: "Two and two." }]);
  const [thread] = await catalogOf(model).open("assistant", Input({ payload: "Two and two?", model: "scripted" }));
  const fragments: unknown[] = [];
  const trace = await thread.resume({ onFragment: (fragment) => fragments.push(fragment) });
  const text = fragments.filter((fragment): fragment is string => typeof fragment === "string").join("");
  const reasoning = fragments
    .filter((fragment): fragment is ReasoningDelta => fragment instanceof ReasoningDelta)
    .map((delta) => delta.text)
    .join("");
  expect(text).toBe("The answer is four.");
  expect(reasoning).toBe("Two and two.");
  expect(trace.byType(ModelOutput).at(-1)).toMatchObject({ content: "The answer is four.", reasoning: "Two and two." });
});

it("records a Failure for a tool's TransientError, and runs the call again when the thread runs again", async () => {
  const model = new ScriptedModel([{ toolCalls: [{ name: "echo", arguments: { words: "hello" } }] }, "Done."]);
  const counter = { calls: 0 };
  const tools = [echo([new TransientError("The echo service is down.")], counter)];
  const [thread] = await catalogOf(model, tools).open(
    "assistant",
    Input({ payload: "Echo hello.", model: "scripted" }),
  );

  await expect(thread.resume()).rejects.toThrow("The echo service is down.");
  const failed = await thread.trace();
  expect(failed.byType(Failure)).toEqual([
    expect.objectContaining({ error: "TransientError", retryable: true, callId: "call_1", origin: "tools" }),
  ]);
  expect(failed.byType(ToolOutput)).toHaveLength(0);

  const trace = await thread.resume();
  expect(trace.byType(ToolOutput)).toEqual([expect.objectContaining({ callId: "call_1", text: "hello" })]);
  expect(trace.byType(ModelOutput).map((output) => output.content)).toEqual(["", "Done."]);
  expect(counter.calls).toBe(2);
  expect(model.requests).toHaveLength(2);
});

it("fails the turn on a permanent model error and records it once", async () => {
  const model = new ScriptedModel([new TypeError("The adapter is broken.")]);
  const [thread] = await catalogOf(model).open("assistant", Input({ payload: "Hi", model: "scripted" }));
  await expect(thread.resume()).rejects.toThrow("The adapter is broken.");
  const trace = await thread.trace();
  expect(trace.byType(Failure)).toEqual([
    expect.objectContaining({ error: "TypeError", retryable: false, callId: null, origin: "model" }),
  ]);
  expect(trace.byType(ModelOutput)).toHaveLength(0);
});

it("refuses an input that the agent's input type does not parse, before anything is recorded", async () => {
  const store = new InMemoryTraceStore();
  const agent = new ReActAgent(new ReActConfig({ model: new ScriptedModel([]), prompt: "Answer." }));
  const catalog = new AgentCatalog(store, { assistant: agent });
  await expect(
    catalog.open("assistant", Input({ payload: { text: 1 }, model: "scripted" }), { threadId: "t1" }),
  ).rejects.toThrow(/does not fit the agent's input type/);
  expect(await store.threads({ limit: 10 })).toEqual([]);
});
