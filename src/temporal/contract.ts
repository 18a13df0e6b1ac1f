/**
 * The contract of the Temporal runner: the turn workflow's type name, the JSON shapes of its argument and
 * result, the workflow id of a thread, and the activities the workflow calls. Pure types and constants:
 * workflows/ imports it, and a client of any Temporal SDK can follow it (docs/temporal.md).
 */

import { jsonBytes } from "../domain/input-size.js";
import type { UsageTotals } from "../domain/usage.js";

export {
  THREAD_SEARCH_ATTRIBUTE,
  AGENT_SEARCH_ATTRIBUTE,
  THREAD_TOKENS_SEARCH_ATTRIBUTE,
} from "./search-attributes.js";
// Pure and import-free: the workflow measures an input as the catalog does.
export { MAX_INPUT_BYTES, inputSizeProblem } from "../domain/input-size.js";

/** The workflow type of one turn of a thread. */
export const TURN_WORKFLOW = "soevTurn";

/** The workflow type of a task that a ToolDelegation call hands off: a child of the turn, on a stream of its own. */
export const TASK_WORKFLOW = "soevTask";

/** The task queue a worker polls unless told otherwise. */
export const DEFAULT_TASK_QUEUE = "soev-agents";

/** The prefix of a turn's workflow id: the rest is the thread id. */
export const WORKFLOW_ID_PREFIX = "soev-thread-";

/** The stream a turn runs on. */
export const MAIN_STREAM = "main";

/** How many characters of the answer the workflow result carries. */
export const ANSWER_CHARACTERS = 500;

/** How many characters of the input a summary shows. */
export const SUMMARY_CHARACTERS = 80;

/**
 * The workflow id of a thread's turns: one id per thread, so Temporal itself refuses a second turn of
 * the thread while one runs.
 */
export function workflowIdOf(threadId: string): string {
  return `${WORKFLOW_ID_PREFIX}${threadId}`;
}

/** The workflow id of the task on `stream` of a thread: the stream names the call that handed it off. */
export function taskWorkflowIdOf(threadId: string, stream: string): string {
  return `${workflowIdOf(threadId)}/${stream}`;
}

/** The thread id of a turn's workflow id, or null for a workflow id of another form. */
export function threadIdOf(workflowId: string): string | null {
  return workflowId.startsWith(WORKFLOW_ID_PREFIX) ? workflowId.slice(WORKFLOW_ID_PREFIX.length) || null : null;
}

/** The most bytes of the turn's argument as JSON (UTF-8) besides its input's payload, which `maxInputBytes` limits. */
export const MAX_ARGUMENT_BYTES = 256 * 1024;

/** The deepest nesting of arrays and objects in the turn's argument. */
export const MAX_ARGUMENT_DEPTH = 32;

/**
 * What is wrong with the size of a turn's argument, or null: nested deeper than MAX_ARGUMENT_DEPTH, or
 * more than MAX_ARGUMENT_BYTES as JSON besides its input's payload (inputSizeProblem checks that against
 * the turn's `maxInputBytes`). Depth is checked first, without recursion, so a deep value cannot overflow the stack.
 */
export function argumentSizeProblem(argument: unknown): string | null {
  const pending: [unknown, number][] = [[argument, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth > MAX_ARGUMENT_DEPTH) return `is nested deeper than ${MAX_ARGUMENT_DEPTH} levels`;
    for (const item of Object.values(value)) pending.push([item, depth + 1]);
  }
  const input = (argument as { input?: unknown } | null)?.input;
  const rest =
    input !== null && typeof input === "object"
      ? { ...(argument as object), input: { ...input, payload: null } }
      : argument;
  const bytes = jsonBytes(rest);
  return bytes > MAX_ARGUMENT_BYTES
    ? `is ${bytes} bytes as JSON besides its input's payload, over the limit of ${MAX_ARGUMENT_BYTES}`
    : null;
}

/** `text` with Temporal markdown's special characters escaped, so user text shows as written in the UI. */
export function markdownEscaped(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (character) => `\\${character}`);
}

/** An id as Temporal markdown shows code: in backticks, or escaped when it holds a backtick or a line break. */
export function markdownCode(text: string): string {
  return /[`\r\n]/.test(text) ? markdownEscaped(text) : `\`${text}\``;
}

/** A text cut to `characters`, with "..." when it was longer: for summaries in the Temporal UI. */
export function shortened(text: string, characters = SUMMARY_CHARACTERS): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > characters ? `${line.slice(0, characters - 3)}...` : line;
}

