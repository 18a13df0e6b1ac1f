/** The errors that every model adapter shares: a refusal for a reason in the request, and the wait a service asked for. */
import { CallerError, type SoevErrorOptions } from "../domain/errors.js";

/**
 * The model service refused a request for a reason in the request itself (a 4xx other than 408, 409 and
 * 429): retrying the same call cannot help. Keeps the service's status and message.
 */
export class ModelRequestError extends CallerError {
  /** The HTTP status of the refusal. */
  readonly status: number;
  /** The service's own message. */
  readonly apiMessage: string;
  /** The service's error code, when it gave one. */
  readonly code: string | null;

  constructor(
    message: string,
    options: SoevErrorOptions & { status: number; apiMessage: string; code?: string | null },
  ) {
    super(message, { ...options, details: { status: options.status, code: options.code ?? null, ...options.details } });
    this.status = options.status;
    this.apiMessage = options.apiMessage;
    this.code = options.code ?? null;
  }
}

/** A service's message ending with exactly one period (services end theirs with one or not). */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The seconds to wait that a response asked for: `retry-after-ms`, else `retry-after` (seconds or a date). */
export function retryAfterSeconds(headers: Headers | undefined): number | null {
  const milliseconds = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds / 1000;
  const value = headers?.get("retry-after");
  if (value === null || value === undefined || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}
