import { describe, expect, it } from "vitest";
import { Input, ModelOutput, Request, Response, ToolOutput } from "../../../src/domain/events.js";
import { encode } from "../../../src/domain/registry.js";
import { FINISH_DIRECTIVE } from "../../../src/runtime/steps/tool-step.js";
import { FunctionModel, ScriptedModel } from "../../../src/testing/index.js";
import { ReActAgent, ReActConfig } from "../../../src/toolkit/index.js";
import { runTurn, search } from "../../fixtures/react-turn.js";

const PROMPT = "You answer questions about the town.";

function searching(...queries: string[]) {
  return { toolCalls: queries.map((query) => ({ name: "search", arguments: { query } })) };
}

// A model that calls the search tool whenever it is offered one, and answers only when it is offered none.
function neverStops(): FunctionModel {
  return new FunctionModel((request, call) =>
    request.tools.length > 0 ? searching(`query ${call.index + 1}`) : "Done.",
  );
}

const toolCounts = (model: FunctionModel | ScriptedModel) => model.requests.map((request) => request.tools.length);

describe("the budget of a ReAct turn, past the cap", () => {
  it("stops a model that never stops calling tools after passes + toolRoundsAfterCap + 1 calls, with the defaults", async () => {
    // Outputs 1 to 11 call the tool; call 12 offers no tools, so the 12th output of the script is the answer.
    const model = new ScriptedModel([
      ...Array.from({ length: 11 }, (_, index) => searching(`query ${index + 1}`)),
      "I found nothing.",
    ]);
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, tools: [search] }));
    const { trace } = await runTurn(agent, "When does the library open?");

    expect(model.requests).toHaveLength(12);
    const offered = model.requests.map((request) => request.tools.map((def) => def.name));
    expect(offered.slice(0, 11)).toEqual(Array.from({ length: 11 }, () => ["search"]));
    expect(offered[11]).toEqual([]);

    const results = trace.byType(ToolOutput);
    expect(results.map((result) => result.text)).toEqual([
      ...Array.from({ length: 10 }, (_, index) => `Nothing found for "query ${index + 1}".`),
      FINISH_DIRECTIVE,
    ]);
    // The model reads the directive as the result of its 11th call.
    expect(model.requests[11]!.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: results[10]!.callId,
      content: FINISH_DIRECTIVE,
    });
    expect(trace.byType(ModelOutput).at(-1)!.content).toBe("I found nothing.");
  });

  it("stops a model that calls a tool whenever it is offered one, with other passes and tool rounds after the cap", async () => {
    const model = neverStops();
    const agent = new ReActAgent(
      new ReActConfig({ model, prompt: PROMPT, tools: [search], passes: 3, toolRoundsAfterCap: 2 }),
    );
    const { trace } = await runTurn(agent, "When does the library open?", { model: "function" });

    expect(toolCounts(model)).toEqual([1, 1, 1, 1, 1, 0]);
    expect(trace.byType(ToolOutput).map((result) => result.text)).toEqual([
      'Nothing found for "query 1".',
      'Nothing found for "query 2".',
      'Nothing found for "query 3".',
      FINISH_DIRECTIVE,
      FINISH_DIRECTIVE,
    ]);
    expect(trace.byType(ModelOutput).at(-1)!.content).toBe("Done.");
  });

  it("ends the turn after the directives when a model calls tools even though none were offered", async () => {
    const model = new FunctionModel((_request, call) => searching(`query ${call.index + 1}`));
    const agent = new ReActAgent(
      new ReActConfig({ model, prompt: PROMPT, tools: [search], passes: 1, toolRoundsAfterCap: 1 }),
    );
    const { trace } = await runTurn(agent, "Hi", { model: "function" });
    expect(toolCounts(model)).toEqual([1, 1, 0]);
    expect(trace.byType(ToolOutput).map((result) => result.text)).toEqual([
      'Nothing found for "query 1".',
      FINISH_DIRECTIVE,
      FINISH_DIRECTIVE,
    ]);
    expect(trace.events.at(-1)).toMatchObject({ type: "tool-output", text: FINISH_DIRECTIVE });
  });

  it("withdraws the tools right after the cap when toolRoundsAfterCap is 0", async () => {
    const model = neverStops();
    const agent = new ReActAgent(
      new ReActConfig({ model, prompt: PROMPT, tools: [search], passes: 2, toolRoundsAfterCap: 0 }),
    );
    const { trace } = await runTurn(agent, "Hi", { model: "function" });
    expect(toolCounts(model)).toEqual([1, 1, 0]);
    expect(trace.byType(ToolOutput).map((result) => result.text)).not.toContain(FINISH_DIRECTIVE);
  });

  it("gives each call of an output past the cap the directive, and runs none of them", async () => {
    const model = new ScriptedModel([searching("a"), searching("b", "c"), "Done."]);
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, tools: [search], passes: 1 }));
    const { trace } = await runTurn(agent, "Hi");
    expect(trace.byType(ToolOutput).map((result) => result.text)).toEqual([
      'Nothing found for "a".',
      FINISH_DIRECTIVE,
      FINISH_DIRECTIVE,
    ]);
    expect(toolCounts(model)).toEqual([1, 1, 0]);
  });

  it("counts the passes of each turn on its own", async () => {
    const model = neverStops();
    const agent = new ReActAgent(
      new ReActConfig({ model, prompt: PROMPT, tools: [search], passes: 1, toolRoundsAfterCap: 0 }),
    );
    const { thread } = await runTurn(agent, "Hi", { model: "function" });
    await thread.send(Input({ payload: "And tomorrow?", model: "function" }));
    expect(toolCounts(model)).toEqual([1, 0, 1, 0]);
  });
});

