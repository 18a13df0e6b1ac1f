/**
 * The workflow interceptor of a worker that forces idsOnly: every turn and task it runs keeps user text out
 * of its summaries, details and result, whatever its starter asked. The worker adds this module when its
 * `idsOnly` option is set (createTurnWorker); a bundle made ahead needs it too (`bundleTurnWorkflows({ idsOnly: true })`).
 */
import type { WorkflowInterceptorsFactory } from "@temporalio/workflow";
import { workflowInfo } from "@temporalio/workflow";
import { TASK_WORKFLOW, TURN_WORKFLOW, type TaskArgument, type TurnArgument } from "../src/temporal/contract.js";

/** The text by which a worker finds this module in a bundle made ahead. */
export const IDS_ONLY_MARK = "soev-agents: ids-only interceptor";

/** The argument as the workflow reads it: with idsOnly set, for the turn and task workflows. */
function forced(type: string, argument: unknown): unknown {
  if (argument === null || typeof argument !== "object") return argument;
  if (type === TURN_WORKFLOW) {
    const turn = argument as TurnArgument;
    return { ...turn, settings: { ...turn.settings, idsOnly: true } };
  }
  if (type === TASK_WORKFLOW) return { ...(argument as TaskArgument), idsOnly: true };
  return argument;
}

/** The interceptors Temporal's bundler registers for each workflow. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      execute: (input, next) => {
        const [argument, ...rest] = input.args;
        return next({ ...input, args: [forced(workflowInfo().workflowType, argument), ...rest] });
      },
    },
  ],
});
