/**
 * callModel, callTool and runStep: one unit of a node's work as one activity. The unit runs through runWork, the
 * local runner's code: it reads the trace, skips what is recorded, runs, and appends with `expected`, so
 * a retried or zombie attempt appends nothing twice. Then it says what comes next from the trace it
 * appended to (no planning activity between units) and, where the turn's graph ended, closes the turn.
 * The attempt heartbeats while the call runs, so a dead worker's attempt is retried on another worker
 * after the heartbeat timeout.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Context } from "@temporalio/activity";
import { ApplicationFailure } from "@temporalio/common";
import { Failure, Input, MAIN, ModelOutput } from "../src/domain/events.js";
import { turnEvents } from "../src/domain/trace.js";
import { LeaseExpiredError, TransientError } from "../src/ports/errors.js";
import { ValueError } from "../src/domain/errors.js";
import { observedRun, recordFailure, runWork } from "../src/runtime/runner/work.js";
import type { Fragment } from "../src/ports/model.js";
import type { StepContext } from "../src/runtime/contracts.js";
import type { PlannedWork, TurnResult, WorkArgument, WorkDone, WorkUnit } from "../src/temporal/contract.js";
import type { Trace } from "../src/domain/trace.js";
import { turnSummary } from "./close-turn.js";
import { isRetryable, reported } from "./failures.js";
import {
  contextOf,
  graphOf,
  plannedWork,
  recorderOf,
  renewalDue,
  renewIfDue,
  renewLease,
  storeLease,
  traceOf,
  type TurnAccess,
} from "./turn-access.js";

/**
 * The longest gap between two heartbeats, in milliseconds, whatever the heartbeat timeout: a cancelled turn's
 * call learns of it from a heartbeat's answer, so this bounds how long a cancelled model stream goes on.
 */
const MOST_BETWEEN_HEARTBEATS = 500;

/** Run one unit of work of `kind` as the activity that the workflow scheduled. */
export async function callUnit(access: TurnAccess, argument: WorkArgument, kind: WorkUnit["kind"]): Promise<WorkDone> {
  const activity = Context.current();
  const signal = activity.cancellationSignal;
  return reported(async () => {
    const { unit, node } = argument;
    if (unit.kind !== kind)
      throw new ValueError(
        `The ${kind} activity got a ${unit.kind} unit (${unit.summary}); the workflow schedules each kind on its own activity.`,
      );
    const renewal = { at: await renewIfDue(access, argument.lease) };
    const stop = keepAlive(activity, access, argument, renewal);
    let result;
    try {
      const trace = await traceOf(access, argument);
      const graph = await graphOf(access, argument, trace);
      const step = graph.step(node);
      const heartbeat = () => activity.heartbeat();
      const onFragment = kind === "model" ? liveFragments(access, argument, activity.info.attempt) : undefined;
      const context = { ...contextOf(access, argument), node, signal, heartbeat };
      recordedFailure(trace, argument);
      const run = () =>
        runWork(
          recorderOf(access, argument),
          step,
          { ...context, trace, ...(onFragment ? { onFragment } : {}) },
          unit,
          laterThanEarlierUnits(
            access,
            argument,
            (current) => step.ready?.({ ...context, trace: current }, unit.key) ?? true,
          ),
        ).catch((error: unknown) => recordedIfLast(access, argument, activity, error));
      // On Temporal a run of the thread is one activity: the observer's run context wraps each unit.
      const opening = trace.stream(MAIN).byType(Input).at(-1) ?? null;
      result = await observedRun(access.observer, { threadId: argument.threadId, agent: argument.agent, opening }, run);
    } finally {
      stop();
    }
    const output = result.recorded.find((event): event is ModelOutput => ModelOutput.is(event));
    const after = await traceOf(access, argument);
    const next = await plannedWork(access, argument, after);
    return {
      skipped: result.skipped,
      seqs: result.recorded.map((event) => event.seq ?? -1),
      toolCalls: output?.toolCalls.length ?? 0,
      next,
      renewedAt: renewal.at,
      result: await closedTurn(access, argument, next, after),
    };
  }, signal);
}

/** The longest pause between two reads of a unit that waits for the units before it to be recorded. */
const MOST_BETWEEN_READS = 500;

/**
 * How a unit whose step orders its units (the tool calls of one model output) waits for the earlier ones:
 * it reads the thread again, at growing intervals, until they are recorded, heartbeating meanwhile (keepAlive
 * runs around it). The tool has run; only its append waits. A cancelled attempt stops waiting.
 */
function laterThanEarlierUnits(
  access: TurnAccess,
  argument: WorkArgument,
  ready: (trace: Trace) => boolean,
): (trace: Trace) => Promise<Trace> {
  const signal = Context.current().cancellationSignal;
  return async () => {
    for (let pause = 20; ; pause = Math.min(pause * 2, MOST_BETWEEN_READS)) {
      await sleep(pause, undefined, { signal });
      // A read that fails for a while (a connection lost) is read again: the tool's result is not lost with it.
      const trace = await traceOf(access, argument).catch((error: unknown) => {
        if (TransientError.isInstance(error)) return null;
        throw error;
      });
      if (trace !== null && ready(trace)) return trace;
    }
  };
}

