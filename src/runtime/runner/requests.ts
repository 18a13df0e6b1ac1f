/**
 * The runners' side of a person in the loop: which Requests a stream's turn waits on, recording an answer
 * (checked, exactly once), and ending a wait whose deadline passed. Both runners use these, so they leave
 * the same trace.
 */
import { Failure, Request, Response } from "../../domain/events.js";
import { CallerError } from "../../domain/errors.js";
import {
  answerProblem,
  NO_ANSWER_ERROR,
  noAnswerMessage,
  pendingRequests,
  unansweredRequests,
} from "../../domain/requests.js";
import { MAIN } from "../../domain/event-types.js";
import type { Trace } from "../../domain/trace.js";
import { StreamMovedError } from "../../ports/errors.js";
import { append, appendFact, readTrace, type Recorder } from "./work.js";

/** An answer that is refused: no such request waits, it is answered already, or the payload does not fit. */
export class AnswerRefusedError extends CallerError {}

/** The Requests of the stream's running turn that no Response answers: while there is one, the turn waits. */
export function waitingRequests(trace: Trace, stream: string): Request[] {
  return unansweredRequests(trace.stream(stream).turn);
}

/** The Requests of the stream's running turn that a person may answer now (no Failure ended the turn after them). */
export function openRequests(trace: Trace, stream: string): Request[] {
  return pendingRequests(trace.stream(stream).turn);
}

/**
 * The Requests a person may answer now on any stream of the thread's running turn: the turn's own, and
 * those of the tasks it delegated (a task's tool may ask too), oldest first. None once a Failure ended the turn.
 */
export function threadRequests(trace: Trace): Request[] {
  const main = trace.stream(MAIN);
  const turn = main.turn;
  const started = main.entries[main.length - turn.length]?.position ?? 0;
  const failed = main.entries.findLast((entry) => entry.position >= started && Failure.is(entry.event))?.position;
  const cut = failed ?? started;
  const positions = new Map(trace.entries.map((entry) => [entry.event, entry.position]));
  const streams = new Set(trace.entries.flatMap((entry) => (entry.position > started ? [entry.event.stream] : [])));
  return [...streams]
    .flatMap((stream) => openRequests(trace, stream))
    .filter((request) => (positions.get(request) ?? 0) > cut)
    .sort((a, b) => positions.get(a)! - positions.get(b)!);
}

/** The stream whose Request has the id (the latest such Request), or the thread's own stream when none has. */
export function streamOfRequest(trace: Trace, requestId: string): string {
  return trace.byType(Request).findLast((request) => request.requestId === requestId)?.stream ?? MAIN;
}

/**
 * Why an answer to `requestId` is refused on the stream's running turn, or null when it may be recorded:
 * the same checks as the Temporal workflow's Update validator.
 */
export function refusal(trace: Trace, stream: string, requestId: string, payload: unknown): string | null {
  const events = trace.stream(stream).turn;
  const request = openRequests(trace, stream).find((candidate) => candidate.requestId === requestId);
  if (request === undefined) {
    const answered = events.some((event) => Response.is(event) && event.requestId === requestId);
    if (answered) return `Request "${requestId}" is answered already; an answer is recorded once.`;
    const waiting = openRequests(trace, stream).map((candidate) => candidate.requestId);
    return `No request "${requestId}" waits for an answer in this turn; waiting: ${waiting.join(", ") || "none"}.`;
  }
  return answerProblem(request, payload);
}

/** Record a person's answer to a waiting Request of the stream, once. Raises AnswerRefusedError as `refusal` says. */
export async function recordAnswer(
  recorder: Recorder,
  stream: string,
  requestId: string,
  payload: unknown,
): Promise<Response> {
  for (;;) {
    const trace = await readTrace(recorder.store, recorder.types, recorder.threadId);
    const refused = refusal(trace, stream, requestId, payload);
    if (refused !== null) throw new AnswerRefusedError(refused, { details: { requestId } });
    const request = openRequests(trace, stream).find((candidate) => candidate.requestId === requestId)!;
    try {
      const [recorded] = await append(recorder, [responseTo(request, payload as Response["payload"])], trace, stream);
      return recorded as Response;
    } catch (error) {
      if (!(error instanceof StreamMovedError)) throw error;
    }
  }
}

/**
 * End the wait of a Request whose deadline passed: record its default answer, or else a NoAnswerError
 * Failure that ends the turn. Nothing when the request is answered or a Failure after it ended the turn.
 * Returns what it recorded (or found recorded): the Response, or the Failure.
 */
export async function expireRequest(
  recorder: Recorder,
  stream: string,
  requestId: string,
): Promise<Response | Failure | null> {
  for (;;) {
    const trace = await readTrace(recorder.store, recorder.types, recorder.threadId);
    const events = trace.stream(stream).turn;
    const at = events.findIndex((event) => Request.is(event) && event.requestId === requestId);
    if (at < 0) return null;
    const later = events.slice(at + 1);
    const found = later.find(
      (event): event is Response | Failure =>
        (Response.is(event) && event.requestId === requestId) || Failure.is(event),
    );
    if (found) return found;
    const request = events[at] as Request;
    const ending = request.defaultAnswer
      ? responseTo(request, request.defaultAnswer.payload)
      : Failure({
          error: NO_ANSWER_ERROR,
          message: noAnswerMessage(request),
          callId: request.callId,
          stream,
          origin: request.origin,
        });
    try {
      const [recorded] = await append(recorder, [ending], trace, stream);
      return recorded as Response | Failure;
    } catch (error) {
      if (!(error instanceof StreamMovedError)) throw error;
    }
  }
}

/** Record a Failure that ends the stream's turn, unless the stream's last event is a Failure already (once). A fact: appended unchecked by `expected`. */
export async function recordTurnFailure(
  recorder: Recorder,
  stream: string,
  failure: { error: string; message: string; node?: string | null; callId?: string | null },
): Promise<Failure | null> {
  const trace = await readTrace(recorder.store, recorder.types, recorder.threadId);
  const last = trace.stream(stream).events.at(-1);
  if (last !== undefined && Failure.is(last)) return null;
  const event = Failure({
    error: failure.error,
    message: failure.message,
    callId: failure.callId ?? null,
    stream,
    origin: failure.node ?? null,
    version: recorder.version ?? null,
  });
  return (await appendFact(recorder, event)) as Failure;
}

function responseTo(request: Request, payload: Response["payload"]): Response {
  return Response({
    requestId: request.requestId,
    payload,
    callId: request.callId,
    stream: request.stream,
    origin: request.origin,
  });
}
