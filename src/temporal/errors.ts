/** The errors of the Temporal runner that a caller can act on. */
import { CallerError } from "../domain/errors.js";

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
