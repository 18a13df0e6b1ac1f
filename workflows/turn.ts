/**
 * The turn workflow: record the input, then run the graph node by node as activities until it ends.
 * Deterministic: every decision comes from an activity result; the trace store holds the content.
 */
import {
  ActivityFailure, ApplicationFailure, CancellationScope, TimeoutFailure, isCancellation, proxyActivities,
  setCurrentDetails, upsertSearchAttributes, uuid4, workflowInfo, type ActivityOptions,
} from "@temporalio/workflow";
import {
  AGENT_SEARCH_ATTRIBUTE, MAIN_STREAM, THREAD_SEARCH_ATTRIBUTE, shortened,
  type TurnActivities, type TurnArgument, type TurnFailure, type TurnResult, type TurnScope, type TurnSettings, type WorkDone, type WorkUnit,
} from "../src/temporal/contract.js";

/** The settings a turn runs with when its argument leaves them out. */
const DEFAULT_SETTINGS: Required<TurnSettings> = { heartbeatSeconds: 15, callSeconds: 600, controlSeconds: 30, attempts: 10 };

/** One turn of a thread: `{ agent, threadId, input: { payload, model } }` in, a short summary of the answer out. */
export async function soevTurn(argument: TurnArgument): Promise<TurnResult> {
  const settings = checkedArgument(argument);
  const { control, units } = activityOptions(settings);
  const activities = proxyActivities<TurnActivities>(control);
  const info = workflowInfo();
  const threadId = argument.threadId ?? uuid4();
  // A starter that set the agent attribute has the attributes registered: name the thread the workflow picked.
  if (argument.threadId == null && info.typedSearchAttributes.get(AGENT_SEARCH_ATTRIBUTE) !== undefined) {
    upsertSearchAttributes([{ key: THREAD_SEARCH_ATTRIBUTE, value: threadId }]);
  }
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

/**
 * The settings of a well-formed argument: a client of any SDK sends plain JSON, so a malformed one fails
 * the workflow at once, with a ValueError that says what to send.
 */
function checkedArgument(argument: TurnArgument): Required<TurnSettings> {
  const refuse = (what: string) => {
    throw ApplicationFailure.create({ type: "ValueError", message: `The turn's argument ${what}. Send { agent, threadId, input: { payload, model } }.`, nonRetryable: true });
  };
  if (argument === null || typeof argument !== "object") refuse("is not an object");
  if (typeof argument.agent !== "string" || argument.agent === "") refuse("has no agent name");
  if (argument.threadId != null && (typeof argument.threadId !== "string" || argument.threadId === "")) refuse("has a threadId that is not a non-empty string or null");
  if (argument.input === null || typeof argument.input !== "object" || !("payload" in argument.input)) refuse("has no input with a payload");
  if (argument.input.model != null && typeof argument.input.model !== "string") refuse("has an input model that is not a string or null");
  const settings = { ...DEFAULT_SETTINGS, ...argument.settings };
  for (const [name, value] of Object.entries(settings)) {
    if (typeof value !== "number" || !(value > 0) || (name === "attempts" && !Number.isInteger(value))) refuse(`has settings.${name} ${JSON.stringify(value)}, which is no positive number`);
  }
  return settings;
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
    control: { startToCloseTimeout: settings.controlSeconds * 1000, retry },
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
