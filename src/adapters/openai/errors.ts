/** The errors of the openai client mapped to the port's: passing failures to TransientError, the rest permanent. */
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { CallerError, type SoevErrorOptions } from "../../domain/errors.js";
import { TransientError } from "../../ports/errors.js";

/** The statuses that say the service may answer the same call later. */
const TRANSIENT_STATUSES = new Set([408, 409, 429]);

/** What a status usually means, for the message of a permanent refusal. */
const HINTS: Readonly<Record<number, string>> = {
  401: "Check the API key the client was built with.",
  403: "Check that the API key may use this model.",
  404: "Check the model name and the client's baseURL.",
};

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

/**
 * Map an error of the client to the port's errors, naming the model called. A caller's abort and any
 * error that is not the client's propagate unchanged.
 */
export function modelError(error: unknown, model: string): unknown {
  if (error instanceof APIUserAbortError || !(error instanceof APIError)) return error;
  if (error instanceof APIConnectionError) {
    return new TransientError(
      `The model service for ${model} could not be reached: ${sentence(withRootCause(error))} The call can be tried again.`,
      { cause: error },
    );
  }
  const status = error.status;
  const apiMessage = apiMessageOf(error);
  // No status: the service sent an error event inside a stream it had accepted, a failure of its own.
  if (status === undefined || TRANSIENT_STATUSES.has(status) || status >= 500) {
    const retryAfter = retryAfterSeconds(error.headers);
    const wait = retryAfter === null ? "" : ` (it asked to wait ${retryAfter} s)`;
    return new TransientError(
      `The model service for ${model} failed with ${status ?? "an error in the stream"}: ${sentence(apiMessage)} The call can be tried again later${wait}.`,
      { cause: error, retryAfter, details: { status: status ?? null } },
    );
  }
  const hint = HINTS[status] ?? "Fix the request or the adapter's settings; retrying the same call cannot help.";
  return new ModelRequestError(
    `The model service refused the call of ${model} with ${status}: ${sentence(apiMessage)} ${hint}`,
    {
      cause: error,
      status,
      apiMessage,
      code: error.code ?? null,
    },
  );
}

/** A stream that broke off while it was read: the service or the network failed mid-response. */
export function brokenStreamError(error: unknown, model: string): unknown {
  if (error instanceof APIUserAbortError || (error instanceof Error && error.name === "AbortError")) return error;
  if (error instanceof APIError) return modelError(error, model);
  const reason = error instanceof Error ? withRootCause(error) : String(error);
  return new TransientError(
    `The streamed response of ${model} broke off: ${sentence(reason)} The call can be tried again.`,
    { cause: error },
  );
}

// "Connection error." alone does not say what failed: the innermost cause does (ECONNREFUSED, a closed socket).
function withRootCause(error: Error): string {
  let root: unknown = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  const message = error.message.replace(/\.$/, "");
  return root === error || !(root instanceof Error) ? message : `${message} (${root.message})`;
}

// Messages of services end with a period or not: end each with exactly one.
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function apiMessageOf(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === "string" ? body.message : error.message;
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
