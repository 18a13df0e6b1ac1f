/**
 * The loop both workflows share: run the node's units as activities (each model and tool call its own,
 * siblings in parallel, a task unit as a child workflow), each returning what comes next, until the
 * graph ends. Deterministic: every decision comes from an activity result.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  TimeoutFailure,
  executeChild,
  isCancellation,
  setCurrentDetails,
} from "@temporalio/workflow";
import {
  TASK_WORKFLOW,
  markdownCode,
  markdownEscaped,
  shortened,
  taskWorkflowIdOf,
  type TaskArgument,
  type PlannedWork,
  type TaskOutcome,
  type TurnFailure,
  type TurnResult,
  type TurnScope,
  type WorkArgument,
  type WorkDone,
  type WorkUnit,
} from "../src/temporal/contract.js";
import type { TurnWatch } from "./person.js";
import type { TurnCalls } from "./turn-calls.js";

/** The failures of a node's units: the workflow records the first and fails with it. */
export class StepFailed extends Error {
  constructor(readonly failures: TurnFailure[]) {
    super(failures[0]?.message);
  }
}

/** What running a stream's graph did: the units it ran, and the turn's summary when its last unit closed the turn. */
export interface GraphRun {
  units: number;
  result: TurnResult | null;
}

/**
 * Run the stream's graph from `first` until it ends. Each unit returns what comes next from the trace it
 * appended to, so no planning activity runs between units. Units on the turn's own stream (`inputSeq`
 * set) close the turn when the graph ends. Throws StepFailed when units fail. A turn that waits for a
 * person waits through `watch` (answers come by the `answer` Update), then asks nextWork where it stands.
 */
export async function runGraph(
  calls: TurnCalls,
  scope: TurnScope,
  first: PlannedWork,
  inputSeq: number | null,
  watch: TurnWatch,
): Promise<GraphRun> {
  let previous: string | null = null;
  let count = 0;
  let planned = first;
  let lease = scope.lease;
  let result: TurnResult | null = null;
  for (;;) {
    if (planned.waiting !== undefined && planned.waiting.length > 0) {
      await watch.waitFor(calls, planned.waiting, (failure) => new StepFailed([failure]));
      planned = await calls.activities.nextWork({ ...scope, lease });
      previous = null;
      continue;
    }
    if (planned.node === null) break;
    const node = planned.node;
    const work = planned.work;
    setCurrentDetails(
      `**${markdownEscaped(scope.agent)}**, stream ${markdownCode(scope.stream)}, node ${markdownCode(node)}: ` +
        markdownEscaped(work.map((unit) => unit.summary).join("; ")),
    );
    const current = { ...scope, lease };
    watch.runs(node, work);
    const started = work.map((unit) => runUnit(calls, current, node, unit, inputSeq, watch));
    // A node of one unit (most are) awaits it alone: the SDK records a stack trace for every promise made in a
    // workflow, and allSettled makes two more.
    let results: PromiseSettledResult<WorkDone>[];
    if (started.length === 1) {
      try {
        results = [{ status: "fulfilled", value: await started[0]! }];
      } catch (reason) {
        results = [{ status: "rejected", reason }];
      }
    } else results = await Promise.allSettled(started);
    watch.ran();
    const cancelled = results.find((outcome) => outcome.status === "rejected" && isCancellation(outcome.reason));
    if (cancelled) throw (cancelled as PromiseRejectedResult).reason;
    const failures = results.flatMap((outcome, index) =>
      outcome.status === "rejected" ? [failureOf(outcome.reason, node, work[index]!)] : [],
    );
    if (failures.length > 0) throw new StepFailed(failures);
    const done = (results as PromiseFulfilledResult<WorkDone>[]).map((outcome) => outcome.value);
    previous = checkProgress(previous, node, work, done);
    count += work.length;
    // The unit that saw the longest stream saw every sibling's events: its view of what comes next is the latest.
    const latest = done.reduce((best, unit) => (unit.next.streamLength >= best.next.streamLength ? unit : best));
    const renewedAt = Math.max(lease.renewedAt ?? 0, ...done.map((unit) => unit.renewedAt ?? 0));
    lease = { ...lease, renewedAt };
    planned = latest.next;
    result = latest.result;
  }
  return { units: count, result };
}

