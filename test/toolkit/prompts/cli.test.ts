import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PromptFile } from "../../../src/toolkit/index.js";

const EXAMPLE = "examples/prompt-file/assistant.yaml";
const digest = (model: string | null) => PromptFile.loadSync(EXAMPLE).forModel(model).digest;
const BASE_ROLE =
  "You are a careful assistant for the city's public services. Answer from the documents that search finds.";

// The command line as `npm run prompts` runs it: tsx over the source.
function prompts(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", "src/toolkit/prompts/cli.ts", ...args], {
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("soev-prompts", () => {
  it("prints what the base reads: the source, the prompt rendered with [1], the texts, the tool texts, the digest", () => {
    const { status, stdout, stderr } = prompts(EXAMPLE);
    expect(stderr).toBe("");
    expect(status).toBe(0);
    expect(stdout).toContain(`Prompt file: ${EXAMPLE}\nModel: none given: the base\nDigest: ${digest(null)}\n`);
    expect(stdout).toContain(
      "== System template source (what the system prompt renders) ==\n{% block role %}You are a careful assistant",
    );
    expect(stdout).toContain(
      `== System prompt, rendered with citation "[1]" ==\n${BASE_ROLE}\n\nCite each passage you use with its number, such as [1].\n`,
    );
    expect(stdout).toContain('== Text "no_results" ==\nSearch found nothing for {query}.');
    expect(stdout).toContain('== Text "finish" ==\nStop searching now and write your answer from what you have.\n');
    expect(stdout).toContain(
      '== Tool "search" ==\ndescription: Search the city\'s documents for passages about a subject.\n' +
        'argument "query": A few keywords, in the language of the documents.\n',
    );
  });

  it("prints the first layer: its extended block, its text, and another digest", () => {
    const { status, stdout } = prompts(EXAMPLE, "--model", "gpt-4.1-mini");
    expect(status).toBe(0);
    expect(stdout).toContain(`Model: gpt-4.1-mini (model layer 1: gpt-4.1-mini)\nDigest: ${digest("gpt-4.1-mini")}\n`);
    expect(stdout).toContain(
      '== System template source (what the system prompt renders) ==\n{% extends "base" %}\n' +
        "{% block role %}{{ super() }} Keep answers under 150 words.{% endblock %}\n",
    );
    expect(stdout).toContain(
      `rendered with citation "[1]" ==\n${BASE_ROLE} Keep answers under 150 words.\n\nCite each passage`,
    );
    expect(stdout).toContain('== Text "finish" ==\nStop now. Answer in at most three sentences from what you found.\n');
    expect(stdout).toContain("description: Search the city's documents");
  });

  it("prints the second layer for each of its endpoints: its replaced block and tool description", () => {
    for (const model of ["llama-3.1-8b", "qwen-2.5-7b"]) {
      const { status, stdout } = prompts(EXAMPLE, "--model", model);
      expect(status).toBe(0);
      expect(stdout).toContain(
        `Model: ${model} (model layer 2: llama-3.1-8b, qwen-2.5-7b)\nDigest: ${digest(model)}\n`,
      );
      expect(stdout).toContain(
        `${BASE_ROLE}\n\nAfter every sentence that uses a passage, write its number in brackets, such as [1]. Never invent a number.\n`,
      );
      expect(stdout).toContain('== Text "finish" ==\nStop searching now');
      expect(stdout).toContain('== Tool "search" ==\ndescription: Search documents. Call it with short keywords;');
      expect(stdout).toContain('argument "query": A few keywords, in the language of the documents.');
    }
  });

  it("says when no layer names the model, and prints the base", () => {
    const { status, stdout } = prompts(EXAMPLE, "--model", "mistral-small");
    expect(status).toBe(0);
    expect(stdout).toContain(`Model: mistral-small (no model layer names it: the base)\nDigest: ${digest(null)}\n`);
  });

  it("prints a file without a system template", () => {
    const { status, stdout } = prompts("test/fixtures/prompts/no-system.yaml");
    expect(status).toBe(0);
    expect(stdout).toContain("== System prompt ==\n(the file has no system template)\n");
    expect(stdout).toContain('description: (the tool\'s own)\nargument "query": Keywords.\n');
  });

  it.each([
    [
      "test/fixtures/prompts/unknown-field.yaml",
      /unknown-field\.yaml does not have the shape of a prompt file[\s\S]*text/,
    ],
    ["test/fixtures/prompts/unknown-variable.yaml", /unknown-variable\.yaml: the system template reads "user_name"/],
    ["test/fixtures/prompts/missing.yaml", /cannot read the prompt file test\/fixtures\/prompts\/missing\.yaml/],
  ])("refuses the bad file %s with exit code 2 and a message naming it", (file, message) => {
    const { status, stdout, stderr } = prompts(file);
    expect(status).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^soev-prompts: /);
    expect(stderr).toMatch(message);
  });

  it("refuses bad arguments with exit code 2 and its usage", () => {
    for (const args of [[], [EXAMPLE, "other.yaml"], [EXAMPLE, "--modle", "x"]]) {
      const { status, stderr } = prompts(...args);
      expect(status).toBe(2);
      expect(stderr).toContain("usage: soev-prompts FILE [--model ENDPOINT]");
    }
  });
});
