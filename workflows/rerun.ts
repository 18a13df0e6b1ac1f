/**
 * The re-run workflow: re-runs recorded threads' inputs, turn by turn, against a candidate agent, each
 * turn a child turn workflow on a candidate thread of its own (the originals are only read). A bounded
 * number of threads run at once; a worker that dies mid-batch is replaced and the batch goes on from its
 * history: started turns are not started again. Cancelling the batch cancels its running turns.
 */
import { executeChild, proxyActivities, ParentClosePolicy, WorkflowIdReusePolicy } from "@temporalio/workflow";
import {
  TURN_WORKFLOW,
  rerunThreadIdOf,
  workflowIdOf,
  type RerunActivities,
  type RerunArgument,
  type RerunResult,
  type TurnArgument,
} from "../src/temporal/contract.js";

const DEFAULT_CONCURRENCY = 4;

const { recordedInputs } = proxyActivities<RerunActivities>({
  startToCloseTimeout: "30s",
  retry: { initialInterval: "1s", backoffCoefficient: 2, maximumInterval: "30s", maximumAttempts: 10 },
});

/** Re-run each thread of the batch against the candidate; the result counts the turns. */
export async function soevRerun(argument: RerunArgument): Promise<RerunResult> {
  const result: RerunResult = {
    batchId: argument.batchId,
    threads: argument.threadIds.length,
    turns: 0,
    failed: 0,
    skipped: 0,
  };
  const waiting = [...argument.threadIds];
  const budget = { left: argument.maxTurns ?? Number.POSITIVE_INFINITY };
  const lane = async () => {
    for (let threadId = waiting.shift(); threadId !== undefined; threadId = waiting.shift())
      await rerunThread(argument, threadId, result, budget);
  };
  const lanes = Math.max(1, Math.min(argument.concurrency ?? DEFAULT_CONCURRENCY, argument.threadIds.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return result;
}

/** Run one recorded thread's inputs as turns of its candidate thread, in order; a failed turn ends the thread. */
async function rerunThread(
  argument: RerunArgument,
  threadId: string,
  result: RerunResult,
  budget: { left: number },
): Promise<void> {
  const inputs = await recordedInputs({ agent: argument.agent, threadId });
  const candidateThread = rerunThreadIdOf(argument.batchId, threadId);
  for (const [index, input] of inputs.entries()) {
    if (budget.left <= 0) {
      result.skipped += inputs.length - index;
      return;
    }
    budget.left -= 1;
    const turn: TurnArgument = {
      agent: argument.candidate.agent,
      threadId: candidateThread,
      input: { payload: input.payload, model: argument.candidate.model ?? input.model },
      // The candidate thread is the recorded one's owner's: they open both in the app.
      principal: input.principal ?? null,
      ...(argument.settings ? { settings: argument.settings } : {}),
    };
    try {
      await executeChild(TURN_WORKFLOW, {
        args: [turn],
        workflowId: workflowIdOf(candidateThread),
        taskQueue: argument.candidate.taskQueue,
        // Turn after turn under the thread's one workflow id, as startTurn does.
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        staticSummary: `Re-run of turn ${index + 1} of thread ${threadId}`,
      });
      result.turns += 1;
    } catch {
      // The candidate's failure is recorded in its thread; compareRerun reports it.
      result.failed += 1;
      result.skipped += inputs.length - index - 1;
      return;
    }
  }
}