/** A JSON value, as the workflow's argument and result carry them. */
export type TurnJson = string | number | boolean | null | TurnJson[] | { [key: string]: TurnJson };

/** The input that opens the turn: the user's payload (the agent's input type parses it) and the model. */
export interface TurnInput {
  payload: TurnJson;
  /** The model the turn runs on, as the agent's adapter names it. */
  model: string | null;
}

/** Timeouts and retries of a turn's activities; every field is optional. */
export interface TurnSettings {
  /** A model or tool attempt that sends no heartbeat for this long is retried on another worker. Default 15. */
  heartbeatSeconds?: number;
  /** The longest one model or tool attempt may run. Default 600. */
  callSeconds?: number;
  /** The longest one attempt of the other activities (open, hand-off, fail, close) may run: they only read and write the store. Default 30. */
  controlSeconds?: number;
  /** The attempts of one activity before the turn fails, transient errors included. Default 10. */
  attempts?: number;
  /**
   * The most bytes of the input's payload as JSON that startTurn and the workflow let through: a larger
   * input fails with InputTooLargeError before anything runs. The worker's catalog checks its own
   * `maxInputBytes` again before it records. Default MAX_INPUT_BYTES (256 KiB).
   */
  maxInputBytes?: number;
  /**
   * Keep user text out of what the Temporal UI shows: summaries and details name the agent, the thread,
   * the model, the tools and the nodes only, and the result carries ids, positions and counts, no answer
   * text. The argument still holds the input: encrypt payloads with a codec too (SECURITY.md). Default false.
   */
  idsOnly?: boolean;
  /**
   * How long a turn whose agent no worker's catalog has waits for a worker that has it (a rolling deploy
   * hands it over meanwhile) before it fails with UnknownAgentError. Default 60.
   */
  unknownAgentSeconds?: number;
}

/** The argument of the turn workflow: `{ agent, threadId, input: { payload, model } }`, JSON. */
export interface TurnArgument {
  /** The agent's name in the worker's catalog. */
  agent: string;
  /** The thread to continue, or null to open a new thread (the workflow picks its id). */
  threadId: string | null;
  input: TurnInput;
  settings?: TurnSettings;
  /** Who starts the turn, as the starter authenticated them: the worker's `authorize` hook reads it. Default null. */
  principal?: string | null;
}

/** One citation marker of the answer: its text as the model wrote it, and the source id each number names. */
export interface TurnCitation {
  marker: string;
  /** The real id of each cited Source, or null where the number named nothing citable. */
  sources: (string | null)[];
  /** Each number of the marker and what it named: a cited Source, a Reference (named, not citable) or nothing. */
  numbers: TurnCitedNumber[];
}

/** One number of a citation marker, and the element it named in the thread. */
export interface TurnCitedNumber {
  /** The number as the model wrote it. */
  number: number;
  /** The real id of the element that the number names, or null when it names no element of the thread. */
  element: string | null;
  /** "source" for a Source (cited), "reference" for a Reference (named, not citable), null for nothing. */
  kind: "source" | "reference" | null;
}

/** The result of the turn workflow: a short summary of the answer; the trace store holds the rest. */
export interface TurnResult {
  threadId: string;
  agent: string;
  /** The start of the answer as the model wrote it (markers in place), at most ANSWER_CHARACTERS. */
  answer: string;
  /** Whether `answer` is cut short. */
  truncated: boolean;
  /** The answer's markers, in order. */
  citations: TurnCitation[];
  /** The distinct ids of the cited sources, in order of first citation. */
  sources: string[];
  /** The positions in the thread's log of the turn's first event (its input) and last event. */
  positions: { first: number; last: number };
  /** The events the turn recorded on its stream, its input included. */
  events: number;
  modelCalls: number;
  toolCalls: number;
  /** What the turn's model calls used and cost, its delegated tasks' included. */
  usage: TurnUsage;
  /** The thread's total tokens, all its turns', when this turn ended (the SoevThreadTokens search attribute). */
  threadTokens: number;
}

