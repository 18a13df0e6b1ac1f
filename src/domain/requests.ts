/**
 * A person in the loop, as the trace records it: which Requests of a turn wait for an answer, whether an
 * answer fits its Request, and the Failures that end a wait (a deadline passed, the turn cancelled).
 * Pure, so both runners and the Temporal workflow's Update validator decide alike.
 */
import { z } from "zod";
import { Failure, Request, Response, type Event } from "./events.js";
import type { JsonValue } from "./json.js";

/** The JSON schema of an approval's answer: `{ "approved": true }` or `{ "approved": false, "reason": "..." }`. */
export const APPROVAL_SCHEMA: Record<string, JsonValue> = {
  type: "object",
  properties: {
    approved: { type: "boolean", description: "Whether the call may run." },
    reason: { type: "string", description: "Why, for the model to read; optional." },
  },
  required: ["approved"],
  additionalProperties: false,
};

/** An approval's answer. */
export interface Approval {
  approved: boolean;
  reason?: string;
}

/** The error name of the Failure that ends a turn whose Request's deadline passed without an answer. */
export const NO_ANSWER_ERROR = "NoAnswerError";

/** The error name and message of the Failure that a cancelled turn records, on both runners. */
export const CANCELLED = { error: "CancelledError", message: "The turn was cancelled." } as const;

/** The Requests among `events` (a turn's, in order) that no Response answers, in the order they were made. */
export function unansweredRequests(events: readonly Event[]): Request[] {
  const answered = new Set(events.flatMap((event) => (Response.is(event) ? [event.requestId] : [])));
  return events.filter((event): event is Request => Request.is(event) && !answered.has(event.requestId));
}

/**
 * The Requests among `events` (a turn's) that a person may answer now: unanswered, and no Failure after
 * them ended the turn (a deadline that passed, a cancellation, a step that failed).
 */
export function pendingRequests(events: readonly Event[]): Request[] {
  const lastFailure = events.findLastIndex((event) => Failure.is(event));
  return unansweredRequests(events.slice(lastFailure + 1));
}

/** Why an answer does not fit its Request: the message, and each problem with its path in the payload. */
export interface AnswerIssues {
  message: string;
  /** Each problem, its path in the payload ("" for the payload itself), such as `{ path: "date", message: "..." }`. */
  issues: { path: string; message: string }[];
}

/**
 * Why `payload` is no answer to `request`, or null when it fits the request's schema. An approval's
 * answer must fit APPROVAL_SCHEMA whatever its schema says.
 */
export function answerProblem(
  request: Pick<Request, "kind" | "schema" | "requestId">,
  payload: unknown,
): string | null {
  return answerIssues(request, payload)?.message ?? null;
}

/** As answerProblem, with each problem's path in the payload, so a caller can name the field. */
export function answerIssues(
  request: Pick<Request, "kind" | "schema" | "requestId">,
  payload: unknown,
): AnswerIssues | null {
  const schema = request.kind === "approval" ? APPROVAL_SCHEMA : request.schema;
  const whole = (message: string) => ({ message, issues: [{ path: "", message }] });
  if (payload === undefined) return whole(`The answer to request "${request.requestId}" has no payload.`);
  if (!isJson(payload)) return whole(`The answer to request "${request.requestId}" is not JSON.`);
  if (schema === null) return null;
  let parsed;
  try {
    parsed = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(payload);
  } catch (error) {
    return whole(
      `Request "${request.requestId}" has a schema that cannot check answers (${(error as Error).message}).`,
    );
  }
  if (parsed.success) return null;
  const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
  const problems = issues.map((issue) => `${issue.path || "payload"}: ${issue.message}`);
  return {
    message: `The answer to request "${request.requestId}" does not fit its schema (${problems.join("; ")}).`,
    issues,
  };
}

/** When a Request's deadline passes (milliseconds since the epoch), or null when it waits for ever or is not sealed. */
export function deadlineOf(request: Pick<Request, "deadlineSeconds" | "ts">): number | null {
  if (request.deadlineSeconds === null || request.ts === null) return null;
  return Date.parse(request.ts) + request.deadlineSeconds * 1000;
}

/** The message of the Failure that a passed deadline records. */
export function noAnswerMessage(request: Pick<Request, "requestId" | "text" | "deadlineSeconds">): string {
  const text = request.text.length > 80 ? `${request.text.slice(0, 77)}...` : request.text;
  return `No answer to request "${request.requestId}" (${JSON.stringify(text)}) within ${request.deadlineSeconds} seconds: the turn ends.`;
}

function isJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value === "object") {
    const prototype = Object.getPrototypeOf(value);
    return (prototype === Object.prototype || prototype === null) && Object.values(value).every(isJson);
  }
  return false;
}