/**
 * One unit: a call as its activity (the UI summary names the model or the tool), a task as hand-off,
 * child workflow, hand-back. A call is its activity's promise itself, not wrapped in another.
 */
function runUnit(
  calls: TurnCalls,
  scope: TurnScope,
  node: string,
  unit: WorkUnit,
  inputSeq: number | null,
  watch: TurnWatch,
): Promise<WorkDone> {
  const { activities, units } = calls;
  const argument: WorkArgument = { ...scope, node, unit, inputSeq };
  const summary = shortened(unit.summary, 120);
  if (unit.kind === "task") return runTask(calls, scope, argument, summary, watch);
  const call =
    unit.kind === "model" ? activities.callModel : unit.kind === "tool" ? activities.callTool : activities.runStep;
  try {
    return call.executeWithOptions({ ...units, summary }, [argument]);
  } catch (error) {
    // A unit that cannot start fails as the unit (a rejected promise, as allSettled expects), not the loop.
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** A task unit: hand-off, the task's child workflow, hand-back. */
async function runTask(
  calls: TurnCalls,
  scope: TurnScope,
  argument: WorkArgument,
  summary: string,
  watch: TurnWatch,
): Promise<WorkDone> {
  const { activities, control } = calls;
  const handed = await activities.handOff.executeWithOptions({ ...control, summary: `hand off ${summary}` }, [
    argument,
  ]);
  const task: TaskArgument = {
    ...scope,
    stream: handed.stream,
    inputSeq: handed.seq,
    next: handed.next,
    settings: calls.settings,
  };
  try {
    await executeChild<(argument: TaskArgument) => Promise<TaskOutcome>>(TASK_WORKFLOW, {
      workflowId: taskWorkflowIdOf(scope.threadId, handed.stream),
      args: [task],
      staticSummary: `${scope.agent} task: ${summary}`,
    });
  } finally {
    watch.taskEnded(handed.stream);
  }
  return activities.handBack.executeWithOptions({ ...control, summary: `hand back ${summary}` }, [argument]);
}

/** A failure as the workflow reports it: the error's class name and message, from the activity's or child's failure. */
export function failureOf(error: unknown, node: string | null, unit: WorkUnit | null): TurnFailure {
  const callId = unit?.kind === "tool" || unit?.kind === "task" ? unit.key : null;
  const cause = error instanceof ActivityFailure || error instanceof ChildWorkflowFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    return { error: cause.type ?? "Error", message: cause.message, retryable: !cause.nonRetryable, node, callId };
  }
  if (cause instanceof TimeoutFailure) {
    const what = unit ? unit.summary : "an activity";
    return {
      error: "TimeoutError",
      message: `${what} timed out (${cause.timeoutType}) after its last attempt.`,
      retryable: true,
      node,
      callId,
    };
  }
  if (error instanceof StepFailed) return error.failures[0]!;
  const named = cause instanceof Error ? cause : new Error(String(cause));
  return { error: named.name, message: named.message, retryable: false, node, callId };
}

/** The failure a workflow ends with: the first failure's name and message, non-retryable. */
export function endingFailure(failure: TurnFailure): ApplicationFailure {
  return ApplicationFailure.create({ type: failure.error, message: failure.message, nonRetryable: true });
}

/**
 * Refuse a node that plans the same work again after every unit found it recorded: the step's plan and
 * its `done` disagree, and the loop would never end.
 */
function checkProgress(previous: string | null, node: string, work: WorkUnit[], done: WorkDone[]): string {
  const signature = `${node}:${work.map((unit) => unit.key).join(",")}`;
  if (signature === previous && done.every((unit) => unit.skipped)) {
    throw ApplicationFailure.create({
      type: "GraphError",
      message: `Node "${node}" planned work it had already recorded (${work.map((unit) => unit.summary).join("; ")}): its plan and its done disagree.`,
      nonRetryable: true,
    });
  }
  return signature;
}
