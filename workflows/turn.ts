/**
 * The turn workflow: open the turn (lease and input, one local activity), then run the graph node by node as
 * activities until it ends; the last unit closes the turn.
 * Deterministic: every decision comes from an activity result; the trace store holds the content.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  patched,
  setCurrentDetails,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from "@temporalio/workflow";
import {
  AGENT_SEARCH_ATTRIBUTE,
  THREAD_TOKENS_SEARCH_ATTRIBUTE,
  MAIN_STREAM,
  THREAD_SEARCH_ATTRIBUTE,
  argumentSizeProblem,
  inputSizeProblem,
  markdownCode,
  markdownEscaped,
  TURN_CANCELLED,
  shortened,
  workflowIdOf,
  type OpenedTurn,
  type TurnArgument,
  type TurnResult,
  type TurnScope,
  type TurnSettings,
} from "../src/temporal/contract.js";
import { StepFailed, endingFailure, failureOf, runGraph } from "./loop.js";
import { DEFAULT_SETTINGS, turnCalls } from "./turn-calls.js";
import { TurnWatch } from "./person.js";

/** One turn of a thread: `{ agent, threadId, input: { payload, model } }` in, a short summary of the answer out. */
export async function soevTurn(argument: TurnArgument): Promise<TurnResult> {
  const settings = checkedArgument(argument);
  const info = workflowInfo();
  checkWorkflowId(argument, info.workflowId);
  const calls = turnCalls(settings);
  const { activities, local, control } = calls;
  const threadId = argument.threadId ?? uuid4();
  const idsOnly = settings.idsOnly;
  // A starter that set the agent attribute has the attributes registered: name the thread the workflow picked.
  if (argument.threadId == null && info.typedSearchAttributes.get(AGENT_SEARCH_ATTRIBUTE) !== undefined) {
    upsertSearchAttributes([{ key: THREAD_SEARCH_ATTRIBUTE, value: threadId }]);
  }
  const base = { agent: argument.agent, threadId, stream: MAIN_STREAM, ...(idsOnly ? { idsOnly } : {}) };
  const agent = markdownEscaped(argument.agent);
  const thread = markdownCode(threadId);
  const watch = new TurnWatch(threadId, argument.agent);
  watch.install(calls);
  let turn: TurnScope | null = null;
  let inputSeq: number | null = null;
  try {
    setCurrentDetails(`Opening thread ${thread} for **${agent}**.`);
    const summary = idsOnly ? "input" : `input: ${shortened(JSON.stringify(argument.input.payload))}`;
    // A local activity: opening is short store-only work, so it runs in the first workflow task instead of
    // costing a round trip of its own. It is idempotent for the run, so a retried workflow task repeats it safely.
    // An agent this worker's catalog lacks is not retried here: the workflow task fails, for another worker.
    let opened: OpenedTurn;
    try {
      opened = await local.openTurn.executeWithOptions(
        { ...control, retry: { ...control.retry, nonRetryableErrorTypes: [UNKNOWN_AGENT] }, summary },
        [
          {
            ...base,
            owner: `${info.workflowId}/${info.runId}`,
            input: argument.input,
            principal: argument.principal ?? null,
          },
        ],
      );
    } catch (error) {
      const unknown = unknownAgent(error);
      if (unknown === null) throw error;
      throw waitedForAgent(info.startTime, settings.unknownAgentSeconds)
        ? unknownAgentFailure(argument.agent, unknown.message, settings.unknownAgentSeconds)
        : new AgentNotOnThisWorker(unknown.message);
    }
    const scope: TurnScope = { ...base, lease: opened.lease };
    turn = scope;
    watch.opened(scope);
    inputSeq = opened.inputSeq;
    const run = await runGraph(calls, scope, opened.next, opened.inputSeq, watch);
    watch.state = "closing";
    setCurrentDetails(`**${agent}** answered on thread ${thread}.`);
    // The last unit closed the turn; a graph that ended with no unit leaves it to closeTurn.
    const result = run.result ?? (await activities.closeTurn({ ...scope, inputSeq: opened.inputSeq }));
    setThreadTokens(result.threadTokens);
    watch.state = "ended";
    // Waited for only when an Update is still running: a condition, like every promise in a workflow, costs a stack trace.
    if (!allHandlersFinished()) await condition(allHandlersFinished);
    return result;
  } catch (error) {
    if (error instanceof AgentNotOnThisWorker) throw error;
    watch.state = "failed";
    const failures = isCancellation(error)
      ? [{ ...TURN_CANCELLED, retryable: false, node: null, callId: null }]
      : error instanceof StepFailed
        ? error.failures
        : [failureOf(error, null, null)];
    if (turn !== null) {
      const ending = turn;
      // A cancelled turn still records why it stopped and gives its lease up.
      const failed = await CancellationScope.nonCancellable(() =>
        activities.failTurn({ ...ending, inputSeq, failure: failures[0]! }),
      );
      setThreadTokens(failed.threadTokens ?? null);
    }
    if (isCancellation(error)) throw error;
    const why = idsOnly ? "" : `: ${markdownEscaped(shortened(failures[0]!.message, 200))}`;
    setCurrentDetails(`**${agent}** failed: ${markdownEscaped(failures[0]!.error)}${why}`);
    throw endingFailure(failures[0]!);
  }
}

