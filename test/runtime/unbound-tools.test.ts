// A tool with values that nothing bound is refused when the turn starts, before any model call: the model
// is never offered a tool that cannot run, and no model call is spent on the turn. A task's graph is checked
// the same way when the task starts, before the task's first model call.
import { expect, it } from "vitest";
import { InMemoryTraceStore } from "../../src/adapters/index.js";
import { Input, ModelOutput } from "../../src/domain/index.js";
import { AgentCatalog, UnboundToolError } from "../../src/runtime/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ReActAgent, ReActConfig } from "../../src/toolkit/index.js";
import { LIBRARY, search } from "./tools/town.js";
import { assistant, research } from "../fixtures/delegation.js";

it("refuses a turn whose agent holds an unbound tool before its input is recorded and the model is called", async () => {
  const model = new ScriptedModel([{ toolCalls: [{ name: "search", arguments: { query: "dog" } }] }, "Done."]);
  const agent = new ReActAgent(new ReActConfig({ model, prompt: "Answer.", tools: [search] }));
  const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });

  const refused = catalog.open("assistant", Input({ payload: "Dogs?", model: "scripted" }), { threadId: "t1" });
  await expect(refused).rejects.toThrow(UnboundToolError);
  await expect(refused).rejects.toThrow('Tool "search" has values that nothing bound: "library".');
  expect(model.requests).toHaveLength(0);
  expect(await catalog.store.threads({ limit: 10 })).toEqual([]);
});

it("refuses a task whose delegation's graph holds an unbound tool before the task's model is called", async () => {
  const parent = new ScriptedModel([
    { toolCalls: [{ id: "p1", name: "research", arguments: { question: "dogs" } }] },
    "Done.",
  ]);
  const child = new ScriptedModel([{ toolCalls: [{ name: "search", arguments: { query: "dog" } }] }, "Dogs."]);
  const agent = assistant(parent, research(child, search));
  const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
  const [thread] = await catalog.open("assistant", Input({ payload: "Dogs?", model: "scripted" }));

  await expect(thread.resume()).rejects.toThrow('Tool "search" has values that nothing bound: "library".');
  expect(parent.requests).toHaveLength(1);
  expect(child.requests).toHaveLength(0);
  expect((await thread.trace()).byType(ModelOutput).map((output) => output.stream)).toEqual(["main"]);
});

it("refuses to resume a recorded turn on code whose tool is now unbound, before the model is called", async () => {
  const store = new InMemoryTraceStore();
  const bound = new ReActAgent(
    new ReActConfig({ model: new ScriptedModel([]), prompt: "Answer.", tools: [search.bind({ library: LIBRARY })] }),
  );
  const [opened] = await new AgentCatalog(store, { assistant: bound }, { version: "1" }).open(
    "assistant",
    Input({ payload: "Dogs?", model: "scripted" }),
  );
  // The next deploy forgot to bind the library: the input recorded before it is resumed on it.
  const model = new ScriptedModel([{ toolCalls: [{ name: "search", arguments: { query: "dog" } }] }, "Done."]);
  const unbound = new ReActAgent(new ReActConfig({ model, prompt: "Answer.", tools: [search] }));
  const thread = await new AgentCatalog(store, { assistant: unbound }, { version: "2" }).thread(opened.id);

  await expect(thread.resume()).rejects.toThrow(UnboundToolError);
  expect(model.requests).toHaveLength(0);
  expect((await thread.trace()).byType(ModelOutput)).toEqual([]);
});