/** A turn's usage and its cost in US dollars under the catalog's price table. */
export interface TurnUsage extends UsageTotals {
  /** US dollars, for the calls whose model the price table prices. */
  cost: number;
  /** The calls whose model the price table has no price for (not in `cost`). */
  unpricedCalls: number;
  /** The version of the price table. */
  prices: string;
}

/** The thread's lease as the workflow holds it for the turn: passed to each activity. */
export interface TurnLease {
  threadId: string;
  owner: string;
  counter: number;
  /**
   * When the lease was last taken or renewed (milliseconds since the epoch, a worker's clock): an
   * activity renews it only once a third of its time has passed, so most activities write nothing for it.
   */
  renewedAt?: number;
}

/** What every activity of a running turn names: the thread, its agent, the stream and the turn's lease. */
export interface TurnScope {
  agent: string;
  threadId: string;
  stream: string;
  lease: TurnLease;
  /** The turn runs with `settings.idsOnly`: summaries and the result carry no user text. */
  idsOnly?: boolean;
}

/**
 * openTurn: check the agent and thread, take the thread's lease for the turn, record the turn's Input
 * exactly once, and say what comes next.
 */
export interface OpenTurnArgument {
  agent: string;
  threadId: string;
  stream: string;
  /** The lease owner: the workflow id and run id, so a retried attempt finds the lease an earlier attempt took. */
  owner: string;
  input: TurnInput;
  /** Who starts the turn: the worker's `authorize` hook decides before anything is read or written. */
  principal?: string | null;
  idsOnly?: boolean;
}

/** What openTurn did: the lease, the seq of the turn's Input (it keys the turn), and the first work. */
export interface OpenedTurn {
  lease: TurnLease;
  inputSeq: number;
  /** Whether an earlier attempt had recorded the Input. */
  skipped: boolean;
  next: PlannedWork;
}

/** One unit of work: one model call, one tool call, or the work of a plain step (the runtime's Work). */
export interface WorkUnit {
  /** The tool call's id, or the model call's pass key. */
  key: string;
  kind: "model" | "tool" | "step" | "task";
  /** The model's name, the tool's name, or the step's. */
  name: string;
  /** A short summary, such as `search({"query":"bulky waste"})`. */
  summary: string;
}

/** What comes next on a stream: the node with work and its units, or `node: null` when its graph ended or it waits. */
export interface PlannedWork {
  node: string | null;
  work: WorkUnit[];
  /** The stream's length as read. */
  streamLength: number;
  /** The requests the turn waits on (no node runs until each is answered); absent or empty when it waits on none. */
  waiting?: PendingRequest[];
}

/** The name of the turn workflow's Update that answers a waiting request: argument AnswerArgument, result AnswerResult. */
export const ANSWER_UPDATE = "answer";

/** The name of the turn workflow's Query that tells where the turn stands: no argument, result TurnStatus. */
export const STATUS_QUERY = "status";

/**
 * The name of the signal a task's workflow sends its turn's workflow (a ToolDelegation's tool asked): the
 * task's stream and the requests it waits on, none once it goes on. The turn's `status` and `answer` take them.
 */
export const TASK_WAITING_SIGNAL = "taskWaiting";

/** The name of the signal the turn's workflow sends a task's workflow once it recorded an answer to one of its requests: the request's id. */
export const TASK_ANSWERED_SIGNAL = "taskAnswered";

/** The argument of the `taskWaiting` signal. */
export interface TaskWaiting {
  stream: string;
  requests: PendingRequest[];
}

/** The error name and message of the Failure a cancelled turn records (the local runner's Thread.cancel records the same). */
export const TURN_CANCELLED = { error: "CancelledError", message: "The turn was cancelled." } as const;

/** A request the turn waits on, as the workflow holds it: small, for the Update's validator and the status Query. */
export interface PendingRequest {
  /** The id the answer names, such as `call_7:approval`. */
  requestId: string;
  kind: "question" | "approval";
  /** What the person reads (at most 400 characters); in idsOnly mode the kind and tool only (the trace has the text). */
  text: string;
  /** The JSON schema an answer must fit, or null for any JSON. An approval's is `{ approved: boolean, reason?: string }`. */
  schema: { [key: string]: TurnJson } | null;
  /** The stream that asks: the turn's own, or a delegated task's. Absent in results of older workers. */
  stream?: string;
  /** The tool call that asks or waits for approval, and its tool, or null. */
  callId: string | null;
  tool: string | null;
  /** Milliseconds from when the workflow learned of the request until its deadline passes, or null for none. */
  deadlineMs: number | null;
  /** The deadline as an ISO-8601 time, or null. */
  deadline: string | null;
  /** Whether a passed deadline records a default answer (else the turn ends with a NoAnswerError Failure). */
  hasDefault: boolean;
}