describe("resetsOnAnswer", () => {
  async function answeredTurn(resetsOnAnswer: boolean): Promise<FunctionModel> {
    const model = neverStops();
    const agent = new ReActAgent(
      new ReActConfig({ model, prompt: PROMPT, tools: [search], passes: 1, toolRoundsAfterCap: 0, resetsOnAnswer }),
    );
    const { thread, catalog } = await runTurn(agent, "Find the opening hours.", { model: "function" });
    // The agent asked the user a question and the user answered: the turn goes on from the answer.
    await catalog.store.append(thread.id, [
      encode(Request({ requestId: "branch", text: "Which branch do you mean?" })),
      encode(Response({ requestId: "branch", payload: "The one in Delft." })),
    ]);
    await thread.resume();
    return model;
  }

  it("is false by default: the count covers the whole turn, so the tools stay withdrawn after an answer", async () => {
    expect(toolCounts(await answeredTurn(false))).toEqual([1, 0, 0]);
  });

  it("when true, starts the count of passes again at each Response to a Request", async () => {
    const model = await answeredTurn(true);
    expect(toolCounts(model)).toEqual([1, 0, 1, 0]);
    expect(model.requests[2]!.messages.at(-1)).toEqual({ role: "user", content: "The one in Delft." });
  });
});

describe("repeats", () => {
  async function repeatedCall(repeats?: boolean): Promise<(string | null)[]> {
    const model = new ScriptedModel([searching("hours"), searching("hours"), "Done."]);
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, tools: [search], repeats }));
    const { trace } = await runTurn(agent, "Hi");
    return trace.byType(ToolOutput).map((result) => result.error);
  }

  it("is false by default: a call identical to an earlier successful call of the turn does not run again", async () => {
    const errors = await repeatedCall();
    expect(errors[0]).toBeNull();
    expect(errors[1]).toMatch(/ran with these arguments before in this turn/);
  });

  it("when true, runs an identical call again", async () => {
    expect(await repeatedCall(true)).toEqual([null, null]);
  });
});
