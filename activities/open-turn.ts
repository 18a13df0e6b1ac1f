/**
 * openTurn: check that the agent exists and that the thread is the agent's, take the thread's lease for
 * the turn, and read the stream's length: the Input of this turn goes there (its key, "an input by its turn").
 */
import { Context } from "@temporalio/activity";
import type { OpenedTurn, OpenTurnArgument } from "../src/temporal/contract.js";
import { ThreadAgentError } from "../src/temporal/errors.js";
import { reported } from "./failures.js";
import { LEASE_SECONDS, traceOf, type TurnAccess } from "./turn-access.js";

/** Open a turn of a thread; a thread with no events is a new thread of the agent. */
export async function openTurn(access: TurnAccess, argument: OpenTurnArgument): Promise<OpenedTurn> {
  return reported(async () => {
    const { catalog } = access;
    catalog.agent(argument.agent);
    const before = await traceOf(access, argument);
    if (before.length > 0) {
      const owner = await catalog.agentOf(argument.threadId);
      if (owner !== argument.agent) {
        throw new ThreadAgentError(
          `Thread "${argument.threadId}" belongs to agent "${owner}", not "${argument.agent}": start its turns with agent "${owner}".`,
        );
      }
    }
    // The owner is the workflow run: a retried attempt keeps the lease an earlier attempt took, rather
    // than acquire again and fence it.
    const held = await catalog.store.lease(argument.threadId);
    const lease =
      held?.owner === argument.owner
        ? held
        : await catalog.store.acquire(argument.threadId, { owner: argument.owner, ttl: LEASE_SECONDS });
    const trace = await traceOf(access, argument);
    return {
      lease: { threadId: lease.threadId, owner: lease.owner, counter: lease.counter },
      streamLength: trace.stream(argument.stream).length,
    };
  }, Context.current().cancellationSignal);
}
