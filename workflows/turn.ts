/**
 * The turn workflow: record the input, then run the graph node by node as activities until it ends.
 * Deterministic: every decision comes from an activity result; the trace store holds the content.
 */
import {
  ActivityFailure, ApplicationFailure, CancellationScope, TimeoutFailure, isCancellation, proxyActivities,
  setCurrentDetails, uuid4, workflowInfo, type ActivityOptions,
} from "@temporalio/workflow";
import {
  MAIN_STREAM, shortened,
  type TurnActivities, type TurnArgument, type TurnFailure, type TurnResult, type TurnScope, type TurnSettings, type WorkDone, type WorkUnit,
} from "../src/temporal/contract.js";

/** The settings a turn runs with when its argument leaves them out. */
const DEFAULT_SETTINGS: Required<TurnSettings> = { heartbeatSeconds: 15, callSeconds: 600, attempts: 10 };

/** One turn of a thread: `{ agent, threadId, input: { payload, model } }` in, a short summary of the answer out. */
export async function soevTurn(argument: TurnArgument): Promise<TurnResult> {
  const settings = { ...DEFAULT_SETTINGS, ...argument.settings };
  const { control, units } = activityOptions(settings);
  const activities = proxyActivities<TurnActivities>(control);
  const info = workflowInfo();
  const threadId = argument.threadId ?? uuid4();
  const base = { agent: argument.agent, threadId, stream: MAIN_STREAM };
  let turn: TurnScope | null = null;
  let inputSeq: number | null = null;
  try {
    setCurrentDetails(`Opening thread \`${threadId}\` for **${argument.agent}**.`);
    const opened = await activities.openTurn({ ...base, owner: `${info.workflowId}/${info.runId}` });
    const scope: TurnScope = { ...base, lease: opened.lease };
    turn = scope;
    const recorded = await activities.recordInput.executeWithOptions(
      { ...control, summary: `input: ${shortened(JSON.stringify(argument.input.payload))}` },
      [{ ...scope, input: argument.input, seq: opened.streamLength }],
    );
    inputSeq = recorded.seq;
    let previous: string | null = null;
    for (;;) {
      const planned = await activities.nextWork(scope);
      if (planned.node === null) break;
      const node = planned.node;
      setCurrentDetails(`**${argument.agent}**, node \`${node}\`: ${planned.work.map((unit) => unit.summary).join("; ")}`);
      const results = await Promise.allSettled(
        planned.work.map((unit) => {
          const call = unit.kind === "model" ? activities.callModel : unit.kind === "tool" ? activities.callTool : activities.runStep;
          return call.executeWithOptions({ ...units, summary: shortened(unit.summary, 120) }, [{ ...scope, node, unit }]);
        }),
      );
      const cancelled = results.find((result) => result.status === "rejected" && isCancellation(result.reason));
      if (cancelled) throw (cancelled as PromiseRejectedResult).reason;
      const failures = results.flatMap((result, index) =>
        result.status === "rejected" ? [failureOf(result.reason, node, planned.work[index]!)] : [],
      );
      if (failures.length > 0) throw new StepFailed(failures);
      previous = checkProgress(previous, node, planned.work, results as PromiseFulfilledResult<WorkDone>[]);
    }
    setCurrentDetails(`**${argument.agent}** answered on thread \`${threadId}\`.`);
    return await activities.closeTurn({ ...scope, inputSeq });
  } catch (error) {
    const failures = error instanceof StepFailed ? error.failures : [failureOf(error, null, null)];
    if (turn !== null) {
      const ending = turn;
      // A cancelled turn still records why it stopped and gives its lease up.
      await CancellationScope.nonCancellable(() => activities.failTurn({ ...ending, inputSeq, failure: failures[0]! }));
    }
    if (isCancellation(error)) throw error;
    const first = failures[0]!;
    setCurrentDetails(`**${argument.agent}** failed: ${first.error}: ${shortened(first.message, 200)}`);
    throw ApplicationFailure.create({ type: first.error, message: first.message, nonRetryable: true });
  }
}

/** The failures of a node's units: the workflow records the first and fails with it. */
class StepFailed extends Error {
  constructor(readonly failures: TurnFailure[]) {
    super(failures[0]?.message);
  }
}

/** Options of the control activities (short, store only) and of the model and tool calls (heartbeating). */
function activityOptions(settings: Required<TurnSettings>): { control: ActivityOptions; units: ActivityOptions } {
  const retry = { initialInterval: "1s", backoffCoefficient: 2, maximumInterval: "60s", maximumAttempts: settings.attempts };
  return {
    control: { startToCloseTimeout: "60s", retry },
    units: { startToCloseTimeout: settings.callSeconds * 1000, heartbeatTimeout: settings.heartbeatSeconds * 1000, retry },
  };
}

/** A failure as the workflow reports it: the error's class name and message, from the activity's failure. */
function failureOf(error: unknown, node: string | null, unit: WorkUnit | null): TurnFailure {
  const callId = unit?.kind === "tool" ? unit.key : null;
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    return { error: cause.type ?? "Error", message: cause.message, retryable: !cause.nonRetryable, node, callId };
  }
  if (cause instanceof TimeoutFailure) {
    const what = unit ? unit.summary : "an activity";
    return { error: "TimeoutError", message: `${what} timed out (${cause.timeoutType}) after its last attempt.`, retryable: true, node, callId };
  }
  if (error instanceof StepFailed) return error.failures[0]!;
  const named = cause instanceof Error ? cause : new Error(String(cause));
  return { error: named.name, message: named.message, retryable: false, node, callId };
}

/**
 * Refuse a node that plans the same work again after every unit found it recorded: the step's plan and
 * its `done` disagree, and the loop would never end.
 */
function checkProgress(previous: string | null, node: string, work: WorkUnit[], results: PromiseFulfilledResult<WorkDone>[]): string {
  const signature = `${node}:${work.map((unit) => unit.key).join(",")}`;
  if (signature === previous && results.every((result) => result.value.skipped)) {
    throw ApplicationFailure.create({
      type: "GraphError",
      message: `Node "${node}" planned work it had already recorded (${work.map((unit) => unit.summary).join("; ")}): its plan and its done disagree.`,
      nonRetryable: true,
    });
  }
  return signature;
}
