/**
 * The task protocol: how a "task" unit runs, the same on both runners. (a) record the TaskInput on the
 * task's stream, (b) run the task's graph on that stream until it ends, (c) record the hand-back ToolOutput
 * on the parent's stream. (a) and (c) are exactly once in the trace (runWork: read, skip what is recorded,
 * append with the stream's expected length), so a Temporal activity can run each on its own; (b) is the
 * stream's turn, which the local runner runs in-process and the Temporal runner as a child workflow.
 */
import { ValueError } from "../../domain/errors.js";
import { ModelOutput, TaskInput, ToolOutput, type Event } from "../../domain/events.js";
import type { Trace } from "../../domain/trace.js";
import { checkGraph, type Graph } from "../graph.js";
import type { Step, StepContext, Work } from "../contracts.js";
import type { Delegation } from "../tools/delegation.js";
import { GraphError } from "../errors.js";
import { isTaskStep } from "../tools/delegation.js";
import { waitingRequests } from "./requests.js";
import { readTrace, runWork, safely, type Recorder, type WorkResult } from "./work.js";

/** The context of a task unit: the parent's stream and the node whose step planned the unit. */
export type TaskContext = Omit<StepContext, "trace">;

/** What handing off a task did: the task's input, its delegation, and whether an earlier attempt recorded it. */
export interface HandOff {
  task: TaskInput;
  delegation: Delegation;
  skipped: boolean;
}

/** Runs a stream's turn until its graph ends: the local runner's runTurn, or a child workflow on Temporal. */
export type RunStreamTurn = (graph: Graph, stream: string) => Promise<unknown>;

/**
 * Run one "task" unit whole: hand the task off, run its stream's turn with the delegation's graph, and
 * hand its result back. Each part skips what the trace records, so running it again after a crash or a
 * failure inside the task resumes the task, and records no second TaskInput or hand-back. Null, with
 * nothing handed back, when the task's turn waits for a person (running it again after the answer resumes it).
 */
export async function runTask(
  recorder: Recorder,
  step: Step,
  context: TaskContext,
  key: string,
  runStreamTurn: RunStreamTurn,
): Promise<WorkResult | null> {
  const { task, delegation } = await handOff(recorder, step, context, key);
  const graph = delegation.graphFor(task);
  checkGraph(graph);
  await runStreamTurn(graph, task.stream);
  // A task whose tool waits for a person is not over: its turn waits, and so does the parent's.
  const trace = await readTrace(recorder.store, recorder.types, recorder.threadId);
  if (waitingRequests(trace, task.stream).length > 0) return null;
  return handBack(recorder, step, context, key);
}

/** (a) Record the TaskInput of call `key` on its task's stream, unless the stream has it already. */
export async function handOff(recorder: Recorder, step: Step, context: TaskContext, key: string): Promise<HandOff> {
  const trace = await readTrace(recorder.store, recorder.types, recorder.threadId);
  const delegation = delegationOf(step, { ...context, trace }, key);
  const task = plannedTask(delegation, trace.stream(context.stream), key);
  let existing: TaskInput | undefined;
  const unit: Step = {
    plan: () => [],
    done: (current) => (existing = recordedTask(current.trace, task.stream, key)) !== undefined,
    run: async () => [{ ...task, origin: context.node }],
  };
  const result = await runWork(
    recorder,
    unit,
    { ...context, trace, stream: task.stream },
    work(key, delegation.name, "hand-off"),
  );
  const recorded = result.recorded.find((event): event is TaskInput => TaskInput.is(event));
  if (recorded)
    safely(() =>
      context.observer?.call?.(recorder.threadId, context.stream, context.node, "tool", delegation.name, key),
    );
  return { task: recorded ?? existing!, delegation, skipped: result.skipped };
}

/**
 * (c) Record the result of the task of call `key` on the parent's stream, as the delegation hands it back,
 * unless the stream has the call's result already. Call it after the task's turn ended.
 */
export async function handBack(recorder: Recorder, step: Step, context: TaskContext, key: string): Promise<WorkResult> {
  const unit: Step = {
    plan: () => [],
    done: (current, unitKey) => step.done(current, unitKey),
    run: async (current) => {
      const delegation = delegationOf(step, current, key);
      const task = plannedTask(delegation, current.trace.stream(context.stream), key);
      if (recordedTask(current.trace, task.stream, key) === undefined) {
        throw new ValueError(
          `The task of call "${key}" (${delegation.name}) was never handed off: hand it off and run its turn before handing it back.`,
        );
      }
      const events = delegation.handBack(current.trace.stream(task.stream));
      return events.map((event): Event => ({
        ...event,
        ...(ToolOutput.is(event) ? { callId: key } : {}),
        stream: context.stream,
        origin: context.node,
      }));
    },
  };
  return runWork(recorder, unit, context, work(key, "task", "hand-back"));
}

/**
 * The graph of a task's stream, for a runner that rebuilds it from the trace (Temporal): the delegation
 * that handed the task off, found in the graph of the stream that made the call, as it stood then.
 * `graphOf` builds the graph of another stream from a trace (the catalog's graphFor).
 */
export async function taskGraph(
  trace: Trace,
  task: TaskInput,
  graphOf: (stream: string, trace: Trace) => Graph | Promise<Graph>,
  context: Pick<StepContext, "threadId" | "agent">,
): Promise<Graph> {
  const thread = trace.thread;
  const at = thread.entries.findIndex(
    ({ event }) => TaskInput.is(event) && event.stream === task.stream && event.callId === task.callId,
  );
  if (at < 0) throw new ValueError(`The trace holds no TaskInput of call "${task.callId}" on stream "${task.stream}".`);
  const before = thread.before(at);
  const made = before.events.findLast(
    (event): event is ModelOutput =>
      ModelOutput.is(event) && event.stream !== task.stream && event.toolCalls.some((call) => call.id === task.callId),
  );
  if (!made)
    throw new ValueError(`No model output before the task on stream "${task.stream}" made its call "${task.callId}".`);
  const graph = await graphOf(made.stream, before);
  for (const node of graph.names) {
    const step = graph.step(node);
    const delegation = isTaskStep(step)
      ? step.delegation({ ...context, stream: made.stream, node, trace: before }, task.callId)
      : null;
    if (delegation) return delegation.graphFor(task);
  }
  throw new GraphError(
    `No step of the graph of stream "${made.stream}" hands off the call "${task.callId}": the task on stream "${task.stream}" has no graph.`,
  );
}

/** The TaskInput of call `callId` on `stream`, if the trace records it. */
export function recordedTask(trace: Trace, stream: string, callId: string): TaskInput | undefined {
  return trace.thread
    .stream(stream)
    .byType(TaskInput)
    .find((task) => task.callId === callId);
}

function delegationOf(step: Step, context: StepContext, key: string): Delegation {
  const delegation = isTaskStep(step) ? step.delegation(context, key) : null;
  if (delegation === null)
    throw new GraphError(
      `Node "${context.node}" planned a task for "${key}", and its step names no delegation for it.`,
    );
  return delegation;
}

function plannedTask(delegation: Delegation, parent: Trace, key: string): TaskInput {
  const task = delegation
    .handOffs(parent)
    .find((event): event is TaskInput => TaskInput.is(event) && event.callId === key);
  if (!task)
    throw new ValueError(
      `The call "${key}" of ${delegation.name} starts no task: its arguments do not fit, or it is not in the latest model output.`,
    );
  return task;
}

// The parts run as plain steps: the observer hears of the task once, when it is handed off.
function work(key: string, name: string, part: string): Work {
  return { key, kind: "step", name, summary: `${name} ${part} (${key})` };
}
