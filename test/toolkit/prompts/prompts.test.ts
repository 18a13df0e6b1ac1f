import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PromptFile, PromptFileError, Prompts } from "../../../src/toolkit/index.js";
import { testTool } from "./tools.js";

const example = PromptFile.loadSync("examples/prompt-file/assistant.yaml");

const BASE_ROLE =
  "You are a careful assistant for the city's public services. Answer from the documents that search finds.";

describe("PromptFile.forModel", () => {
  it("gives a model that no layer names, or none, the base alone", () => {
    for (const model of [null, undefined, "some-other-model"]) {
      const prompts = example.forModel(model);
      expect(prompts.blocks).toEqual({});
      expect(prompts.texts).toEqual(example.texts);
      expect(prompts.tools).toEqual(example.tools);
      expect(prompts.digest).toBe(example.forModel(null).digest);
    }
  });

  it("puts the layer's blocks and texts over the base, and merges its tool texts", () => {
    const gpt = example.forModel("gpt-4.1-mini");
    expect(Object.keys(gpt.blocks)).toEqual(["role"]);
    expect(gpt.text("finish")).toBe("Stop now. Answer in at most three sentences from what you found.");
    expect(gpt.text("no_results")).toBe(example.texts.no_results);
    const qwen = example.forModel("qwen-2.5-7b");
    expect(qwen.tools.search?.description).toMatch(/^Search documents\. Call it with short keywords/);
    expect(qwen.tools.search?.arguments).toEqual({ query: "A few keywords, in the language of the documents." });
    expect(example.forModel("llama-3.1-8b").digest).toBe(qwen.digest);
  });

  it("adds a layer's argument texts over the base's and keeps the base description when the layer gives none", () => {
    const file = new PromptFile({
      tools: { search: { description: "Search.", arguments: { query: "Words.", limit: "How many." } } },
      models: [{ endpoints: ["m"], tools: { search: { arguments: { query: "Short words." } } } }],
    });
    expect(file.forModel("m").tools.search).toEqual({
      description: "Search.",
      arguments: { query: "Short words.", limit: "How many." },
    });
  });
});

describe("Prompts.system and source", () => {
  it("renders the base template with the citation", () => {
    expect(example.forModel(null).system({ citation: "[1]" })).toBe(
      `${BASE_ROLE}\n\nCite each passage you use with its number, such as [1].`,
    );
    expect(example.forModel(null).system({ citation: null })).toBe(`${BASE_ROLE}\n\nName the documents you use.`);
  });

  it("extends a block with super() and replaces another, per layer", () => {
    expect(example.forModel("gpt-4.1-mini").system({ citation: "[1]" })).toBe(
      `${BASE_ROLE} Keep answers under 150 words.\n\nCite each passage you use with its number, such as [1].`,
    );
    expect(example.forModel("llama-3.1-8b").system({ citation: "[1]" })).toBe(
      `${BASE_ROLE}\n\nAfter every sentence that uses a passage, write its number in brackets, such as [1]. Never invent a number.`,
    );
  });

  it("has the base template as its source, or a template that extends the base with the overrides", () => {
    expect(example.forModel(null).source).toBe(example.system);
    const source = example.forModel("gpt-4.1-mini").source;
    expect(source).toBe(
      '{% extends "base" %}\n{% block role %}{{ super() }} Keep answers under 150 words.{% endblock %}',
    );
  });

  it("escapes nothing: the template is plain text", () => {
    const prompts = new Prompts({ template: 'Use <b>{{ citation }}</b> & "quotes".' });
    expect(prompts.system({ citation: "<1> & '2'" })).toBe("Use <b><1> & '2'</b> & \"quotes\".");
  });

  it("drops one trailing newline of the template, as Jinja does", () => {
    expect(new Prompts({ template: "Hello.\n\n" }).system()).toBe("Hello.\n");
  });

  it("fails a render that does not get a variable the template reads, in output or in a condition", () => {
    const prompts = example.forModel(null);
    expect(() => prompts.system({})).toThrow(PromptFileError);
    expect(() => prompts.system({})).toThrow(/reads "citation", which the render was not given/);
    expect(() => new Prompts({ template: "{{ name }}" }).system({ name: undefined })).toThrow(/failed to render/);
  });

  it("refuses to render a file without a system template", () => {
    const prompts = new PromptFile({ texts: { a: "A" } }).forModel(null);
    expect(prompts.template).toBeNull();
    expect(prompts.source).toBe("");
    expect(() => prompts.system({ citation: "[1]" })).toThrow(PromptFileError);
    expect(() => prompts.system({ citation: "[1]" })).toThrow(/no system template/);
  });

  it("refuses blocks without a template", () => {
    expect(() => new Prompts({ template: null, blocks: { role: "x" } })).toThrow(PromptFileError);
  });
});

