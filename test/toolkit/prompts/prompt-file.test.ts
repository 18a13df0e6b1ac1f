import { describe, expect, it } from "vitest";
import { CallerError } from "../../../src/domain/errors.js";
import { PromptFile, PromptFileError } from "../../../src/toolkit/index.js";

const EXAMPLE = "examples/prompt-file/assistant.yaml";

const BASE = `
system: |
  {% block role %}You help.{% endblock %}
  {% block citing %}Cite as {{ citation }}.{% endblock %}
texts:
  finish: Finish now.
`;

function refusal(action: () => unknown): PromptFileError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(PromptFileError);
    return error as PromptFileError;
  }
  throw new Error("expected a PromptFileError, but nothing was thrown");
}

describe("PromptFile", () => {
  it("loads the example: its blocks and the endpoints of its two layers", async () => {
    const file = await PromptFile.load(EXAMPLE);
    expect([...file.blocks]).toEqual(["role", "citing"]);
    expect([...file.endpoints].sort()).toEqual(["gpt-4.1-mini", "llama-3.1-8b", "qwen-2.5-7b"]);
    expect(file.models).toHaveLength(2);
    expect(file.origin).toBe(EXAMPLE);
    expect(PromptFile.loadSync(EXAMPLE).forModel("gpt-4.1-mini").digest).toBe(file.forModel("gpt-4.1-mini").digest);
  });

  it("has documented defaults: no system template, no texts, no tools, no layers", () => {
    for (const file of [PromptFile.parse(""), new PromptFile({})]) {
      expect(file.system).toBeNull();
      expect(file.texts).toEqual({});
      expect(file.tools).toEqual({});
      expect(file.models).toEqual([]);
      expect(file.blocks.size).toBe(0);
      expect(file.endpoints.size).toBe(0);
    }
    const tools = PromptFile.parse("tools:\n  search: {}\n").tools;
    expect(tools).toEqual({ search: { description: null, arguments: {} } });
    const layer = PromptFile.parse("models:\n  - endpoints: [m]\n").models[0];
    expect(layer).toEqual({ endpoints: ["m"], blocks: {}, texts: {}, tools: {} });
  });

  it("is a caller's error", () => {
    expect(refusal(() => PromptFile.parse("nope: 1"))).toBeInstanceOf(CallerError);
  });

  it.each([
    ["the top level", "sytem: Hello\n", "sytem"],
    ["a model layer", "models:\n  - endpoints: [m]\n    text: {}\n", "text"],
    ["tool texts", "tools:\n  search:\n    descripton: Search.\n", "descripton"],
  ])("refuses an unknown field of %s, naming it and the file", (_where, yaml, field) => {
    const error = refusal(() => PromptFile.parse(yaml, "bad.yaml"));
    expect(error.message).toContain("bad.yaml");
    expect(error.message).toContain(field);
  });

  it("refuses another shape: a text that is not a string, a layer without endpoints", () => {
    expect(refusal(() => PromptFile.parse("texts:\n  finish: [a]\n")).message).toContain("texts");
    expect(refusal(() => PromptFile.parse("models:\n  - endpoints: []\n")).message).toContain("endpoints");
    expect(refusal(() => PromptFile.parse("models:\n  - texts: {}\n")).message).toContain("endpoints");
    expect(refusal(() => PromptFile.parse("- a list\n")).message).toContain("shape");
  });

  it("refuses a file that is not YAML, naming the file", () => {
    expect(refusal(() => PromptFile.parse("system: [unclosed\n", "broken.yaml")).message).toMatch(
      /broken\.yaml is not valid YAML/,
    );
  });

  it("refuses a file it cannot read, naming it", async () => {
    await expect(PromptFile.load("test/fixtures/prompts/missing.yaml")).rejects.toThrow(
      /cannot read the prompt file test\/fixtures\/prompts\/missing\.yaml/,
    );
  });

  it("refuses a layer that replaces a block the base does not define", () => {
    const yaml = `${BASE}models:\n  - endpoints: [m]\n    blocks:\n      rol: Hi.\n`;
    const error = refusal(() => PromptFile.parse(yaml, "layers.yaml"));
    expect(error.message).toContain('replaces block "rol"');
    expect(error.message).toContain("layers.yaml");
  });

  it("refuses a block override when the file has no system template", () => {
    expect(
      refusal(() => PromptFile.parse("models:\n  - endpoints: [m]\n    blocks:\n      role: Hi.\n")).message,
    ).toContain('block "role"');
  });

  it("refuses a layer that replaces a text the base does not define", () => {
    const yaml = `${BASE}models:\n  - endpoints: [m]\n    texts:\n      finnish: Stop.\n`;
    expect(refusal(() => PromptFile.parse(yaml)).message).toContain('replaces text "finnish"');
  });

  it("refuses two layers that name one endpoint", () => {
    const yaml = `${BASE}models:\n  - endpoints: [a, b]\n  - endpoints: [c, b]\n`;
    const error = refusal(() => PromptFile.parse(yaml, "twice.yaml"));
    expect(error.message).toContain('endpoint "b"');
    expect(error.message).toContain("model layer 1");
  });

  it("allows a layer to give tool texts that the base does not: tools are checked when applied", () => {
    const file = PromptFile.parse(
      `${BASE}models:\n  - endpoints: [m]\n    tools:\n      fetch:\n        description: Fetch.\n`,
    );
    expect(file.forModel("m").tools).toEqual({ fetch: { description: "Fetch.", arguments: {} } });
  });

  it("refuses invalid Jinja at load, naming the file", () => {
    const error = refusal(() => PromptFile.parse("system: '{% block role %}You help.'\n", "jinja.yaml"));
    expect(error.message).toMatch(/the system template in jinja\.yaml is not valid Jinja/);
    expect(refusal(() => PromptFile.parse("system: 'Hi {{ name '\n")).message).toContain("not valid Jinja");
    expect(refusal(() => PromptFile.parse("system: '{% frobnicate %}'\n")).message).toContain("frobnicate");
  });

  it("refuses invalid Jinja in a block override, naming the block and the file", () => {
    const yaml = `${BASE}models:\n  - endpoints: [m]\n    blocks:\n      role: "{% if x %}unclosed"\n`;
    const error = refusal(() => PromptFile.parse(yaml, "override.yaml"));
    expect(error.message).toContain('block "role" of model layer 1 (m) in override.yaml is not valid Jinja');
  });

  it("refuses an unknown filter at load", () => {
    expect(refusal(() => PromptFile.parse("system: '{{ citation | shout }}'\n")).message).toContain(
      'unknown filter "shout"',
    );
    expect(PromptFile.parse("system: '{{ citation | upper }}'\n").forModel(null).system({ citation: "[a]" })).toBe(
      "[A]",
    );
  });
});
