import { describe, expect, it } from "vitest";
import { Input, ToolOutput } from "../../../src/domain/events.js";
import type { Message } from "../../../src/ports/messages.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import {
  ChatTurnInput,
  ReActAgent,
  ReActConfig,
  ToolDeclaration,
  type TextTurn,
  type ToolStates,
} from "../../../src/toolkit/index.js";
import { lookup, runTurn, search } from "../../fixtures/react-turn.js";

const PROMPT = "You answer questions about the town.";

const userTexts = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === "user").map((message) => message.content);
const offered = (model: ScriptedModel) => model.requests.map((request) => request.tools.map((def) => def.name));

describe("a ReAct turn's tools", () => {
  it("offers the declared tools that are supplied and not off, in the order of declared", async () => {
    const model = new ScriptedModel(["Hello."]);
    const declared = [
      new ToolDeclaration({ name: "lookup" }),
      new ToolDeclaration({ name: "translate" }),
      new ToolDeclaration({ name: "search" }),
    ];
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, declared, tools: [search, lookup] }), {
      input: ChatTurnInput,
    });
    await runTurn(agent, { text: "Hi" });
    expect(offered(model)).toEqual([["lookup", "search"]]);
  });

  it("offers no tool that the turn turns off, and one whose default is off when the turn asks for it", async () => {
    const model = new ScriptedModel(["Hello."]);
    const declared = [new ToolDeclaration({ name: "search" }), new ToolDeclaration({ name: "lookup", default: "off" })];
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, declared, tools: [search, lookup] }), {
      input: ChatTurnInput,
    });
    await runTurn(agent, { text: "Hi", tools: { search: "off", lookup: "auto" } });
    expect(offered(model)).toEqual([["lookup"]]);
  });

  it("does not run a tool that the turn did not offer, and tells the model which tools there are", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search", arguments: { query: "hours" } }] },
      "I cannot search.",
    ]);
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, tools: [search, lookup] }), {
      input: ChatTurnInput,
    });
    const { trace } = await runTurn(agent, { text: "Hi", tools: { search: "off" } });
    expect(trace.byType(ToolOutput)[0]!.error).toMatch(/no tool named "search".*lookup/);
  });

  it("adds the instruction of a required tool after the input's message, after a blank line", async () => {
    const model = new ScriptedModel(["Hello."]);
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, tools: [search, lookup] }), {
      input: ChatTurnInput,
    });
    await runTurn(agent, { text: "When does the library open?", tools: { lookup: "required", search: "required" } });
    expect(userTexts(model.requests[0]!.messages)).toEqual([
      "When does the library open?\n\nUse the search tool for this message.\nUse the lookup tool for this message.",
    ]);
    expect(offered(model)).toEqual([["search", "lookup"]]);
  });

  it("writes the instruction in the words of the tool's declaration", async () => {
    const model = new ScriptedModel(["Hello."]);
    const declared = [
      new ToolDeclaration({
        name: "search",
        default: "required",
        requiredToolInstruction: "Search with {tool} before you answer.",
      }),
    ];
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, declared, tools: [search] }));
    await runTurn(agent, "When does the library open?");
    expect(userTexts(model.requests[0]!.messages)).toEqual([
      "When does the library open?\n\nSearch with search before you answer.",
    ]);
  });

  it("gives each input the instructions of the states it asked itself, at every later call", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search", arguments: { query: "hours" } }] },
      "It opens at nine.",
      "You are welcome.",
    ]);
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, tools: [search] }), { input: ChatTurnInput });
    const { thread } = await runTurn(agent, { text: "When does the library open?", tools: { search: "required" } });
    await thread.send(Input({ payload: { text: "Thanks!" }, model: "scripted" }));

    const first = "When does the library open?\n\nUse the search tool for this message.";
    expect(userTexts(model.requests[0]!.messages)).toEqual([first]);
    expect(userTexts(model.requests[1]!.messages)).toEqual([first]);
    expect(userTexts(model.requests[2]!.messages)).toEqual([first, "Thanks!"]);
  });

  it("reads the states with the config's toolStates", async () => {
    const model = new ScriptedModel(["Hello."]);
    const agent = new ReActAgent(
      new ReActConfig({
        model,
        prompt: PROMPT,
        tools: [search, lookup],
        toolStates: (turn: TextTurn): ToolStates => (turn.text.includes("?") ? { lookup: "off" } : {}),
      }),
    );
    await runTurn(agent, "Open today?");
    expect(offered(model)).toEqual([["search"]]);
  });
});
