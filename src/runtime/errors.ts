/** The runtime's own errors. */
import { CallerError } from "../domain/errors.js";

/** An input that the agent refuses: its payload does not parse into the agent's input type, or its config refused the turn. */
export class InputDeniedError extends CallerError {}

/** A thread id, agent name or step that the catalog does not know. */
export class UnknownThreadError extends CallerError {}

/** A graph that ended up nowhere: no node with work, or a loop of nodes without work. */
export class GraphError extends CallerError {}
