/** ToolState: what a turn asks of one tool. */
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
