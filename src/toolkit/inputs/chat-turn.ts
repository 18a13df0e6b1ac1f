/** ChatTurnInput: a chat turn with the state it asks of each tool and context for the system prompt. */
import { z } from "zod";
import { ToolState } from "./tool-state.js";

/**
 * A chat turn: the message, the state that it asks of each tool, and context for the agent's system
 * prompt. Unknown fields are refused, so a misspelt field fails instead of being dropped.
 */
export const ChatTurnInput = z.strictObject({
  /** The message. */
  text: z.string(),
  /** The state that the turn asks of each tool, by name. A tool it does not name has its declaration's default. */
  tools: z.record(z.string(), ToolState).default(() => ({})),
  /** Text for the agent's system prompt, which promptTemplate writes in place of {context}, or null. */
  context: z.string().nullable().default(null),
});

/** A parsed chat turn. */
export type ChatTurnInput = z.output<typeof ChatTurnInput>;
