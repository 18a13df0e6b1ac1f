import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ValueError } from "../../../src/domain/errors.js";
import { InMemoryTraceStore } from "../../../src/adapters/stores/memory.js";
import { Input } from "../../../src/domain/events.js";
import { AgentCatalog } from "../../../src/runtime/catalog.js";
import { InputDeniedError } from "../../../src/runtime/errors.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import {
  ChatTurnInput,
  MODEL_NODE,
  PromptFile,
  PromptFileError,
  ReActAgent,
  ReActConfig,
  TOOLS_NODE,
  Text,
  ToolDeclaration,
  elementsThenText,
  type ReActConfigOptions,
} from "../../../src/toolkit/index.js";
import { lookup, runTurn, search } from "../../fixtures/react-turn.js";

const PROMPT = "You answer questions about the town.";
const model = new ScriptedModel([]);
const turn = (fields: { text: string; tools?: Record<string, "off" | "auto" | "required"> }) =>
  ChatTurnInput.parse(fields);

describe("ReActAgent", () => {
  it("takes Text as its input type by default, and no element or event types", () => {
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT }));
    expect(agent.input).toBe(Text);
    expect(agent.elementTypes).toEqual([]);
    expect(agent.eventTypes).toEqual([]);
  });

  it("takes the settings of a config as a plain object too", () => {
    const agent = new ReActAgent({ model, prompt: PROMPT, tools: [search] });
    expect(agent.declarations!.map((declaration) => declaration.name)).toEqual(["search"]);
  });

  it("builds a two-node graph: the model, then the tools while the model calls tools", () => {
    const graph = new ReActAgent(new ReActConfig({ model, prompt: PROMPT })).build(
      undefined,
      Text.parse("Hi"),
      "scripted",
    );
    expect(graph.names).toEqual([MODEL_NODE, TOOLS_NODE]);
    expect(graph.start).toBe(MODEL_NODE);
  });

  it("renders an earlier input once while the config stays the same: a later turn's builder keeps that render", async () => {
    const rendered: string[] = [];
    const agent = new ReActAgent(
      new ReActConfig({
        model: new ScriptedModel(["One.", "Two.", "Three.", "Four."]),
        prompt: PROMPT,
        renderInput: (turn, show, input) => (rendered.push(turn.text), elementsThenText(turn, show, input)),
      }),
    );
    const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
    const [thread] = await catalog.open("assistant", Input({ payload: "First?", model: "scripted" }));
    await thread.send(Input({ payload: "Second?", model: "scripted" }));
    for (const question of ["Third?", "Fourth?"]) {
      rendered.length = 0;
      await thread.send(Input({ payload: question, model: "scripted" }));
      expect(rendered.length).toBeGreaterThan(0);
      expect(new Set(rendered)).toEqual(new Set([question]));
    }
  });

  it("refuses a turn whose input records no model", () => {
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT }));
    expect(() => agent.build(undefined, Text.parse("Hi"), null)).toThrow(InputDeniedError);
  });
});

