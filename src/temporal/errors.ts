/** The errors of the Temporal runner that a caller can act on: a turn refused, or search attributes that do not fit. */
import { CallerError, OutsideWorldError } from "../domain/errors.js";

/** A turn of the thread is running already: Temporal refused a second one. Wait for it, then start the next. */
export class TurnRunningError extends CallerError {
  /** The workflow id of the running turn. */
  readonly workflowId: string;

  constructor(message: string, options: { workflowId: string; cause?: unknown }) {
    super(message, { cause: options.cause, details: { workflowId: options.workflowId } });
    this.workflowId = options.workflowId;
  }
}

/** A turn named an agent other than the one the thread was opened with. */
export class ThreadAgentError extends CallerError {}

/** Another writer recorded events on the thread where the turn's input belonged. */
export class ThreadMovedError extends CallerError {}

/** A search attribute of soev-agents is registered in the namespace with another type. Nothing was changed. */
export class SearchAttributeConflictError extends CallerError {}

/** The Temporal server refused or failed to list or register the search attributes. */
export class SearchAttributeRegistrationError extends OutsideWorldError {}

/** No turn of the thread is known to Temporal: nothing to answer or query. */
export class NoTurnError extends CallerError {}
