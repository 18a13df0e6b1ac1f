/** The required-tool instructions after an input's message. */
import { TextPart, UserMessage } from "../../ports/messages.js";
import type { RenderTurn } from "../inputs/render.js";

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
