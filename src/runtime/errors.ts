/** The runtime's own errors: a refused input, an unknown thread, a graph that ends nowhere, a tool set up wrong. */
import { CallerError } from "../domain/errors.js";

/** An input that the agent refuses: its payload does not parse into the agent's input type, or its config refused the turn. */
export class InputDeniedError extends CallerError {}

/** A thread id, agent name or step that the catalog does not know. */
export class UnknownThreadError extends CallerError {}

/**
 * An agent name that this catalog does not have. Retryable: during a rolling deploy a worker of another
 * version may have the agent, so on Temporal the activity is retried and another worker can take it.
 */
export class UnknownAgentError extends CallerError {
  override readonly retryable = true;
}

/** A graph that ended up nowhere: no node with work, or a loop of nodes without work. */
export class GraphError extends CallerError {}

/**
 * A tool has values that nothing bound. The runtime checks it when a turn starts, before the model runs,
 * so the model is never offered a tool that cannot run.
 */
export class UnboundToolError extends CallerError {}

/** A tool's function returned something that is not a ToolOutput. */
export class ToolReturnError extends CallerError {}

/**
 * An input too large to record: its payload over the catalog's `maxInputBytes` as JSON, or a first model
 * call that would not fit the model's window with the input alone. Refused before anything is recorded.
 */
export class InputTooLargeError extends InputDeniedError {}
