/**
 * How an activity's error reaches Temporal. Whether Temporal retries it is decided by the error's own
 * `retryable` (a SoevError says whose fault it is: a TransientError, a lease another holder still
 * holds, an agent this worker's catalog lacks are retryable), the service's retry-after honoured. Any
 * other error is retryable only when a network or lock code sits on it or on its `cause` chain (fetch's
 * `TypeError: fetch failed` carries `UND_ERR_SOCKET` or `ECONNRESET` on its cause). A non-retryable
 * failure is named by its class, so the workflow records it and fails with its name and message.
 */
import { ApplicationFailure, CancelledFailure } from "@temporalio/common";
import { SoevError } from "../src/domain/errors.js";
import { LeaseHeldError, TransientError } from "../src/ports/errors.js";
import { scrubError } from "../src/ports/secrets.js";

/** Node's, undici's and the SQL drivers' codes for a connection or a lock that may work on the next attempt. */
export const PASSING_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08003",
  "08006",
  "08001",
  "08004",
  "40001",
  "40P01",
]);

/** How deep the `cause` chain is followed (a cycle ends it too). */
const CAUSE_DEPTH = 8;

/** The network or lock code found on an error or its causes, or null. */
export function passingCode(error: unknown): string | null {
  const seen = new Set<unknown>();
  for (let current = error, depth = 0; current && depth < CAUSE_DEPTH && !seen.has(current); depth++) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && PASSING_CODES.has(code)) return code;
    // AggregateError (several addresses refused a connection) carries its errors beside its cause.
    const inner = (current as { errors?: unknown }).errors;
    if (Array.isArray(inner))
      for (const each of inner) {
        const found = passingCode(each);
        if (found) return found;
      }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** Whether Temporal should retry an activity that failed with `error`. */
export function isRetryable(error: unknown): boolean {
  if (SoevError.isInstance(error)) return error.retryable;
  return passingCode(error) !== null;
}

/** The failure Temporal gets for an activity's error. */
export function activityFailure(error: unknown): Error {
  scrubError(error);
  if (error instanceof ApplicationFailure || error instanceof CancelledFailure) return error;
  const named = error instanceof Error ? error : new Error(String(error));
  return ApplicationFailure.create({
    type: named.name,
    message: named.message,
    nonRetryable: !isRetryable(error),
    nextRetryDelay: retryDelay(error),
  });
}

/** How long to wait before the next attempt, in milliseconds, when the error says; else Temporal's backoff. */
function retryDelay(error: unknown): number | undefined {
  if (TransientError.isInstance(error) && error.retryAfter !== null) return Math.max(1, error.retryAfter) * 1000;
  if (LeaseHeldError.isInstance(error)) {
    const expiresAt = Number(error.details.expiresAt);
    return Number.isFinite(expiresAt) ? Math.max(1000, expiresAt - Date.now()) : undefined;
  }
  return undefined;
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