describe("ReActAgent: defaults that read fields of the input type", () => {
  const NoText = z.strictObject({
    question: z.string(),
    tools: z.record(z.string(), z.enum(["off", "auto", "required"])).default({}),
  });
  const NoTools = z.strictObject({ text: z.string() });

  it("refuses a config that keeps the default renderInput when the input type has no text field", () => {
    expect(() => new ReActAgent(new ReActConfig({ model, prompt: PROMPT }), { input: NoText })).toThrow(
      /default renderInput.*"text"/,
    );
  });

  it("refuses a config that keeps the default toolStates when the input type has no tools field", () => {
    expect(() => new ReActAgent(new ReActConfig({ model, prompt: PROMPT }), { input: NoTools })).toThrow(
      /default toolStates.*"tools"/,
    );
  });

  it("takes such an input type with settings of its own", () => {
    const agent = new ReActAgent(
      new ReActConfig<z.output<typeof NoText>>({
        model,
        prompt: PROMPT,
        renderInput: (parsed) => ({ role: "user", content: parsed.question }),
      }),
      { input: NoText },
    );
    expect(agent.input).toBe(NoText);
    const withStates = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, toolStates: () => ({}) }), {
      input: NoTools,
    });
    expect(withStates.input).toBe(NoTools);
  });

  it("takes Text and ChatTurnInput with the defaults", () => {
    expect(() => new ReActAgent(new ReActConfig({ model, prompt: PROMPT }), { input: ChatTurnInput })).not.toThrow();
    expect(() => new ReActAgent(new ReActConfig({ model, prompt: PROMPT }), { input: Text })).not.toThrow();
  });

  it("checks an input type that it cannot inspect, a transform, on the parsed turn at build", () => {
    const Question = z.string().transform((question) => ({ question, tools: {} }));
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT }), { input: Question });
    expect(() => agent.build(undefined, Question.parse("Hi"), "scripted")).toThrow(/default renderInput/);
    const Message = z.string().transform((text) => ({ text, tools: {} }));
    expect(
      new ReActAgent(new ReActConfig({ model, prompt: PROMPT }), { input: Message }).build(
        undefined,
        Message.parse("Hi"),
        "scripted",
      ).names,
    ).toHaveLength(2);
  });
});

describe("ReActAgent: a config function", () => {
  it("gets the thread's resources, the parsed turn and the model name, and its config runs the turn", async () => {
    const calls: unknown[] = [];
    const answering = new ScriptedModel(["Hello from the config function."]);
    const agent = new ReActAgent<{ user: string }, ChatTurnInput>(
      (resources, parsed, name) => {
        calls.push([resources, parsed, name]);
        return new ReActConfig({ model: answering, prompt: `You help ${resources.user}.` });
      },
      { input: ChatTurnInput },
    );
    const catalog = new AgentCatalog(
      new InMemoryTraceStore(),
      { assistant: agent },
      { resources: () => ({ user: "Ada" }) },
    );
    await runTurn(agent, { text: "Hi" }, { catalog });
    expect(calls).toEqual([[{ user: "Ada" }, { text: "Hi", tools: {}, context: null }, "scripted"]]);
    expect(answering.requests[0]!.messages[0]).toEqual({ role: "system", content: "You help Ada." });
  });

  it("refuses a turn by throwing InputDeniedError", async () => {
    const agent = new ReActAgent((_resources, _turn, name): ReActConfigOptions => {
      throw new InputDeniedError(`This agent does not run on ${name}.`);
    });
    await expect(runTurn(agent, "Hi", { model: "gpt-5" })).rejects.toThrow(/does not run on gpt-5/);
  });

  it("is validated at build: tools that hold a tool twice, or a tool that is not declared", () => {
    const twice = new ReActAgent(() => ({ model, prompt: PROMPT, tools: [search, search] }));
    expect(() => twice.build(undefined, Text.parse("Hi"), "scripted")).toThrow(ValueError);
    const undeclared = new ReActAgent(() => ({
      model,
      prompt: PROMPT,
      declared: [new ToolDeclaration({ name: "search" })],
      tools: [lookup],
    }));
    expect(() => undeclared.build(undefined, Text.parse("Hi"), "scripted")).toThrow(/not declared/);
    expect(undeclared.declarations).toBeNull();
  });

  it("is validated at build against the input type's fields", () => {
    const agent = new ReActAgent(() => ({ model, prompt: PROMPT }), { input: z.strictObject({ text: z.string() }) });
    expect(() => agent.build(undefined, { text: "Hi" }, "scripted")).toThrow(/default toolStates/);
  });

  it("must return a config", () => {
    const agent = new ReActAgent(() => undefined as never);
    expect(() => agent.build(undefined, Text.parse("Hi"), "scripted")).toThrow(/must return a ReActConfig/);
  });
});

