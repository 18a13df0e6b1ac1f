/**
 * recordAnswer and expireRequest: the activities of a turn that waits for a person. recordAnswer records the
 * answer the `answer` Update took, checked again against the request's schema (the activity has the whole
 * of JSON Schema; the Update's validator a deterministic subset), exactly once. expireRequest ends a wait
 * whose deadline passed. Both through the runtime's code, as the local runner records them.
 */
import { Context } from "@temporalio/activity";
import { ApplicationFailure } from "@temporalio/common";
import { Failure } from "../src/domain/events.js";
import { AnswerRefusedError, expireRequest as expire, recordAnswer as record } from "../src/runtime/runner/requests.js";
import {
  type AnswerResult,
  type ExpiredRequest,
  type ExpireRequestArgument,
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
