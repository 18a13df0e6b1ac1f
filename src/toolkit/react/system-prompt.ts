/** The system prompt of one turn, as a function of the example citation of the model about to be called. */
import type { Prompts } from "../prompts/prompts.js";
import type { Prompt } from "../prompts/template.js";

/**
 * The system prompt of `turn`: a text as it is; the prompt function with the turn and the citation; or
 * the texts of the turn's model that a PromptFile resolved, whose template is rendered with only
 * `citation`. Texts without a system template fail at the first model call (PromptFileError).
 */
export function systemPrompt<T>(prompt: string | Prompt<T> | Prompts, turn: T): (citation: string | null) => string {
  if (typeof prompt === "string") return () => prompt;
  if (typeof prompt === "function") return (citation) => prompt(turn, citation);
  return (citation) => prompt.system({ citation });
}
