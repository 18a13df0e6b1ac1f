/** The local runner: drives a turn's graph in-process, node by node, each node's work in parallel. */
import type { Trace } from "../../domain/trace.js";
import type { Fragment } from "../../ports/model.js";
import type { Observer } from "../../ports/observer.js";
import { SYSTEM_CLOCK, type Clock } from "../../ports/clock.js";
import type { StepContext } from "../contracts.js";
import { END, type Graph } from "../graph.js";
import { readTrace, recordFailure, runWork, type Recorder } from "./work.js";
import { pendingNode } from "./pending.js";
import { runTask } from "./task.js";
import { CANCELLED, deadlineOf } from "../../domain/requests.js";
import { Failure } from "../../domain/events.js";
import { NoAnswerError } from "../tools/asking.js";
import { expireRequest, recordTurnFailure, waitingRequests } from "./requests.js";

/** Options of one local run of a turn. */
export interface RunOptions {
  /** The agent's name, for observers. */
  agent?: string | null;
  /** The stream the turn runs on. Default "main". */
  stream?: string;
  observer?: Observer;
  /** Receives the model's fragments while they arrive: the LlmStep streams when it is set. */
  onFragment?: (fragment: Fragment) => void;
  signal?: AbortSignal;
  /** Where a waiting request's deadline is checked against. Default SYSTEM_CLOCK. */
  clock?: Clock;
}

/**
 * Run the stream's turn until its graph ends, from wherever the trace says it stands. A unit of work
 * that raises records a Failure and ends the run with that error; running the thread again resumes it.
 * A "task" unit runs through the task protocol (runTask), its stream's turn by this same function. A turn
 * that waits for a person's answer returns (a passed deadline records the default answer, or a Failure);
 * a cancelled turn (the signal aborted) records one CancelledError Failure and raises.
 */
export async function runTurn(recorder: Recorder, graph: Graph, options: RunOptions = {}): Promise<Trace> {
  const base: Omit<StepContext, "trace" | "node"> = {
    threadId: recorder.threadId,
    agent: options.agent ?? null,
    stream: options.stream ?? "main",
    observer: options.observer,
    onFragment: options.onFragment,
    signal: options.signal,
  };
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const trace = await readTrace(recorder.store, recorder.types, recorder.threadId);
      // A turn that waits for a person returns; answering records the Response and runs it again.
      const waiting = waitingRequests(trace, base.stream);
      if (waiting.length > 0) {
        const due = waiting.filter(
          (request) => (deadlineOf(request) ?? Infinity) <= (options.clock ?? SYSTEM_CLOCK).now(),
        );
        if (due.length === 0) return trace;
        for (const request of due) {
          const ended = await expireRequest(recorder, base.stream, request.requestId);
          if (ended !== null && Failure.is(ended)) throw new NoAnswerError(ended.message);
        }
        continue;
      }
      const node = pendingNode(graph, { ...base, trace });
      if (node === END) return trace;
      const step = graph.step(node);
      const work = step.plan({ ...base, trace, node });
      // A task runs its stream's turn in-process; the model's fragments of a task are not the thread's answer.
      const runStreamTurn = (taskGraph: Graph, stream: string) =>
        runTurn(recorder, taskGraph, { ...options, onFragment: undefined, stream });
      // The units run at once; a unit that must append after the ones before it (the step's `ready`) waits
      // until they settled, and a unit's Failure is recorded where its result would have been.
      let before: Promise<unknown> = Promise.resolve();
      const runs = work.map((unit) => {
        const earlier = before;
        const waitReady = async () => (await earlier, readTrace(recorder.store, recorder.types, recorder.threadId));
        const run =
          unit.kind === "task"
            ? runTask(recorder, step, { ...base, node }, unit.key, runStreamTurn)
            : runWork(recorder, step, { ...base, trace, node }, unit, waitReady);
        const settled = run.catch(async (error: unknown) => {
          await earlier;
          if (!options.signal?.aborted) {
            const callId = unit.kind === "tool" || unit.kind === "task" ? unit.key : null;
            await recordFailure(recorder, error, { stream: base.stream, node, callId });
          }
          throw error;
        });
        // No unit waits for a task (as on Temporal): a task's result lands when the task ends.
        if (unit.kind !== "task") before = settled.catch(() => undefined);
        return settled;
      });
      const results = await Promise.allSettled(runs);
      options.signal?.throwIfAborted();
      const failed = results.find((result) => result.status === "rejected");
      if (failed) throw failed.reason;
      // A task that waits for a person: the turn waits with it (the thread's requests list the task's).
      if (results.some((result) => result.status === "fulfilled" && result.value === null))
        return readTrace(recorder.store, recorder.types, recorder.threadId);
    }
  } catch (error) {
    // A cancelled turn records why it stopped, once, as the Temporal runner does.
    if (options.signal?.aborted) await recordTurnFailure(recorder, base.stream, CANCELLED);
    throw error;
  }
}
