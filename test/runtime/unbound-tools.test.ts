// A tool with values that nothing bound is refused when the turn starts, before any model call: the model
// is never offered a tool that cannot run, and no model call is spent on the turn.
import { expect, it } from "vitest";
import { InMemoryTraceStore } from "../../src/adapters/index.js";
import { Input, ModelOutput } from "../../src/domain/index.js";
import { AgentCatalog, UnboundToolError } from "../../src/runtime/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ReActAgent, ReActConfig } from "../../src/toolkit/index.js";
import { search } from "./tools/town.js";

it("refuses a turn whose agent holds an unbound tool before the model is called", async () => {
  const model = new ScriptedModel([{ toolCalls: [{ name: "search", arguments: { query: "dog" } }] }, "Done."]);
  const agent = new ReActAgent(new ReActConfig({ model, prompt: "Answer.", tools: [search] }));
  const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
  const [thread] = await catalog.open("assistant", Input({ payload: "Dogs?", model: "scripted" }));

  const refused = thread.resume();
  await expect(refused).rejects.toThrow(UnboundToolError);
  await expect(refused).rejects.toThrow('Tool "search" has values that nothing bound: "library".');
  expect(model.requests).toHaveLength(0);
  expect((await thread.trace()).byType(ModelOutput)).toHaveLength(0);
});
