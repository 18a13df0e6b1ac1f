/**
 * recordAnswer and expireRequest: the activities of a turn that waits for a person. recordAnswer records the
 * answer the `answer` Update took, checked again against the request's schema (the activity has the whole
 * of JSON Schema; the Update's validator a deterministic subset), exactly once. expireRequest ends a wait
 * whose deadline passed. Both through the runtime's code, as the local runner records them.
 */
import { Context } from "@temporalio/activity";
import { ApplicationFailure } from "@temporalio/common";
import { Failure, type Request } from "../src/domain/events.js";
import { deadlineOf } from "../src/domain/requests.js";
import { AnswerRefusedError, expireRequest as expire, recordAnswer as record } from "../src/runtime/runner/requests.js";
import {
  shortened,
  type AnswerResult,
  type ExpiredRequest,
  type ExpireRequestArgument,
  type PendingRequest,
  type RecordAnswerArgument,
} from "../src/temporal/contract.js";
import { reported } from "./failures.js";
import { recorderOf, renewLease, type TurnAccess } from "./turn-access.js";

/** Record the answer to a waiting request; a refused answer fails the Update (non-retryable), recording nothing. */
export async function recordAnswer(access: TurnAccess, argument: RecordAnswerArgument): Promise<AnswerResult> {
  return reported(async () => {
    await renewLease(access, argument.lease);
    try {
      const response = await record(
        recorderOf(access, argument),
        argument.stream,
        argument.requestId,
        argument.payload,
      );
      return { requestId: argument.requestId, seq: response.seq ?? -1 };
    } catch (error) {
      if (!AnswerRefusedError.isInstance(error)) throw error;
      throw ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
    }
  }, Context.current().cancellationSignal);
}

/** End the wait of a request whose deadline passed: its default answer, or the Failure that ends the turn. */
export async function expireRequest(access: TurnAccess, argument: ExpireRequestArgument): Promise<ExpiredRequest> {
  return reported(async () => {
    await renewLease(access, argument.lease);
    const ended = await expire(recorderOf(access, argument), argument.stream, argument.requestId);
    if (ended === null || !Failure.is(ended)) return { ended: "answered", failure: null };
    return {
      ended: "failed",
      failure: {
        error: ended.error,
        message: ended.message,
        retryable: false,
        node: ended.origin,
        callId: ended.callId,
      },
    };
  }, Context.current().cancellationSignal);
}

/**
 * A waiting request as the workflow holds it: small, with the time left until its deadline. In idsOnly
 * mode its text names the kind and the tool only (the question and the call's arguments stay in the trace).
 */
export function pendingOf(request: Request, idsOnly = false): PendingRequest {
  const deadline = deadlineOf(request);
  const tool = request.tool === null ? "" : ` of ${request.tool}`;
  const withheld = request.kind === "approval" ? `Approve a call${tool}.` : `A question${tool}.`;
  return {
    requestId: request.requestId,
    kind: request.kind,
    text: idsOnly ? withheld : shortened(request.text, 400),
    stream: request.stream,
    schema: request.schema,
    callId: request.callId,
    tool: request.tool,
    deadlineMs: deadline === null ? null : Math.max(0, deadline - Date.now()),
    deadline: deadline === null ? null : new Date(deadline).toISOString(),
    hasDefault: request.defaultAnswer !== null,
  };
}
