/**
 * The task workflow: a child of the turn that runs the stream of one task (a ToolDelegation call) until
 * its graph ends. The turn records the hand-off before and the hand-back after; the task records its own
 * Failure on its stream, as the local runner does, and fails with it.
 */
import { CancellationScope, isCancellation } from "@temporalio/workflow";
import { TURN_CANCELLED, type TaskArgument, type TaskOutcome } from "../src/temporal/contract.js";
import { StepFailed, endingFailure, failureOf, runGraph } from "./loop.js";
import { DEFAULT_SETTINGS, turnCalls } from "./turn-calls.js";
import { TurnWatch } from "./person.js";

/** Run one task's stream under the turn's lease; the result names the stream and the units it ran. */
export async function soevTask(argument: TaskArgument): Promise<TaskOutcome> {
  const calls = turnCalls({ ...DEFAULT_SETTINGS, ...argument.settings });
  const scope = {
    agent: argument.agent,
    threadId: argument.threadId,
    stream: argument.stream,
    lease: argument.lease,
    ...(argument.idsOnly ? { idsOnly: true } : {}),
  };
  const watch = new TurnWatch(argument.threadId, argument.agent);
  watch.installTask();
  watch.opened(scope);
  try {
    const first = argument.next ?? (await calls.activities.nextWork(scope));
    const run = await runGraph(calls, scope, first, null, watch);
    return { stream: argument.stream, units: run.units };
  } catch (error) {
    // A cancelled task records the same cancellation as its turn does.
    const failures = isCancellation(error)
      ? [{ ...TURN_CANCELLED, retryable: false, node: null, callId: null }]
      : error instanceof StepFailed
        ? error.failures
        : [failureOf(error, null, null)];
    await CancellationScope.nonCancellable(() =>
      calls.activities.failTurn({ ...scope, inputSeq: argument.inputSeq, failure: failures[0]!, release: false }),
    );
    if (isCancellation(error)) throw error;
    throw endingFailure(failures[0]!);
  }
}
