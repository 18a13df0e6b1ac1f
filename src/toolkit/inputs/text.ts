/** Text: the plain-text input, the default of a ReActAgent. */
import { z } from "zod";
import type { ToolState } from "./tool-state.js";

export type { ToolState } from "./tool-state.js";

/** The parsed turn of a plain-text input: the message, no tool states, no context. */
export interface TextTurn {
  /** The message, which is the whole payload. */
  text: string;
  /** The tool states that the input asks for: none. */
  tools: Record<string, ToolState>;
  /** The context for the system prompt: always null. */
  context: string | null;
}

/** A plain-text input: the payload is the message. It asks nothing of any tool and brings no context. */
export const Text: z.ZodType<TextTurn, string> = z
  .string()
  .transform((text): TextTurn => ({ text, tools: {}, context: null }));