/**
 * A tool call whose last attempt fails records its Failure itself, where its result would have been, so
 * the later calls that wait for it to be recorded go on; the workflow's failTurn then finds the turn's
 * Failure and records no second one. A failure that Temporal retries records nothing.
 */
async function recordedIfLast(
  access: TurnAccess,
  argument: WorkArgument,
  activity: Context,
  error: unknown,
): Promise<never> {
  const { unit } = argument;
  const attempts = activity.info.retryPolicy?.maximumAttempts ?? 0;
  const last = !isRetryable(error) || (attempts > 0 && activity.info.attempt >= attempts);
  if (unit.kind !== "tool" || !last || activity.cancellationSignal.aborted) throw error;
  const failure = Object.assign(new Error(error instanceof Error ? error.message : String(error)), {
    name: error instanceof Error ? error.name : "Error",
    retryable: isRetryable(error),
  });
  try {
    const trace = await traceOf(access, argument);
    if (failureOf(trace, argument) === undefined)
      await recordFailure(recorderOf(access, argument), failure, {
        stream: argument.stream,
        node: argument.node,
        callId: unit.key,
      });
  } catch (recording) {
    // A lease that another runner took: the turn is no longer this workflow's to write.
    if (!LeaseExpiredError.isInstance(recording)) throw recording;
  }
  throw error;
}

/** The Failure recorded for the tool call of `argument` since the model output that made it, if any. */
function failureOf(trace: Trace, argument: WorkArgument): Failure | undefined {
  const events = turnEvents(trace.stream(argument.stream).events);
  const since = events.slice(events.findLastIndex((event) => ModelOutput.is(event)) + 1);
  return since.find((event): event is Failure => Failure.is(event) && event.callId === argument.unit.key);
}

/**
 * Refuse, as its last attempt did, a tool call whose Failure is recorded: an attempt that recorded it and
 * died before it reported is retried, and must not run the call again.
 */
function recordedFailure(trace: Trace, argument: WorkArgument): void {
  const failure = argument.unit.kind === "tool" ? failureOf(trace, argument) : undefined;
  if (failure) throw ApplicationFailure.create({ type: failure.error, message: failure.message, nonRetryable: true });
}

/**
 * The model call's fragments onto the live channel, marked with the attempt, so a follower drops the text
 * of an attempt that a retry replaced. A channel that fails loses fragments, never the call.
 */
function liveFragments(access: TurnAccess, argument: WorkArgument, attempt: number): StepContext["onFragment"] {
  const live = access.live;
  if (!live) return undefined;
  let index = 0;
  let warned = false;
  return async (fragment: Fragment) => {
    const text = typeof fragment === "string" ? fragment : fragment.text;
    const kind = typeof fragment === "string" ? "text" : "reasoning";
    const { threadId, stream, node, unit } = argument;
    try {
      await live.publish({ threadId, stream, node, key: unit.key, attempt, index: index++, kind, text });
    } catch (error) {
      if (!warned)
        console.warn(`soev-agents: the live channel lost a fragment of thread "${threadId}": ${String(error)}`);
      warned = true;
    }
  };
}

/**
 * Close the turn when a unit on the turn's own stream finds its graph ended: give the lease up and
 * summarise, so the workflow needs no closing activity. Null on a task's stream or while work remains.
 */
export async function closedTurn(
  access: TurnAccess,
  argument: WorkArgument,
  next: PlannedWork,
  trace: Trace,
): Promise<TurnResult | null> {
  // A turn that waits for a person is not over: its lease stays and the workflow waits.
  if (next.node !== null || (next.waiting?.length ?? 0) > 0 || argument.inputSeq == null) return null;
  await access.catalog.store.release(storeLease(argument.lease));
  return turnSummary({ ...argument, inputSeq: argument.inputSeq }, trace, access.catalog.prices);
}

/**
 * Heartbeat while the call runs (Temporal sends at most one per throttle interval), and renew the
 * turn's lease once a third of its time has passed. Returns the function that stops both.
 */
function keepAlive(
  activity: Context,
  access: TurnAccess,
  argument: WorkArgument,
  renewal: { at: number | null },
): () => void {
  const timeout = activity.info.heartbeatTimeoutMs;
  // Often enough for both: a heartbeat within the heartbeat timeout, a renewal well within a short lease.
  const leaseMs = access.catalog.leaseSeconds * 1000;
  const every = Math.max(
    100,
    Math.min(MOST_BETWEEN_HEARTBEATS, leaseMs / 6, timeout ? timeout / 3 : MOST_BETWEEN_HEARTBEATS),
  );
  activity.heartbeat();
  const timer = setInterval(() => {
    activity.heartbeat();
    const renewed = renewal.at ?? argument.lease.renewedAt ?? 0;
    if (!renewalDue(access, renewed)) return;
    const now = Date.now();
    // A failed renewal is not the call's failure: the append with the lease is what fences.
    renewLease(access, argument.lease).then(
      () => (renewal.at = now),
      () => undefined,
    );
  }, every);
  return () => clearInterval(timer);
}