/** The argument of the `answer` Update: the request's id and the answer, JSON. */
export interface AnswerArgument {
  requestId: string;
  payload: TurnJson;
}

/** The result of the `answer` Update: the request answered, and the seq of its recorded Response on the stream. */
export interface AnswerResult {
  requestId: string;
  seq: number;
}

/** The result of the `status` Query: where the turn stands. */
export interface TurnStatus {
  threadId: string;
  agent: string;
  /** "opening", "running" (units run), "waiting" (for a person), "closing", "ended" or "failed". */
  state: "opening" | "running" | "waiting" | "closing" | "ended" | "failed";
  /** The node whose units run, or null. */
  node: string | null;
  /** The units running now, with their summaries. */
  running: WorkUnit[];
  /** The requests the turn waits on that no answer took yet. */
  requests: PendingRequest[];
}

/** recordAnswer: record a person's answer to a waiting request as a Response, once (the Update's handler runs it). */
export interface RecordAnswerArgument extends TurnScope {
  requestId: string;
  payload: TurnJson;
}

/** expireRequest: the deadline of a waiting request passed: record its default answer, or the NoAnswerError Failure. */
export interface ExpireRequestArgument extends TurnScope {
  requestId: string;
}

/** What expireRequest recorded or found: an answer (the turn goes on), or the Failure that ends the turn. */
export interface ExpiredRequest {
  ended: "answered" | "failed";
  failure: TurnFailure | null;
}

/** callModel / callTool / runStep / handOff / handBack: run one unit of a node's work, or a part of a task unit. */
export interface WorkArgument extends TurnScope {
  node: string;
  unit: WorkUnit;
  /**
   * The seq of the turn's Input when this unit runs on the turn's own stream: a unit after which the
   * graph ends closes the turn (gives the lease up, summarises it), so no closing activity runs. Null on a task's stream.
   */
  inputSeq?: number | null;
}

/** What running one unit did, and what comes next, from the trace it appended to. */
export interface WorkDone {
  skipped: boolean;
  /** The seqs of the events it recorded, none when the trace had them. */
  seqs: number[];
  /** The tool calls of a recorded model output. */
  toolCalls: number;
  /** The stream's next work as the unit saw it after its append. */
  next: PlannedWork;
  /** When the unit renewed the lease, else null. */
  renewedAt: number | null;
  /** The turn's summary when this unit closed it (the graph ended), else null. */
  result: TurnResult | null;
}

/** What handOff recorded (or found): the task's stream, the seq of its TaskInput there, and the task's first work. */
export interface HandedOff {
  stream: string;
  seq: number;
  skipped: boolean;
  /** What comes first on the task's stream. */
  next: PlannedWork;
  renewedAt: number | null;
}

/** The argument of the task workflow: the turn's scope on the task's stream, and the turn's settings. */
export interface TaskArgument extends TurnScope {
  /** The seq of the TaskInput on the task's stream. */
  inputSeq: number;
  /** The task's first work as the hand-off found it; without it, the task asks nextWork. */
  next?: PlannedWork;
  settings?: TurnSettings;
}

/** The result of the task workflow: the task's stream and the units of work it ran. The hand-back reads the rest. */
export interface TaskOutcome {
  stream: string;
  units: number;
}

/** A step's failure as the workflow reports it to failTurn. */
export interface TurnFailure {
  /** The error's class name, such as "ModelOutputError". */
  error: string;
  message: string;
  retryable: boolean;
  node: string | null;
  callId: string | null;
}

/** failTurn: record the Failure once (when the turn's input is recorded) and give the lease up. */
export interface FailTurnArgument extends TurnScope {
  /** The seq of the turn's Input, or null when the turn failed before recording it. */
  inputSeq: number | null;
  failure: TurnFailure;
  /** Whether to give the lease up: a task leaves it to its turn. Default true. */
  release?: boolean;
}

/** The seq of the recorded Failure, or null when nothing was recorded (no input yet, recorded before, or lease replaced). */
export interface FailedTurn {
  seq: number | null;
  /** The thread's total tokens after the turn (the SoevThreadTokens search attribute); null when nothing was read. */
  threadTokens?: number | null;
}