const UNKNOWN_AGENT = "UnknownAgentError";
/** The patch that sets SoevThreadTokens when a turn ends (issue 57). */
const THREAD_TOKENS_PATCH = "issue-57-thread-tokens";

/**
 * Set the thread's tokens as the turn ends, completed or failed. Only where the starter set the agent attribute
 * (the namespace has them registered); histories of before this change replay as they ran (the patch).
 */
function setThreadTokens(tokens: number | null): void {
  if (tokens === null || workflowInfo().typedSearchAttributes.get(AGENT_SEARCH_ATTRIBUTE) === undefined) return;
  if (patched(THREAD_TOKENS_PATCH)) upsertSearchAttributes([{ key: THREAD_TOKENS_SEARCH_ATTRIBUTE, value: tokens }]);
}

/**
 * This worker's catalog lacks the turn's agent (a worker of another version, during a rolling deploy). Not a
 * Temporal failure, so it fails the workflow task rather than the turn: Temporal retries the task, which a
 * worker that has the agent takes, as it would for a workflow type this worker lacks. The UI shows the message.
 */
class AgentNotOnThisWorker extends Error {
  override name = "AgentNotOnThisWorker";
}

/** True once the turn has waited `seconds` since it started for a worker whose catalog has its agent. */
function waitedForAgent(startTime: Date, seconds: number): boolean {
  // The workflow's clock is the time of the current workflow task: each retried task reads a later one.
  return Date.now() - startTime.getTime() >= seconds * 1000;
}

/** The turn's ending when no worker served its agent in time: non-retryable, so a caller sees it at once. */
function unknownAgentFailure(agent: string, message: string, seconds: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: UNKNOWN_AGENT,
    message:
      `${message} No worker took agent "${agent}" within ${seconds} s (settings.unknownAgentSeconds): ` +
      "check the agent's name, or start a worker whose catalog has it.",
    nonRetryable: true,
  });
}

/** The UnknownAgentError of a failed local activity (the SDK throws its ApplicationFailure, or wraps it). */
function unknownAgent(error: unknown): ApplicationFailure | null {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure && failure.type === UNKNOWN_AGENT ? failure : null;
}

/**
 * The settings of a well-formed argument: a client of any SDK sends plain JSON, so a malformed one fails
 * the workflow at once, with a ValueError that says what to send.
 */
function checkedArgument(argument: TurnArgument): Required<TurnSettings> {
  // Size first: nothing else reads an argument that is too large or too deep.
  const tooLarge = argumentSizeProblem(argument);
  if (tooLarge !== null) {
    throw ApplicationFailure.create({
      type: "ValueError",
      message: `The turn's argument ${tooLarge}. Send a smaller input; put large content in the app's own store and send its id.`,
      nonRetryable: true,
    });
  }
  const refuse = (what: string) => {
    throw ApplicationFailure.create({
      type: "ValueError",
      message: `The turn's argument ${what}. Send { agent, threadId, input: { payload, model } }.`,
      nonRetryable: true,
    });
  };
  if (argument === null || typeof argument !== "object") refuse("is not an object");
  if (typeof argument.agent !== "string" || argument.agent === "") refuse("has no agent name");
  if (argument.threadId != null && (typeof argument.threadId !== "string" || argument.threadId === ""))
    refuse("has a threadId that is not a non-empty string or null");
  if (argument.input === null || typeof argument.input !== "object" || !("payload" in argument.input))
    refuse("has no input with a payload");
  if (argument.input.model != null && typeof argument.input.model !== "string")
    refuse("has an input model that is not a string or null");
  const settings = { ...DEFAULT_SETTINGS, ...argument.settings };
  if (typeof settings.idsOnly !== "boolean") refuse("has settings.idsOnly that is not true or false");
  if (argument.principal != null && typeof argument.principal !== "string")
    refuse("has a principal that is not a string or null");
  for (const [name, value] of Object.entries(settings)) {
    if (name === "idsOnly") continue;
    const whole = name === "attempts" || name === "maxInputBytes";
    if (typeof value !== "number" || !(value > 0) || (whole && !Number.isInteger(value)))
      refuse(`has settings.${name} ${JSON.stringify(value)}, which is no positive ${whole ? "integer" : "number"}`);
  }
  // An input over the limit would travel into every activity's arguments: refused before any runs.
  const oversized = inputSizeProblem(argument.input.payload, settings.maxInputBytes);
  if (oversized !== null)
    throw ApplicationFailure.create({ type: "InputTooLargeError", message: oversized, nonRetryable: true });
  return settings;
}

/**
 * Refuse a turn whose workflow id is not its thread's: the one-turn-per-thread guarantee rests on that id,
 * so a turn under any other id could run beside the thread's own. Non-retryable, before any activity.
 */
function checkWorkflowId(argument: TurnArgument, workflowId: string): void {
  if (argument.threadId == null || workflowId === workflowIdOf(argument.threadId)) return;
  throw ApplicationFailure.create({
    type: "WorkflowIdError",
    message:
      `The turn of thread "${argument.threadId}" runs under workflow id "${workflowId}", not "${workflowIdOf(argument.threadId)}": ` +
      "start each turn under its thread's workflow id (startTurn does), so that one turn of a thread runs at a time.",
    nonRetryable: true,
  });
}
