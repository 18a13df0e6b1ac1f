/** The errors of the outside world, and of the trace store's contract. */
import { CallerError, OutsideWorldError, type SoevErrorOptions } from "../domain/errors.js";

/**
 * A call to the outside world failed for a reason that is not in the call itself: the service was down,
 * slow or unreachable. The same call can succeed later, so the failed step runs again (on Temporal: an
 * activity retry, after `retryAfter` seconds when the service said so).
 */
export class TransientError extends OutsideWorldError {
  override readonly retryable = true;
  /** The seconds the service asked the caller to wait before trying again, or null. */
  readonly retryAfter: number | null;

  constructor(message: string, options: SoevErrorOptions & { retryAfter?: number | null } = {}) {
    super(message, options);
    this.retryAfter = options.retryAfter ?? null;
  }
}

/** The backend rejected the query itself. A tool raises it; the model reads the message and can fix the query. */
export class InvalidQueryError extends OutsideWorldError {}

/** A tool that is unavailable or not configured refused the call. Its message is worded for the model. */
export class ResourceUnavailableError extends OutsideWorldError {}

/** Another owner holds the thread's lease, and that lease has not expired. Nothing changes. */
export class LeaseHeldError extends OutsideWorldError {
  override readonly retryable = true;
}

/** The lease that a call names is no longer the thread's current lease. Nothing lands. */
export class LeaseExpiredError extends OutsideWorldError {}

/** An event to append is sealed already (its seq or ts is set). Nothing of the append lands. */
export class SealedEventError extends CallerError {}

/** An append names a stream that another writer moved past. Nothing lands: read again and decide again. */
export class StreamMovedError extends OutsideWorldError {}