describe("Prompts.text", () => {
  it("returns the text as the file writes it, placeholders unfilled", () => {
    expect(example.forModel(null).text("no_results")).toBe(
      "Search found nothing for {query}. Try other words, or say that you do not know.",
    );
  });

  it("refuses a key that the file does not define, naming the keys it does", () => {
    expect(() => example.forModel(null).text("missing")).toThrow(PromptFileError);
    expect(() => example.forModel(null).text("missing")).toThrow(/no text "missing" \(it defines no_results, finish\)/);
  });
});

describe("Prompts.digest", () => {
  it("is 16 hex characters, the same for the same file and model", () => {
    const digest = example.forModel("gpt-4.1-mini").digest;
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(PromptFile.loadSync("examples/prompt-file/assistant.yaml").forModel("gpt-4.1-mini").digest).toBe(digest);
  });

  it("does not depend on the order of keys", () => {
    const one = new Prompts({
      template: "T",
      texts: { a: "A", b: "B" },
      tools: { s: { description: "S", arguments: { x: "X", y: "Y" } } },
    });
    const two = new Prompts({
      template: "T",
      texts: { b: "B", a: "A" },
      tools: { s: { arguments: { y: "Y", x: "X" }, description: "S" } },
    });
    expect(two.digest).toBe(one.digest);
  });

  it("changes with any text the model reads", () => {
    const fields = {
      template: "T {% block b %}B{% endblock %}",
      texts: { a: "A" },
      tools: { s: { description: "S", arguments: { x: "X" } } },
    };
    const digest = new Prompts(fields).digest;
    const changed = [
      { ...fields, template: "T2 {% block b %}B{% endblock %}" },
      { ...fields, blocks: { b: "B2" } },
      { ...fields, texts: { a: "A2" } },
      { ...fields, tools: { s: { description: "S2", arguments: { x: "X" } } } },
      { ...fields, tools: { s: { description: "S", arguments: { x: "X2" } } } },
    ];
    const digests = changed.map((each) => new Prompts(each).digest);
    expect(new Set([digest, ...digests]).size).toBe(changed.length + 1);
    expect(new Set(["gpt-4.1-mini", "qwen-2.5-7b", null].map((model) => example.forModel(model).digest)).size).toBe(3);
  });
});

describe("Prompts.described", () => {
  const search = testTool("search", "Search the web.", z.object({ query: z.string(), limit: z.number() }), {
    query: "The query.",
  });
  const fetch = testTool("fetch", "Fetch a page.", z.object({ url: z.string() }));

  it("returns a new list in the same order: the tool with texts a copy, the others the same objects", () => {
    const tools = [fetch, search];
    const described = example.forModel(null).described(tools);
    expect(described).not.toBe(tools);
    expect(described.map((tool) => tool.name)).toEqual(["fetch", "search"]);
    expect(described[0]).toBe(fetch);
    expect(described[1]).not.toBe(search);
    expect(described[1]?.description).toBe("Search the city's documents for passages about a subject.");
    expect(described[1]?.argumentDescriptions).toEqual({ query: "A few keywords, in the language of the documents." });
    expect(search.description).toBe("Search the web.");
  });

  it("uses the texts of the model's layer", () => {
    const [described] = example.forModel("qwen-2.5-7b").described([search]);
    expect(described?.description).toMatch(/^Search documents\./);
  });

  it("keeps a tool's own description when the file gives only argument texts", () => {
    const prompts = new Prompts({
      template: null,
      tools: { search: { description: null, arguments: { limit: "At most." } } },
    });
    const [described] = prompts.described([search]);
    expect(described?.description).toBe("Search the web.");
    expect(described?.argumentDescriptions).toEqual({ query: "The query.", limit: "At most." });
  });

  it("refuses texts for a tool that the agent does not have", () => {
    expect(() => example.forModel(null).described([fetch])).toThrow(PromptFileError);
    expect(() => example.forModel(null).described([fetch])).toThrow(
      /texts for tool "search", which the agent does not have \(its tools: fetch\)/,
    );
  });

  it("refuses texts for an argument that the model does not write", () => {
    const prompts = new Prompts({
      template: null,
      tools: { search: { description: null, arguments: { qurey: "Typo." } } },
    });
    expect(() => prompts.described([search])).toThrow(
      /argument "qurey" of tool "search", which the model does not write \(it writes query, limit\)/,
    );
  });

  it("returns the same objects when the file gives no tool texts", () => {
    const described = new Prompts({ template: null }).described([search, fetch]);
    expect(described[0]).toBe(search);
    expect(described[1]).toBe(fetch);
  });
});