describe("ReActAgent: the tool states that a turn asks", () => {
  const declared = [
    new ToolDeclaration({ name: "search" }),
    new ToolDeclaration({ name: "lookup", default: "off", locked: true }),
  ];
  const agent = new ReActAgent(new ReActConfig({ model, prompt: PROMPT, declared, tools: [search] }), {
    input: ChatTurnInput,
  });

  it("refuses a turn that names a tool that was never declared", () => {
    expect(() => agent.build(undefined, turn({ text: "Hi", tools: { translate: "auto" } }), "scripted")).toThrow(
      /never declared/,
    );
  });

  it("refuses a turn that asks another state of a locked tool, and takes one that asks its default", () => {
    expect(() => agent.build(undefined, turn({ text: "Hi", tools: { lookup: "auto" } }), "scripted")).toThrow(
      InputDeniedError,
    );
    expect(() => agent.build(undefined, turn({ text: "Hi", tools: { lookup: "off" } }), "scripted")).not.toThrow();
  });

  it("refuses a turn that requires a tool that tools leaves out", () => {
    const unlocked = new ReActAgent(
      new ReActConfig({
        model,
        prompt: PROMPT,
        declared: [new ToolDeclaration({ name: "search" }), new ToolDeclaration({ name: "lookup" })],
        tools: [search],
      }),
      { input: ChatTurnInput },
    );
    expect(() => unlocked.build(undefined, turn({ text: "Hi", tools: { lookup: "required" } }), "scripted")).toThrow(
      /requires the tool "lookup"/,
    );
    expect(() => unlocked.build(undefined, turn({ text: "Hi", tools: { lookup: "auto" } }), "scripted")).not.toThrow();
  });

  it("refuses a state that a custom toolStates gives and that is no ToolState", () => {
    const custom = new ReActAgent(
      new ReActConfig({ model, prompt: PROMPT, tools: [search], toolStates: () => ({ search: "always" as never }) }),
    );
    expect(() => custom.build(undefined, Text.parse("Hi"), "scripted")).toThrow(/"always"/);
  });
});

describe("ReActAgent: a PromptFile's tool texts", () => {
  const file = PromptFile.parse(
    [
      "system: 'You help. Cite like {{ citation }}.'",
      "tools:",
      "  search: { description: Search the town's documents. }",
      "models:",
      "  - endpoints: [small]",
      "    tools:",
      "      search: { arguments: { terms: A few words. } }",
    ].join("\n"),
  );

  it("are checked for every model when the agent is made: a text for a tool not in tools, or an argument the model does not write", () => {
    expect(() => new ReActAgent(new ReActConfig({ model, prompt: file, tools: [lookup] }))).toThrow(
      /tool "search", which the agent does not have/,
    );
    expect(() => new ReActAgent(new ReActConfig({ model, prompt: file, tools: [search] }))).toThrow(PromptFileError);
  });

  it("are checked for the turn's model at build when a function builds the config", () => {
    const agent = new ReActAgent(() => new ReActConfig({ model, prompt: file, tools: [search] }));
    expect(agent.build(undefined, Text.parse("Hi"), "large").names).toHaveLength(2);
    expect(() => agent.build(undefined, Text.parse("Hi"), "small")).toThrow(/argument "terms" of tool "search"/);
  });
});

describe("elementsThenText as the default", () => {
  it("is what a config keeps when it names it itself", () => {
    expect(new ReActConfig({ model, prompt: PROMPT, renderInput: elementsThenText }).keepsDefault("renderInput")).toBe(
      true,
    );
    expect(
      () =>
        new ReActAgent(new ReActConfig({ model, prompt: PROMPT, renderInput: elementsThenText }), {
          input: z.strictObject({ q: z.string(), tools: z.record(z.string(), z.string()) }),
        }),
    ).toThrow(ValueError);
  });
});
