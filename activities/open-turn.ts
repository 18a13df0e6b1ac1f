/**
 * openTurn: check that the agent exists and that the thread is the agent's, take the thread's lease,
 * record the turn's Input exactly once, and say what comes first. One activity, so a turn starts in one
 * round trip.
 *
 * Exactly once: the lease's owner names the workflow run and the seq where its Input goes
 * (`<owner>#<seq>`). Only the lease holder writes, so a retried attempt that finds its run's lease finds
 * its Input at that seq, or the stream still ends there. (A retry that comes after the lease expired,
 * the catalog's leaseSeconds, takes a new one: keep controlSeconds and the retry backoff well below it.)
 * The input is admitted (AgentCatalog.admit, as the local runner does) before the lease is taken: a
 * refused input writes nothing, not even a lease.
 */
import { Context } from "@temporalio/activity";
import { Input } from "../src/domain/events.js";
import { canonicalJson } from "../src/domain/json.js";
import type { Trace } from "../src/domain/trace.js";
import { StreamMovedError } from "../src/ports/errors.js";
import type { Lease } from "../src/ports/store.js";
import type { AgentCatalog } from "../src/runtime/catalog.js";
import { UnknownThreadError } from "../src/runtime/errors.js";
import { append } from "../src/runtime/runner/work.js";
import type { OpenedTurn, OpenTurnArgument } from "../src/temporal/contract.js";
import { ThreadAgentError, ThreadMovedError } from "../src/temporal/errors.js";
import { checkAuthorized } from "../src/temporal/authorize.js";
import { reported } from "./failures.js";
import { plannedWork, recorderOf, traceOf, type TurnAccess } from "./turn-access.js";

/** How often the open takes the lease again when a writer without it moved the stream in between. */
const OPEN_TRIES = 3;

/** Open a turn of a thread (a thread with no events is a new thread of the agent) and record its input. */
export async function openTurn(access: TurnAccess, argument: OpenTurnArgument): Promise<OpenedTurn> {
  return reported(async () => {
    const { catalog } = access;
    // Authorization first: a refused turn reads and writes nothing.
    await checkAuthorized(access.authorize, {
      principal: argument.principal ?? null,
      agent: argument.agent,
      threadId: argument.threadId,
    });
    const input = Input({
      payload: argument.input.payload,
      model: argument.input.model,
      principal: argument.principal ?? null,
      stream: argument.stream,
    });
    const event = catalog.opening(argument.agent, input);
    let trace = await traceOf(access, argument);
    if (trace.length > 0) {
      const owner = ownerOf(catalog, argument.threadId, trace);
      if (owner !== argument.agent) {
        throw new ThreadAgentError(
          `Thread "${argument.threadId}" belongs to agent "${owner}", not "${argument.agent}": start its turns with agent "${owner}".`,
        );
      }
    }
    // Size, input type, the config's graph, the window: a refused input writes nothing.
    await catalog.admit(argument.agent, input, { threadId: argument.threadId, trace });
    const taken = await takeLease(access, argument, trace);
    const { lease, seq } = taken;
    trace = taken.trace;
    let skipped = true;
    if (trace.stream(argument.stream).length === seq) {
      try {
        await append(recorderOf(access, { ...argument, lease }), [event], trace, argument.stream);
        skipped = false;
      } catch (error) {
        if (!StreamMovedError.isInstance(error)) throw error;
      }
      trace = await traceOf(access, argument);
    }
    const found = trace.stream(argument.stream).events[seq];
    if (!(found && Input.is(found) && sameInput(found, event))) {
      // This turn never runs: give its lease up, so the thread's next turn does not wait for it to expire.
      await catalog.store.release(lease);
      throw new ThreadMovedError(
        `Another writer recorded events on stream "${argument.stream}" of thread "${argument.threadId}" where this turn's input belonged (seq ${seq}). ` +
          "Run each thread's turns through one runner; start the turn again.",
      );
    }
    return {
      lease: { threadId: lease.threadId, owner: lease.owner, counter: lease.counter, renewedAt: Date.now() },
      inputSeq: seq,
      skipped,
      next: await plannedWork(access, argument, trace),
    };
  }, Context.current().cancellationSignal);
}

/**
 * The run's lease and the seq of its Input: the lease an earlier attempt of the run took, or a new one
 * named for the stream's length. A writer without the lease that moves the stream between the read and
 * the acquisition makes it take the lease again for the new length.
 */
async function takeLease(
  access: TurnAccess,
  argument: OpenTurnArgument,
  read: Trace,
): Promise<{ lease: Lease; seq: number; trace: Trace }> {
  const { store } = access.catalog;
  const prefix = `${argument.owner}#`;
  const held = await store.lease(argument.threadId);
  if (held?.owner.startsWith(prefix)) {
    const seq = Number(held.owner.slice(prefix.length));
    if (Number.isInteger(seq) && seq >= 0) return { lease: held, seq, trace: read };
  }
  let trace = read;
  for (let tries = 1; ; tries++) {
    const seq = trace.stream(argument.stream).length;
    const lease = await store.acquire(argument.threadId, {
      owner: `${prefix}${seq}`,
      ttl: access.catalog.leaseSeconds,
    });
    trace = await traceOf(access, argument);
    if (trace.stream(argument.stream).length === seq || tries >= OPEN_TRIES) return { lease, seq, trace };
    await store.release(lease);
  }
}

/**
 * The agent a thread was opened with, as AgentCatalog.agentOf says, from the trace just read: the origin of
 * its first input that names one of the catalog's agents (the first event, mostly), with no read of its own.
 */
function ownerOf(catalog: AgentCatalog, threadId: string, trace: Trace): string {
  const names = new Set(catalog.names);
  const opening = trace.thread.events.find((event) => event.type === "input" && names.has(event.origin ?? ""));
  if (opening?.origin) return opening.origin;
  throw new UnknownThreadError(`No thread "${threadId}" of this catalog's agents is in the store.`);
}

function sameInput(found: Input, event: Input): boolean {
  return (
    found.origin === event.origin &&
    found.model === event.model &&
    found.principal === event.principal &&
    canonicalJson(found.payload) === canonicalJson(event.payload)
  );
}
