/** The errors of AI SDK provider packages mapped to the port's: passing failures to TransientError, the rest permanent. */
import { APICallError, LoadAPIKeyError } from "@ai-sdk/provider";
import { CallerError, type SoevErrorOptions } from "../../domain/errors.js";
import { TransientError } from "../../ports/errors.js";
import { ModelRequestError, retryAfterSeconds, sentence } from "../model-errors.js";

/** Statuses that say the service may answer the same call later; 529 is Anthropic's "overloaded". */
const TRANSIENT_STATUSES = new Set([408, 409, 429, 529]);

/** What a status usually means, for the message of a permanent refusal. */
const HINTS: Readonly<Record<number, string>> = {
  401: "Check the API key (the provider's environment variable, or the provider's apiKey option).",
  403: "Check that the API key may use this model.",
  404: "Check the model name and the provider's baseURL.",
};

/** The model service refused to answer for the request's content (a safety filter, a refusal). */
export class ModelRefusalError extends CallerError {
  /** The provider's reason, as it gave it (a finish reason such as `SAFETY` or `refusal`). */
  readonly reason: string;

  constructor(message: string, options: SoevErrorOptions & { reason: string }) {
    super(message, { ...options, details: { reason: options.reason, ...options.details } });
    this.reason = options.reason;
  }
}

/**
 * Map an error of a provider package to the port's errors, naming the model called. A caller's abort
 * propagates unchanged; an error the package did not raise about the call propagates too.
 */
export function modelError(error: unknown, model: string, signal?: AbortSignal): unknown {
  if (signal?.aborted) return error;
  if (APICallError.isInstance(error)) return apiCallError(error, model);
  if (LoadAPIKeyError.isInstance(error)) {
    return new CallerError(`The provider of ${model} has no API key: ${sentence(error.message)}`, { cause: error });
  }
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return new TransientError(
      `The call of ${model} timed out: ${sentence(error.message)} The call can be tried again.`,
      {
        cause: error,
      },
    );
  }
  return error;
}

function apiCallError(error: APICallError, model: string): unknown {
  const status = error.statusCode;
  // A 2xx whose body failed to arrive or to parse: the service or the network broke off mid-response.
  if (status !== undefined && status >= 200 && status < 300) {
    return new TransientError(
      `The response of ${model} broke off: ${sentence(withRootCause(error))} The call can be tried again.`,
      { cause: error, details: { status } },
    );
  }
  const apiMessage = apiMessageOf(error);
  if (status === undefined || error.isRetryable || TRANSIENT_STATUSES.has(status) || status >= 500) {
    const retryAfter = retryAfterSeconds(error.responseHeaders ? new Headers(error.responseHeaders) : undefined);
    const wait = retryAfter === null ? "" : ` (it asked to wait ${retryAfter} s)`;
    const failed =
      status === undefined
        ? `could not be reached: ${sentence(withRootCause(error))}`
        : `failed with ${status}: ${sentence(apiMessage)}`;
    return new TransientError(`The model service for ${model} ${failed} The call can be tried again later${wait}.`, {
      cause: error,
      retryAfter,
      details: { status: status ?? null },
    });
  }
  const hint = HINTS[status] ?? "Fix the request or the adapter's settings; retrying the same call cannot help.";
  return new ModelRequestError(
    `The model service refused the call of ${model} with ${status}: ${sentence(apiMessage)} ${hint}`,
    {
      cause: error,
      status,
      apiMessage,
    },
  );
}

/**
 * An error part inside a stream the service had accepted (Anthropic's `overloaded_error` event, a Gemini
 * chunk with an error), or a stream that broke off while it was read: the service's failure either way.
 */
export function streamError(error: unknown, model: string, signal?: AbortSignal): unknown {
  if (signal?.aborted) return error;
  const mapped = modelError(error, model, signal);
  if (mapped !== error) return mapped;
  const reason = error instanceof Error ? withRootCause(error) : describeErrorPart(error);
  return new TransientError(
    `The streamed response of ${model} broke off: ${sentence(reason)} The call can be tried again.`,
    {
      cause: error,
    },
  );
}

// The package's message is the provider's own (`error.message` of the JSON body) where it parsed one.
function apiMessageOf(error: APICallError): string {
  const data = error.data as { error?: { message?: unknown }; message?: unknown } | undefined;
  const message = data?.error?.message ?? data?.message;
  return typeof message === "string" ? message : error.message;
}

function describeErrorPart(error: unknown): string {
  const value = error as { type?: unknown; message?: unknown } | null;
  if (typeof value?.message === "string")
    return typeof value.type === "string" ? `${value.type}: ${value.message}` : value.message;
  return JSON.stringify(error) ?? String(error);
}

// "Cannot connect to API" alone does not say what failed: the innermost cause does (ECONNREFUSED, a closed socket).
function withRootCause(error: Error): string {
  let root: unknown = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  const message = error.message.replace(/\.$/, "");
  return root === error || !(root instanceof Error) ? message : `${message} (${root.message})`;
}
