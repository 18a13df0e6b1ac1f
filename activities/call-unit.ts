/**
 * callModel, callTool and runStep: one unit of a node's work as one activity. The unit runs through runWork, the
 * local runner's code: it reads the trace, skips what is recorded, runs, and appends with `expected`, so
 * a retried or zombie attempt appends nothing twice. The attempt heartbeats while the call runs, so a
 * dead worker's attempt is retried on another worker after the heartbeat timeout.
 */
import { Context } from "@temporalio/activity";
import { Input, MAIN, ModelOutput } from "../src/domain/events.js";
import { ValueError } from "../src/domain/errors.js";
import { runWork } from "../src/runtime/runner/work.js";
import type { WorkArgument, WorkDone, WorkUnit } from "../src/temporal/contract.js";
import { reported } from "./failures.js";
import { contextOf, graphOf, LEASE_SECONDS, recorderOf, renewLease, traceOf, type TurnAccess } from "./turn-access.js";

/** The longest gap between two heartbeats, in milliseconds, whatever the heartbeat timeout. */
const MOST_BETWEEN_HEARTBEATS = 5_000;

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
    await renewLease(access, argument.lease);
    const stop = keepAlive(activity, access, argument);
    try {
      const trace = await traceOf(access, argument);
      const graph = await graphOf(access, argument, trace);
      const step = graph.step(node);
      const heartbeat = () => activity.heartbeat();
      const run = () =>
        runWork(
          recorderOf(access, argument),
          step,
          { ...contextOf(access, argument), trace, node, signal, heartbeat },
          unit,
        );
      // On Temporal a run of the thread is one activity: the observer's run context wraps each unit.
      const opening = trace.stream(MAIN).byType(Input).at(-1) ?? null;
      const result = access.observer?.run
        ? await access.observer.run(argument.threadId, argument.agent, opening, run)
        : await run();
      const output = result.recorded.find((event): event is ModelOutput => ModelOutput.is(event));
      return {
        skipped: result.skipped,
        seqs: result.recorded.map((event) => event.seq ?? -1),
        toolCalls: output?.toolCalls.length ?? 0,
      };
    } finally {
      stop();
    }
  }, signal);
}

/**
 * Heartbeat while the call runs (Temporal sends at most one per throttle interval), and renew the
 * turn's lease now and then. Returns the function that stops both.
 */
function keepAlive(activity: Context, access: TurnAccess, argument: WorkArgument): () => void {
  const timeout = activity.info.heartbeatTimeoutMs;
  const every = Math.min(MOST_BETWEEN_HEARTBEATS, timeout ? Math.max(100, timeout / 3) : MOST_BETWEEN_HEARTBEATS);
  let renewed = Date.now();
  activity.heartbeat();
  const timer = setInterval(() => {
    activity.heartbeat();
    if (Date.now() - renewed < (LEASE_SECONDS * 1000) / 3) return;
    renewed = Date.now();
    // A failed renewal is not the call's failure: the append with the lease is what fences.
    renewLease(access, argument.lease).catch(() => undefined);
  }, every);
  return () => clearInterval(timer);
}
