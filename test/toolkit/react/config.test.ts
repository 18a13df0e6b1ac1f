import { describe, expect, it } from "vitest";
import { ValueError } from "../../../src/domain/errors.js";
import { BRACKETS } from "../../../src/runtime/citations.js";
import type { Tool } from "../../../src/runtime/contracts.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { ModelLimits, Tokens } from "../../../src/toolkit/context/limits.js";
import { MessageBuilder } from "../../../src/toolkit/context/message-builder.js";
import {
  ChatTurnInput,
  PromptFile,
  PromptFileError,
  REACT_DEFAULTS,
  ReActConfig,
  ToolDeclaration,
  elementsThenText,
  type ContextStrategy,
} from "../../../src/toolkit/index.js";
import { lookup, search } from "../../fixtures/react-turn.js";

const model = new ScriptedModel([]);
const PROMPT = "You answer questions about the town.";

// A context strategy that adds a tool of its own, as a policy's reopen does.
function addingContext(added: Tool): ContextStrategy {
  const builder = new MessageBuilder();
  return { addedTools: [added], forTurn: (parts) => builder.forTurn(parts), wrap: (step) => step };
}

describe("ReActConfig defaults", () => {
  const config = new ReActConfig({ model, prompt: PROMPT });

  it("needs only model and prompt", () => {
    expect(config.model).toBe(model);
    expect(config.prompt).toBe(PROMPT);
  });

  it("has a window of 32,000 tokens", () => {
    expect(config.limits.window.count).toBe(32_000);
  });

  it("does not cite, declares nothing, supplies no tools", () => {
    expect(config.citations).toBeNull();
    expect(config.declared).toBeNull();
    expect(config.tools).toEqual([]);
    expect(config.declarations).toEqual([]);
  });

  it("renders inputs with elementsThenText and reads tool states from the turn's tools field", () => {
    expect(config.renderInput).toBe(elementsThenText);
    expect(config.toolStates(ChatTurnInput.parse({ text: "Hi", tools: { search: "off" } }))).toEqual({ search: "off" });
    expect(config.toolStates({ text: "no tools field" })).toEqual({});
    expect(config.keepsDefault("renderInput")).toBe(true);
    expect(config.keepsDefault("toolStates")).toBe(true);
  });

  it("allows 10 passes and 1 tool round after the cap, counts over the whole turn, and does not repeat calls", () => {
    expect([config.passes, config.toolRoundsAfterCap, config.resetsOnAnswer, config.repeats]).toEqual([
      10,
      1,
      false,
      false,
    ]);
  });

  it("keeps its defaults in REACT_DEFAULTS", () => {
    expect(REACT_DEFAULTS).toMatchObject({
      passes: 10,
      toolRoundsAfterCap: 1,
      resetsOnAnswer: false,
      repeats: false,
      citations: null,
      declared: null,
    });
    expect(Object.isFrozen(REACT_DEFAULTS)).toBe(true);
  });

  it("takes every setting it is given", () => {
    const limits = new ModelLimits({ window: new Tokens(128_000) });
    const states = () => ({});
    const given = new ReActConfig({
      model,
      prompt: PROMPT,
      limits,
      citations: BRACKETS,
      tools: [search],
      toolStates: states,
      passes: 3,
      toolRoundsAfterCap: 0,
      resetsOnAnswer: true,
      repeats: true,
    });
    expect(given).toMatchObject({
      limits,
      citations: BRACKETS,
      passes: 3,
      toolRoundsAfterCap: 0,
      resetsOnAnswer: true,
      repeats: true,
    });
    expect(given.toolStates).toBe(states);
    expect(given.keepsDefault("toolStates")).toBe(false);
  });
});

describe("ReActConfig declarations", () => {
  it("declares each supplied tool with the state auto when declared is null", () => {
    const config = new ReActConfig({ model, prompt: PROMPT, tools: [search, lookup] });
    expect(
      config.declarations.map((declaration) => [declaration.name, declaration.default, declaration.locked]),
    ).toEqual([
      ["search", "auto", false],
      ["lookup", "auto", false],
    ]);
  });

  it("are the declared ones when given, also for tools this turn does not supply", () => {
    const declared = [new ToolDeclaration({ name: "lookup", default: "off" }), new ToolDeclaration({ name: "search" })];
    const config = new ReActConfig({ model, prompt: PROMPT, declared, tools: [search] });
    expect(config.declarations).toEqual(declared);
  });
});

