/**
 * answerRequest and turnStatus: answer what a running turn waits for, and ask where it stands, from a
 * service that has only a Temporal client. They send the `answer` Update and the `status` Query to the
 * thread's workflow; a client of another SDK sends the same names and JSON (README).
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from "@temporalio/client";
import { ApplicationFailure } from "@temporalio/common";
import { ValueError } from "../domain/errors.js";
import { AnswerRefusedError } from "../runtime/runner/requests.js";
import {
  ANSWER_UPDATE,
  STATUS_QUERY,
  workflowIdOf,
  type AnswerArgument,
  type AnswerResult,
  type TurnJson,
  type TurnStatus,
} from "./contract.js";
import { NoTurnError } from "./errors.js";

/** What answerRequest sends: the request's id and the answer. */
export interface AnswerRequestOptions {
  requestId: string;
  /** The answer: JSON that fits the request's schema; an approval's is `{ approved: boolean, reason?: string }`. */
  payload: TurnJson;
}

/**
 * Answer a request the thread's running turn waits on. Resolves once the Response is recorded. Raises
 * AnswerRefusedError (recording nothing) for an id the turn does not wait on, one answered already, or a
 * payload that does not fit; NoTurnError when no turn of the thread runs.
 */
export async function answerRequest(
  client: Client,
  threadId: string,
  options: AnswerRequestOptions,
): Promise<AnswerResult> {
  if (!threadId) throw new ValueError("answerRequest needs the thread's id.");
  if (typeof options?.requestId !== "string" || options.requestId === "")
    throw new ValueError("answerRequest needs the request's id: { requestId, payload }.");
  const argument: AnswerArgument = { requestId: options.requestId, payload: options.payload };
  try {
    return await turnOf(client, threadId).executeUpdate<AnswerResult, [AnswerArgument]>(ANSWER_UPDATE, {
      args: [argument],
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      throw new AnswerRefusedError(error.cause.message, { cause: error, details: { requestId: options.requestId } });
    }
    throw notRunning(error, threadId);
  }
}

/** Where the thread's running turn stands: its node, running units and waiting requests. NoTurnError when none runs. */
export async function turnStatus(client: Client, threadId: string): Promise<TurnStatus> {
  if (!threadId) throw new ValueError("turnStatus needs the thread's id.");
  try {
    return await turnOf(client, threadId).query<TurnStatus>(STATUS_QUERY);
  } catch (error) {
    throw notRunning(error, threadId);
  }
}

function turnOf(client: Client, threadId: string): WorkflowHandle {
  return client.workflow.getHandle(workflowIdOf(threadId));
}

function notRunning(error: unknown, threadId: string): unknown {
  if (error instanceof WorkflowNotFoundError)
    return new NoTurnError(
      `No turn of thread "${threadId}" ran on this Temporal namespace: start one with startTurn.`,
      {
        cause: error,
      },
    );
  return error;
}
