/** The errors of tools that the tool's code or the agent's setup causes: never the model's fault. */
import { CallerError } from "../../domain/errors.js";

/**
 * A tool has values that nothing bound. The runtime checks it when a turn starts, before the model runs,
 * so the model is never offered a tool that cannot run.
 */
export class UnboundToolError extends CallerError {}

/** A tool's function returned something that is not a ToolOutput. */
export class ToolReturnError extends CallerError {}
