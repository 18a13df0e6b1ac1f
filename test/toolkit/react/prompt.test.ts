import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Input } from "../../../src/domain/events.js";
import { AgentCatalog } from "../../../src/runtime/index.js";
import { BRACKETS } from "../../../src/runtime/citations.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import {
  ChatTurnInput,
  PromptFile,
  PromptFileError,
  ReActAgent,
  ReActConfig,
  promptTemplate,
} from "../../../src/toolkit/index.js";
import { runTurn, search } from "../../fixtures/react-turn.js";

const systemOf = (model: ScriptedModel, call = 0) => model.requests[call]!.messages[0];

describe("the system prompt of a ReAct turn", () => {
  it("is the text that the config gives", async () => {
    const model = new ScriptedModel(["Hello."]);
    await runTurn(new ReActAgent(new ReActConfig({ model, prompt: "You help." })), "Hi");
    expect(systemOf(model)).toEqual({ role: "system", content: "You help." });
  });

  it("is written by a prompt function from the parsed turn and the example citation", async () => {
    const seen: unknown[] = [];
    const model = new ScriptedModel(["Hello.", "Hello again."]);
    const prompt = (turn: ChatTurnInput, citation: string | null) => {
      seen.push(citation);
      return `Answer "${turn.text}". Cite like ${citation ?? "nothing"}.`;
    };
    await runTurn(new ReActAgent(new ReActConfig({ model, prompt, citations: BRACKETS }), { input: ChatTurnInput }), {
      text: "Hi",
    });
    await runTurn(new ReActAgent(new ReActConfig({ model, prompt }), { input: ChatTurnInput }), { text: "Hey" });
    // Each turn's first call is built once when its input is admitted (does it fit the window?), once when it runs.
    expect(seen).toEqual(["[1]", "[1]", null, null]);
    expect(systemOf(model, 0)!.content).toBe('Answer "Hi". Cite like [1].');
    expect(systemOf(model, 1)!.content).toBe('Answer "Hey". Cite like nothing.');
  });

  it("fills promptTemplate's {context} from a ChatTurnInput", async () => {
    const model = new ScriptedModel(["Hello."]);
    const agent = new ReActAgent(
      new ReActConfig({ model, prompt: promptTemplate("You help. {context}"), citations: BRACKETS }),
      { input: ChatTurnInput },
    );
    await runTurn(agent, { text: "Hi", context: " The user lives in Delft. " });
    expect(systemOf(model)!.content).toBe("You help. The user lives in Delft.");
  });

  it("refuses a {context} template for an input type without a context field, before any model call", async () => {
    const model = new ScriptedModel(["Hello."]);
    const input = z.strictObject({ text: z.string() });
    const config = () =>
      new ReActConfig({ model, prompt: promptTemplate("You help. {context}"), toolStates: () => ({}) });
    expect(() => new ReActAgent(config(), { input })).toThrow(/The prompt writes \{context\}.*has none/);
    // A loose type cannot say: the parsed turn is checked when the turn is built.
    const loose = new ReActAgent(config(), { input: z.looseObject({ text: z.string() }) });
    await expect(runTurn(loose, { text: "Hi" })).rejects.toThrow(/The prompt writes \{context\}/);
    expect(model.requests).toHaveLength(0);
    // A template without {context} needs no such field.
    expect(
      () =>
        new ReActAgent(new ReActConfig({ model, prompt: promptTemplate("You help."), toolStates: () => ({}) }), {
          input,
        }),
    ).not.toThrow();
  });
});

describe("a PromptFile as the prompt of a ReAct turn", () => {
  const file = PromptFile.parse(
    [
      "system: '{% block role %}You help.{% endblock %} {% if citation %}Cite like {{ citation }}.{% else %}Do not cite.{% endif %}'",
      "tools:",
      "  search: { description: Search the town's documents., arguments: { query: Keywords. } }",
      "models:",
      "  - endpoints: [small]",
      "    blocks: { role: '{{ super() }} Be brief.' }",
      "    tools:",
      "      search: { description: Search. Use short keywords. }",
    ].join("\n"),
  );

  it("gives the base texts to a model that no layer names: the template rendered with only citation, and its tool texts", async () => {
    const model = new ScriptedModel(["Hello."]);
    await runTurn(
      new ReActAgent(new ReActConfig({ model, prompt: file, tools: [search], citations: BRACKETS })),
      "Hi",
      { model: "large" },
    );
    expect(systemOf(model)!.content).toBe("You help. Cite like [1].");
    const def = model.requests[0]!.tools[0]!;
    expect(def.description).toBe("Search the town's documents.");
    expect(def.parameters).toMatchObject({ properties: { query: { description: "Keywords." } } });
  });

  it("gives a model its layer's texts", async () => {
    const model = new ScriptedModel(["Hello."]);
    await runTurn(new ReActAgent(new ReActConfig({ model, prompt: file, tools: [search] })), "Hi", { model: "small" });
    expect(systemOf(model)!.content).toBe("You help. Be brief. Do not cite.");
    expect(model.requests[0]!.tools[0]!.description).toBe("Search. Use short keywords.");
  });

  it("without a system template refuses the turn's input before it is recorded: its first call cannot be built", async () => {
    const model = new ScriptedModel(["Hello."]);
    const agent = new ReActAgent(new ReActConfig({ model, prompt: PromptFile.parse("texts: { finish: Stop now. }") }));
    const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent });
    const opened = catalog.open("assistant", Input({ payload: "Hi", model: "scripted" }), { threadId: "t1" });
    await expect(opened).rejects.toThrow(PromptFileError);
    await expect(opened).rejects.toThrow(/no system template/);
    expect(model.requests).toHaveLength(0);
    expect(await catalog.store.threads({ limit: 10 })).toEqual([]);
  });
});