/** closeTurn: give the lease up and summarise the turn whose Input has the seq `inputSeq` (when no unit closed it). */
export interface CloseTurnArgument extends TurnScope {
  inputSeq: number;
}

/** The activities of the turn workflow, by name: what a worker registers and the workflow calls. */
export interface TurnActivities {
  /** Takes the thread's lease, records the turn's Input once, and says what the turn does first. */
  openTurn(argument: OpenTurnArgument): Promise<OpenedTurn>;
  /** What the turn does next, from the trace: the node's units, a task to hand off, or the end. */
  nextWork(argument: TurnScope): Promise<PlannedWork>;
  /** Runs one model call of the turn and records its ModelOutput once; returns what comes next. */
  callModel(argument: WorkArgument): Promise<WorkDone>;
  /** Runs one tool call and records its ToolOutput once (by call id); returns what comes next. */
  callTool(argument: WorkArgument): Promise<WorkDone>;
  /** Runs a step of the agent's own graph that is neither a model call nor a tool call. */
  runStep(argument: WorkArgument): Promise<WorkDone>;
  /** Records a delegation's TaskInput on a stream of its own, before its child workflow runs it. */
  handOff(argument: WorkArgument): Promise<HandedOff>;
  /** Records a finished task's result as the delegating tool call's output. */
  handBack(argument: WorkArgument): Promise<WorkDone>;
  /** Records a person's answer to a waiting request as a Response, once: the `answer` Update's handler runs it. */
  recordAnswer(argument: RecordAnswerArgument): Promise<AnswerResult>;
  /** Ends the wait of a request whose deadline passed: its default answer, or the NoAnswerError Failure. */
  expireRequest(argument: ExpireRequestArgument): Promise<ExpiredRequest>;
  /** Records the turn's Failure once and releases the lease. */
  failTurn(argument: FailTurnArgument): Promise<FailedTurn>;
  /** Gives the lease up and summarises the turn when no unit closed it: the workflow's result. */
  closeTurn(argument: CloseTurnArgument): Promise<TurnResult>;
}

/** The name of the re-run workflow, as clients start it. */
export const RERUN_WORKFLOW = "soevRerun";

/** A batch that re-runs recorded threads' inputs, turn by turn, against a candidate agent. */
export interface RerunArgument {
  /** The batch's id: the candidate threads' ids are made from it (rerunThreadIdOf). */
  batchId: string;
  /** The recorded threads to re-run, each of `agent`. */
  threadIds: string[];
  /** The agent that recorded the threads (its catalog decodes them). */
  agent: string;
  /** The candidate: its agent's name, the task queue its workers poll, and the model its turns run on (default: each input's). */
  candidate: { agent: string; taskQueue: string; model?: string | null };
  /** How many threads re-run at once. Default 4. */
  concurrency?: number;
  /** The most candidate turns the batch runs; the rest are skipped. Default no limit. */
  maxTurns?: number;
  /** The candidate turns' settings. */
  settings?: TurnSettings;
}

/** What a re-run did: counts and ids, never the conversations (compare them with compareRerun). */
export interface RerunResult {
  batchId: string;
  threads: number;
  /** The candidate turns that ran to an answer. */
  turns: number;
  /** The candidate turns that failed. */
  failed: number;
  /** The turns skipped once maxTurns was reached. */
  skipped: number;
}

/** The id of the candidate thread that re-runs `threadId` in batch `batchId`. */
export function rerunThreadIdOf(batchId: string, threadId: string): string {
  return `rerun-${batchId}-${threadId}`;
}

/** A recorded turn's input, with who sent it: the candidate turn is sent by the same principal. */
export interface RecordedInput extends TurnInput {
  /** The recorded input's principal; absent on histories from before it was recorded. */
  principal?: string | null;
}

/** What a re-run batch's workflow memo holds (ids only), so the batch can be described without a worker. */
export interface RerunMemo {
  agent: string;
  candidate: string;
  threadIds: string[];
}

/** The activities of the re-run workflow. */
export interface RerunActivities {
  /** The inputs of a recorded thread's turns on its main stream, in order. */
  recordedInputs(argument: { agent: string; threadId: string }): Promise<RecordedInput[]>;
}
