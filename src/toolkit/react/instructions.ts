/**
 * What a turn tells the model besides the conversation: the system prompt, as a function of the example
 * citation of the model about to be called, and the required-tool instructions after an input's message.
 */
import { TextPart, UserMessage } from "../../ports/messages.js";
import type { RenderTurn } from "../inputs/render.js";
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

/**
 * Return a RenderTurn that renders with `render`, then adds the instructions that `instructionsOf` gives
 * for that same turn after the message, after a blank line. Each input gets the instructions of the
 * states that it asked itself, so every later model call writes them again as they were.
 */
export function withInstructions<T>(
  render: RenderTurn<T>,
  instructionsOf: (turn: T) => readonly string[],
): RenderTurn<T> {
  return (turn, show, input) => {
    const message = render(turn, show, input);
    if (message === null) return null;
    const instructions = instructionsOf(turn);
    return instructions.length === 0 ? message : appended(message, instructions.join("\n"));
  };
}

// After a text message, or after the last text part; a message that ends with an image gets a text part of its own.
function appended(message: UserMessage, text: string): UserMessage {
  if (typeof message.content === "string")
    return UserMessage(message.content === "" ? text : `${message.content}\n\n${text}`);
  const parts = [...message.content];
  const last = parts.at(-1);
  if (last?.kind === "text") parts[parts.length - 1] = TextPart(`${last.text}\n\n${text}`);
  else parts.push(TextPart(text));
  return UserMessage(parts);
}
