/** Text: the plain-text input, the default of a ReActAgent. */
import { z } from "zod";

/** What a tool declaration's state can be on one turn: not offered, offered, or offered with an instruction to use it. */
export type ToolState = "off" | "auto" | "required";

/** The parsed turn of a plain-text input: the message, no tool states, no context. */
export interface TextTurn {
  text: string;
  tools: Record<string, ToolState>;
  context: string | null;
}

/** A plain-text input: the payload is the message. It asks nothing of any tool and brings no context. */
export const Text: z.ZodType<TextTurn, string> = z
  .string()
  .transform((text): TextTurn => ({ text, tools: {}, context: null }));
