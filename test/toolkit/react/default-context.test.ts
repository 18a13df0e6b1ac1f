// The default context of a ReActConfig, as the reference describes it: a MessageBuilder with the default
// ContextPolicy, which shrinks old results to fit the limits and keeps room for the model's output; it
// does not compact, and a call whose prompt leaves less room fails the turn before the model is called.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Compaction, Failure, Input, ModelOutput, ToolOutput, encode } from "../../../src/domain/index.js";
import { AgentCatalog, InputTooLargeError, tool } from "../../../src/runtime/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import {
  COMPRESSED,
  CompactingStep,
  ContextFullError,
  ContextPolicy,
  DEFAULT_LIMITS,
  MessageBuilder,
  ModelLimits,
  ReActAgent,
  ReActConfig,
  Text,
  Tokens,
} from "../../../src/toolkit/index.js";
import { Passage } from "../../../examples/tutorials/02-citations/tools.js";

// About 6,500 tokens at the default three characters a token: three results pass the default startAt,
// 60% of the default window of 32,000 tokens.
const PAGE = "The town council met and spoke about the budget. ".repeat(400);

const read = tool({
  name: "read",
  description: "Read one page of the council's minutes.",
  args: { page: z.number().int().describe("The page to read.") },
  async run({ page }) {
    return ToolOutput({ elements: [Passage({ id: `page-${page}`, text: PAGE })] });
  },
});

/** A ReActAgent with every default but model, prompt and tools. */
function agentOn(model: ScriptedModel): ReActAgent {
  return new ReActAgent(new ReActConfig({ model, prompt: "Answer from the minutes.", tools: [read] }), {
    elementTypes: [Passage],
  });
}

/** Four turns, each reading one page and answering, on the model `modelName` (the Input's). */
async function fourTurns(modelName = "scripted") {
  const model = new ScriptedModel(
    [1, 2, 3, 4].flatMap((page) => [{ toolCalls: [{ name: "read", arguments: { page } }] }, `Page ${page} read.`]),
  );
  const agent = agentOn(model);
  const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
  const [thread] = await catalog.open("assistant", Input({ payload: "Read page 1.", model: modelName }));
  let trace = await thread.resume();
  for (const page of [2, 3, 4]) trace = await thread.send(Input({ payload: `Read page ${page}.`, model: modelName }));
  return { agent, model, trace };
}

describe("the default context of a ReActConfig", () => {
  it("is a MessageBuilder with the default ContextPolicy", () => {
    const config = new ReActConfig({ model: new ScriptedModel([]), prompt: "Answer." });
    expect(config.context).toBeInstanceOf(MessageBuilder);
    expect((config.context as MessageBuilder).policy).toEqual(new ContextPolicy());
  });

  it("shrinks old results to fit the limits: the results of all turns but the last two are compressed", async () => {
    const { agent, model, trace } = await fourTurns();
    const last = trace.byType(ModelOutput).at(-1)!;
    const explained = await agent.explain(trace, last);
    expect(explained.map((shrunk) => [shrunk.result, shrunk.form, String(shrunk.by)])).toEqual([
      ["r1", COMPRESSED, "Compress(turns.slice(0, -2))"],
      ["r2", COMPRESSED, "Compress(turns.slice(0, -2))"],
    ]);
    // The last request shows the newest two pages whole and the older two without their text.
    const sent = model.requests.at(-1)!.messages.filter((message) => message.role === "tool");
    expect(sent.map((message) => String(message.content).includes(PAGE))).toEqual([false, false, true, true]);
  });

  it("takes the known limits of the turn's model: on a 200,000-token window nothing of the same thread is shrunk", async () => {
    const { agent, model, trace } = await fourTurns("anthropic:claude-sonnet-4-5");
    expect(await agent.explain(trace, trace.byType(ModelOutput).at(-1)!)).toEqual([]);
    const sent = model.requests.at(-1)!.messages.filter((message) => message.role === "tool");
    expect(sent.map((message) => String(message.content).includes(PAGE))).toEqual([true, true, true, true]);
  });

  it("keeps limits the config gives, whatever the turn's model", async () => {
    const config = new ReActConfig({ model: new ScriptedModel([]), prompt: "Answer.", limits: DEFAULT_LIMITS });
    expect(config.limitsFor("claude-sonnet-4-5").window.count).toBe(200_000);
    const small = new ModelLimits({ window: new Tokens(32_000) });
    const own = new ReActConfig({ model: new ScriptedModel([]), prompt: "Answer.", limits: small });
    expect(own.limitsFor("claude-sonnet-4-5")).toBe(small);
  });

  it("does not compact, and refuses a call whose prompt leaves less than the output reserve, before the model is called", async () => {
    const model = new ScriptedModel(["Never called."]);
    const agent = agentOn(model);
    expect(agent.build(undefined, Text.parse("x"), "scripted").step("model")).not.toBeInstanceOf(CompactingStep);
    const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
    // About 26,000 tokens: below the window of 32,000, but not with the 8,192 that the output needs.
    const input = Input({ payload: PAGE.repeat(4), model: "scripted" });
    // Admission refuses it before anything is recorded; one recorded by an older version fails its call.
    await expect(catalog.open("assistant", input)).rejects.toThrow(InputTooLargeError);
    expect(await catalog.store.threads({ limit: 10 })).toEqual([]);
    await catalog.store.append("t1", [encode(catalog.opening("assistant", input))]);
    const thread = await catalog.thread("t1");
    await expect(thread.resume()).rejects.toThrow(ContextFullError);
    expect(model.requests).toHaveLength(0);
    const trace = await thread.trace();
    expect(trace.byType(Failure).map((failure) => failure.error)).toEqual(["ContextFullError"]);
    expect(trace.byType(Compaction)).toEqual([]);
  });
});
