/**
 * The input types of a ReActAgent: Text (the default: the payload is the message) and ChatTurnInput (a
 * message with the state it asks of each tool and context for the system prompt), and ToolState.
 */
import { z } from "zod";

/**
 * What a turn asks of one tool: "off" (not offered), "auto" (offered for the model to use as it sees fit)
 * or "required" (offered with an instruction to use it; a request, not a guarantee).
 */
export const ToolState = z.enum(["off", "auto", "required"]);

/** What a turn asks of one tool: "off", "auto" or "required". */
export type ToolState = z.output<typeof ToolState>;

/** The states that a turn asks of its tools, by tool name. */
export type ToolStates = Readonly<Record<string, ToolState>>;

/** The parsed turn of a plain-text input: the message, no tool states, no context. */
export interface TextTurn {
  /** The message, which is the whole payload. */
  text: string;
  /** The tool states that the input asks for: none. */
  tools: Record<string, ToolState>;
  /** The context for the system prompt: always null. */
  context: string | null;
}

/** The turn of a plain-text input: the message, no tool states, no context. */
export function textTurn(text: string): TextTurn {
  return { text, tools: {}, context: null };
}

/** A plain-text input: the payload is the message. It asks nothing of any tool and brings no context. */
export const Text: z.ZodType<TextTurn, string> = z.string().transform(textTurn);

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
