/** The errors of the openai client mapped to the port's: passing failures to TransientError, the rest permanent. */
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { TransientError } from "../../ports/errors.js";
import { ModelRequestError, retryAfterSeconds, sentence } from "../model-errors.js";

export { ModelRequestError, retryAfterSeconds } from "../model-errors.js";

/** The statuses that say the service may answer the same call later. */
const TRANSIENT_STATUSES = new Set([408, 409, 429]);

/** What a status usually means, for the message of a permanent refusal. */
const HINTS: Readonly<Record<number, string>> = {
  401: "Check the API key the client was built with.",
  403: "Check that the API key may use this model.",
  404: "Check the model name and the client's baseURL.",
};

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

function apiMessageOf(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === "string" ? body.message : error.message;
}
