/**
 * Asking a person from a tool call. `ask` returns the recorded answer when the turn holds one; otherwise
 * it throws AnswerPending, the tool step records the Request and the turn waits. When the answer is
 * recorded the call runs again from its start and `ask` returns it: code before an `ask` runs once per
 * answer, so keep side effects after it (an approval asks before the tool runs at all).
 */
import { z } from "zod";
import { Request, Response, type Event } from "../../domain/events.js";
import { ValueError } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/json.js";
import { APPROVAL_SCHEMA, type Approval } from "../../domain/requests.js";
import { CallerError, OutsideWorldError } from "../../domain/errors.js";

/** A question a tool asks a person. */
export interface Question<T = JsonValue> {
  /** What the person reads. */
  text: string;
  /** The zod schema of the answer: the person's answer must fit its JSON schema, and `ask` returns it parsed. */
  schema?: z.ZodType<T>;
  /** How long the turn waits for an answer; absent waits for ever. */
  deadlineSeconds?: number;
  /** The answer recorded when the deadline passes; absent ends the turn with a NoAnswerError Failure then. */
  defaultAnswer?: T;
}

/** Ask a person a question and get the answer (see Question). */
export type Ask = <T = JsonValue>(question: Question<T>) => Promise<T>;

/** Thrown by `ask` while no answer is recorded: the tool step records `request` and the turn waits. Never catch it in a tool. */
export class AnswerPending extends Error {
  constructor(readonly request: Request) {
    super(`Request "${request.requestId}" waits for an answer.`);
    this.name = "AnswerPending";
  }
}

/** A recorded answer that no longer fits the question's schema: the question changed since it was asked. */
export class AnswerMismatchError extends CallerError {}

/** The Failure of a turn whose request's deadline passed without an answer and without a default. */
export class NoAnswerError extends OutsideWorldError {}

/** The request id of the `index`-th question (from 0) of a tool call. */
export function questionId(callId: string, index: number): string {
  return `${callId}:ask:${index}`;
}

/** The request id of a tool call's approval. */
export function approvalId(callId: string): string {
  return `${callId}:approval`;
}

/** The `ask` of one run of a call of `tool`: its questions are numbered in the order the run asks them. */
export function askerOf(turn: readonly Event[], callId: string, tool: string | null = null): Ask {
  let index = 0;
  return async <T>(question: Question<T>): Promise<T> => {
    const requestId = questionId(callId, index++);
    const request = questionRequest(requestId, callId, tool, question);
    const answer = answerOf(turn, requestId);
    if (answer === undefined) throw new AnswerPending(request);
    if (question.schema === undefined) return answer.payload as T;
    const parsed = question.schema.safeParse(answer.payload);
    if (!parsed.success) {
      throw new AnswerMismatchError(
        `The recorded answer to request "${requestId}" does not fit the question's schema now: ${parsed.error.message}. Did the tool's question change while the turn waited?`,
      );
    }
    return parsed.data;
  };
}

/** The approval of a call: the recorded answer, or AnswerPending with the approval Request. */
export function approvalOf(
  turn: readonly Event[],
  call: { id: string; name: string; arguments: Record<string, JsonValue> },
): Approval {
  const requestId = approvalId(call.id);
  const answer = answerOf(turn, requestId);
  if (answer === undefined) {
    const shown = JSON.stringify(call.arguments);
    throw new AnswerPending(
      Request({
        requestId,
        kind: "approval",
        text: `Approve the call ${call.name}(${shown.length > 400 ? `${shown.slice(0, 397)}...` : shown})?`,
        schema: APPROVAL_SCHEMA,
        callId: call.id,
        tool: call.name,
        arguments: call.arguments,
      }),
    );
  }
  return answer.payload as unknown as Approval;
}

/** The result the model reads for a call that a person denied. */
export function deniedText(tool: string, approval: Approval): string {
  const why = approval.reason?.trim();
  return `A person denied this call of ${tool}${why ? `: ${why}` : "."} It did not run. Do not call it again with these arguments unless the user asks for it.`;
}

function questionRequest<T>(requestId: string, callId: string, tool: string | null, question: Question<T>): Request {
  if (typeof question?.text !== "string" || question.text.trim() === "")
    throw new ValueError("ask needs a question with the text a person reads: ask({ text: '...' }).");
  let schema: Record<string, JsonValue> | null = null;
  if (question.schema !== undefined) {
    try {
      schema = z.toJSONSchema(question.schema) as Record<string, JsonValue>;
    } catch (error) {
      throw new ValueError(
        `The schema of the question "${question.text}" has no JSON schema: use fields JSON can hold.`,
        {
          cause: error,
        },
      );
    }
  }
  const deadline = question.deadlineSeconds;
  if (deadline !== undefined && !(typeof deadline === "number" && deadline > 0))
    throw new ValueError(`deadlineSeconds must be a positive number, not ${String(deadline)}.`);
  if (question.defaultAnswer !== undefined && question.schema !== undefined) {
    if (!question.schema.safeParse(question.defaultAnswer).success)
      throw new ValueError(`The defaultAnswer of the question "${question.text}" does not fit its schema.`);
  }
  return Request({
    requestId,
    kind: "question",
    text: question.text,
    schema,
    callId,
    tool,
    deadlineSeconds: deadline ?? null,
    defaultAnswer: question.defaultAnswer === undefined ? null : { payload: question.defaultAnswer as JsonValue },
  });
}

function answerOf(turn: readonly Event[], requestId: string): Response | undefined {
  return turn.find((event): event is Response => Response.is(event) && event.requestId === requestId);
}
