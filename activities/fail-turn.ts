/**
 * failTurn: record why the turn (or a task's run on its stream) stopped, once, and give the thread's lease up. A turn that failed before
 * its input was recorded records nothing; a lease that another runner replaced records nothing either.
 */
import { Context } from "@temporalio/activity";
import { Failure } from "../src/domain/events.js";
import { usageOf } from "../src/domain/usage.js";
import { LeaseExpiredError } from "../src/ports/errors.js";
import { recordFailure } from "../src/runtime/runner/work.js";
import type { FailedTurn, FailTurnArgument } from "../src/temporal/contract.js";
import { reported } from "./failures.js";
import { recorderOf, storeLease, traceOf, type TurnAccess } from "./turn-access.js";

/** Record the turn's Failure unless the turn holds one already, then release the lease. */
export async function failTurn(access: TurnAccess, argument: FailTurnArgument): Promise<FailedTurn> {
  return reported(async () => {
    try {
      if (argument.inputSeq === null) return { seq: null };
      const trace = await traceOf(access, argument);
      // A turn that failed spent too: a runaway one most of all.
      const threadTokens = usageOf(trace.thread.events).totalTokens;
      const stream = trace.stream(argument.stream);
      if (stream.events.slice(argument.inputSeq).some((event) => Failure.is(event))) return { seq: null, threadTokens };
      const { failure } = argument;
      const error = Object.assign(new Error(failure.message), { name: failure.error, retryable: failure.retryable });
      try {
        const recorded = await recordFailure(recorderOf(access, argument), error, {
          stream: argument.stream,
          node: failure.node,
          callId: failure.callId,
        });
        return { seq: recorded.seq, threadTokens };
      } catch (cause) {
        // Another runner took the thread: the turn is no longer this workflow's to write.
        if (LeaseExpiredError.isInstance(cause)) return { seq: null };
        throw cause;
      }
    } finally {
      if (argument.release !== false) await access.catalog.store.release(storeLease(argument.lease));
    }
  }, Context.current().cancellationSignal);
}