describe("ReActConfig errors", () => {
  it("refuses a negative toolRoundsAfterCap, and passes that are not a whole number of at least 0", () => {
    expect(() => new ReActConfig({ model, prompt: PROMPT, toolRoundsAfterCap: -1 })).toThrow(ValueError);
    expect(() => new ReActConfig({ model, prompt: PROMPT, passes: -1 })).toThrow(/passes/);
    expect(() => new ReActConfig({ model, prompt: PROMPT, passes: 2.5 })).toThrow(/passes/);
    expect(new ReActConfig({ model, prompt: PROMPT, toolRoundsAfterCap: 0 }).toolRoundsAfterCap).toBe(0);
  });

  it("refuses two declarations that share a name", () => {
    const declared = [new ToolDeclaration({ name: "search" }), new ToolDeclaration({ name: "search", default: "off" })];
    expect(() => new ReActConfig({ model, prompt: PROMPT, declared })).toThrow(
      /Two declarations share the name "search"/,
    );
  });

  it("refuses tools that hold a tool twice", () => {
    expect(() => new ReActConfig({ model, prompt: PROMPT, tools: [search, search] })).toThrow(/"search" twice/);
  });

  it("refuses a supplied tool that is not declared", () => {
    const declared = [new ToolDeclaration({ name: "search" })];
    expect(() => new ReActConfig({ model, prompt: PROMPT, declared, tools: [search, lookup] })).toThrow(
      /"lookup", which is not declared/,
    );
  });

  it("refuses a supplied or declared tool with the name of a tool that the context adds", () => {
    const context = addingContext(lookup);
    expect(() => new ReActConfig({ model, prompt: PROMPT, context, tools: [lookup] })).toThrow(/the context adds/);
    expect(
      () => new ReActConfig({ model, prompt: PROMPT, context, declared: [new ToolDeclaration({ name: "lookup" })] }),
    ).toThrow(ValueError);
    expect(
      new ReActConfig({ model, prompt: PROMPT, context, tools: [search] }).declarations.map((d) => d.name),
    ).toEqual(["search"]);
  });

  it("refuses settings of the wrong kind", () => {
    expect(() => new ReActConfig({ model: {} as never, prompt: PROMPT })).toThrow(/ChatModel/);
    expect(() => new ReActConfig({ model, prompt: 42 as never })).toThrow(/prompt/);
    expect(() => new ReActConfig({ model, prompt: PROMPT, limits: { window: 1 } as never })).toThrow(/ModelLimits/);
    expect(() => new ReActConfig({ model, prompt: PROMPT, citations: "[1]" as never })).toThrow(/CitationStrategy/);
    expect(() => new ReActConfig({ model, prompt: PROMPT, repeats: "yes" as never })).toThrow(/repeats/);
  });

  it("refuses a PromptFile whose system template reads a variable other than citation", () => {
    const file = PromptFile.parse("system: 'Hello {{ user_name }}, cite like {{ citation }}.'");
    expect(() => new ReActConfig({ model, prompt: file })).toThrow(PromptFileError);
    expect(() => new ReActConfig({ model, prompt: file })).toThrow(/user_name/);
  });

  it("refuses a PromptFile whose model layer replaces a block with one that reads another variable", () => {
    const file = PromptFile.parse(
      [
        "system: '{% block role %}You help.{% endblock %}'",
        "models:",
        "  - endpoints: [small]",
        "    blocks:",
        "      role: 'You help {{ user }}.'",
      ].join("\n"),
    );
    expect(() => new ReActConfig({ model, prompt: file })).toThrow(/block "role"/);
  });

  it("takes a PromptFile whose templates read only citation", () => {
    const file = PromptFile.parse("system: 'Cite like {{ citation }}.'");
    expect(new ReActConfig({ model, prompt: file }).prompt).toBe(file);
  });
});
