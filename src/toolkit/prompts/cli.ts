#!/usr/bin/env node
/**
 * soev-prompts FILE [--model ENDPOINT]: print what one model reads of a prompt file: the system template
 * source, the system prompt rendered with the citation example "[1]", each text, each tool's texts, and
 * the digest. Exit code 2 for a bad file or bad arguments.
 */
import { parseArgs } from "node:util";
import { PromptFile } from "./prompt-file.js";
import { PromptFileError } from "./schema.js";
import type { Prompts } from "./prompts.js";

const USAGE =
  "usage: soev-prompts FILE [--model ENDPOINT]\n" +
  "Print what one model reads of a prompt file: without --model, the base.";

// The example citation a BRACKETS agent gives its template: what most models read.
const CITATION = "[1]";

async function main(argv: readonly string[]): Promise<number> {
  let file: string;
  let model: string | null;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: { model: { type: "string", short: "m" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
    });
    if (values.help === true) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (positionals.length !== 1 || positionals[0] === undefined) throw new Error("give exactly one FILE");
    file = positionals[0];
    model = values.model ?? null;
  } catch (error) {
    process.stderr.write(`soev-prompts: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const promptFile = await PromptFile.load(file);
    promptFile.checkVariables(["citation"]);
    process.stdout.write(report(file, promptFile, model));
    return 0;
  } catch (error) {
    if (!PromptFileError.isInstance(error)) throw error;
    process.stderr.write(`soev-prompts: ${error.message}\n`);
    return 2;
  }
}

function report(file: string, promptFile: PromptFile, model: string | null): string {
  const prompts = promptFile.forModel(model);
  const index = model === null ? -1 : promptFile.models.findIndex((layer) => layer.endpoints.includes(model));
  const layer = promptFile.models[index];
  const whose =
    model === null
      ? "none given: the base"
      : layer === undefined
        ? `${model} (no model layer names it: the base)`
        : `${model} (model layer ${index + 1}: ${layer.endpoints.join(", ")})`;
  const lines = [`Prompt file: ${file}`, `Model: ${whose}`, `Digest: ${prompts.digest}`, ""];
  lines.push(...systemSection(prompts));
  for (const [key, text] of Object.entries(prompts.texts)) lines.push(`== Text "${key}" ==`, text.trimEnd(), "");
  for (const [name, texts] of Object.entries(prompts.tools)) {
    lines.push(`== Tool "${name}" ==`, `description: ${texts.description ?? "(the tool's own)"}`);
    for (const [argument, text] of Object.entries(texts.arguments)) lines.push(`argument "${argument}": ${text}`);
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

function systemSection(prompts: Prompts): string[] {
  if (prompts.template === null) return ["== System prompt ==", "(the file has no system template)", ""];
  return [
    "== System template source (what the system prompt renders) ==",
    prompts.source.trimEnd(),
    "",
    `== System prompt, rendered with citation "${CITATION}" ==`,
    prompts.system({ citation: CITATION }),
    "",
  ];
}

process.exitCode = await main(process.argv.slice(2));
