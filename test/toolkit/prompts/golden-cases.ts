/**
 * The renders the template engine must reproduce byte for byte: every prompt file of examples/ and the
 * docs, and the feature files of test/fixtures/prompts/golden, for the base and each model layer, with and
 * without a citation. Their outputs under the nunjucks engine (before the interpreter) are in outputs.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PromptFile } from "../../../src/toolkit/index.js";

const GOLDEN = "test/fixtures/prompts/golden";

/** The files whose renders are pinned. */
export const GOLDEN_FILES = [
  "examples/prompt-file/assistant.yaml",
  "test/fixtures/package/prompt.yaml",
  `${GOLDEN}/migrating.yaml`,
  `${GOLDEN}/features.yaml`,
  `${GOLDEN}/layers.yaml`,
] as const;

/** The file the pinned outputs are in. */
export const GOLDEN_OUTPUTS = join(GOLDEN, "outputs.json");

/** The value of a render that fails (a template that outputs the null citation, say): it must fail still. */
export const RENDER_FAILS = "(the render fails)";

/** Every pinned render, by a key naming file, model and citation; the value is the rendered system prompt. */
export function goldenRenders(): Record<string, string> {
  const variables = JSON.parse(readFileSync(join(GOLDEN, "variables.json"), "utf8")) as Record<string, unknown>;
  const renders: Record<string, string> = {};
  for (const path of GOLDEN_FILES) {
    const file = PromptFile.loadSync(path);
    for (const model of [null, ...file.endpoints]) {
      for (const citation of ["[1]", null]) {
        const key = `${path} | ${model ?? "base"} | ${citation ?? "no citation"}`;
        try {
          renders[key] = file.forModel(model).system({ ...variables, citation });
        } catch {
          renders[key] = RENDER_FAILS;
        }
      }
    }
  }
  return renders;
}
