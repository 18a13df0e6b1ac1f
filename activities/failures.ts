/**
 * How an activity's error reaches Temporal: a TransientError (and a lease that another holder still
 * holds) is a retryable failure with backoff, the service's retry-after honoured; any other error is
 * non-retryable, named by its class, so the workflow records it and fails with its name and message.
 */
import { ApplicationFailure, CancelledFailure } from "@temporalio/common";
import { LeaseHeldError, TransientError } from "../src/ports/errors.js";
import { scrubError } from "../src/ports/secrets.js";

/** Node's and the SQL drivers' codes for a connection or a lock that may work on the next attempt. */
const PASSING_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "57P01",
  "08006",
  "08001",
]);

/** The failure Temporal gets for an activity's error. */
export function activityFailure(error: unknown): Error {
  scrubError(error);
  if (error instanceof ApplicationFailure || error instanceof CancelledFailure) return error;
  if (TransientError.isInstance(error)) {
    return ApplicationFailure.create({
      type: error.name,
      message: error.message,
      nonRetryable: false,
      nextRetryDelay: error.retryAfter === null ? undefined : Math.max(1, error.retryAfter) * 1000,
    });
  }
  if (LeaseHeldError.isInstance(error)) {
    const expiresAt = Number(error.details.expiresAt);
    const wait = Number.isFinite(expiresAt) ? Math.max(1000, expiresAt - Date.now()) : undefined;
    return ApplicationFailure.create({
      type: error.name,
      message: error.message,
      nonRetryable: false,
      nextRetryDelay: wait,
    });
  }
  const named = error instanceof Error ? error : new Error(String(error));
  const code = (named as { code?: unknown }).code;
  const passing = typeof code === "string" && PASSING_CODES.has(code);
  return ApplicationFailure.create({ type: named.name, message: named.message, nonRetryable: !passing });
}

/**
 * Run an activity's body, and hand any error to Temporal as `activityFailure` makes it. After Temporal
 * cancelled the attempt, the cancellation goes up as is, so the attempt ends as cancelled, not failed.
 */
export async function reported<T>(body: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (signal?.aborted) throw signal.reason instanceof CancelledFailure ? signal.reason : error;
    throw activityFailure(error);
  }
}
