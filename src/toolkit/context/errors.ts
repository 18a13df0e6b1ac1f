/** The errors of the context builder and its policy: missing turn parts, unrendered events, a wrong Shorten, a context that does not fit, a summary that replaces nothing. */
import { CallerError, ModelOutputError } from "../../domain/errors.js";

// The errors of the context builder.

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

// The errors of the context policy: a result shortened wrongly, a context that does not fit, a summary that replaces nothing.

/**
 * A Shorten function removed, added or reordered an element of a result, or changed its error. Citations
 * and reopen find elements by id, and the error is a fact the model reacts to, so both must stay.
 */
export class ShortenError extends CallerError {}

/**
 * A context that does not fit in the model's window, so the model call is not made: the estimated prompt
 * plus the policy's outputReserve is more than the window. A retry of the same call cannot help.
 */
export class ContextFullError extends CallerError {}

/**
 * A summary that replaces nothing: the model wrote an empty summary, or the builder built the same request
 * after the summary as before it (a builder that does not show Compaction events).
 */
export class CompactionError extends ModelOutputError {}
