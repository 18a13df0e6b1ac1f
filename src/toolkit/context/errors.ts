/** The errors of the context builder. */
import { CallerError } from "../../domain/errors.js";

/**
 * A MessageBuilder without the parts of its turn was asked to build a context: it needs `model` and
 * `renderInput`. A ReActAgent gives them with forTurn; a graph of your own gives them when it makes the builder.
 */
export class MissingTurnError extends CallerError {}

/**
 * An event that a MessageBuilder selected has a type it has no renderer for: neither built in nor in
 * `renderers`. Raised when the context is built, so that no event is skipped silently.
 */
export class UnrenderedEventError extends CallerError {}
