/**
 * recordInput: record the turn's Input exactly once, at the stream length openTurn read. A retried
 * attempt finds its Input there (the stream moved, and the event at that seq is this input) and skips.
 */
import { Context } from "@temporalio/activity";
import { Input } from "../src/domain/events.js";
import { canonicalJson } from "../src/domain/json.js";
import { StreamMovedError } from "../src/ports/errors.js";
import { accepted } from "../src/runtime/agent.js";
import { checkGraph } from "../src/runtime/check.js";
import { append } from "../src/runtime/runner/work.js";
import type { RecordedInput, RecordInputArgument } from "../src/temporal/contract.js";
import { ThreadMovedError } from "../src/temporal/errors.js";
import { reported } from "./failures.js";
import { graphOf, recorderOf, traceOf, type TurnAccess } from "./turn-access.js";

/** Record the turn's input at seq `argument.seq` of its stream, unless an earlier attempt did. */
export async function recordInput(access: TurnAccess, argument: RecordInputArgument): Promise<RecordedInput> {
  return reported(async () => {
    const { catalog } = access;
    const input = Input({ payload: argument.input.payload, model: argument.input.model, stream: argument.stream });
    accepted(catalog.agent(argument.agent).input, input);
    const event = catalog.opening(argument.agent, input);
    const trace = await traceOf(access, argument);
    const stream = trace.stream(argument.stream);
    if (stream.length === argument.seq) {
      // Build the turn's graph first: a config that refuses the input (no model, an unbound tool) fails before any write.
      checkGraph(
        await graphOf(
          access,
          argument,
          trace.with([{ position: trace.position + 1, event: { ...event, seq: stream.length } }]),
        ),
      );
      try {
        const [stored] = await append(recorderOf(access, argument), [event], trace, argument.stream);
        return { seq: stored!.seq!, skipped: false };
      } catch (error) {
        if (!StreamMovedError.isInstance(error)) throw error;
      }
    }
    const again = (await traceOf(access, argument)).stream(argument.stream);
    const found = again.events[argument.seq];
    if (found && Input.is(found) && sameInput(found, event)) return { seq: argument.seq, skipped: true };
    throw new ThreadMovedError(
      `Another writer recorded events on stream "${argument.stream}" of thread "${argument.threadId}" where this turn's input belonged (seq ${argument.seq}). ` +
        "Run each thread's turns through one runner; start the turn again.",
    );
  }, Context.current().cancellationSignal);
}

function sameInput(found: Input, event: Input): boolean {
  return (
    found.origin === event.origin &&
    found.model === event.model &&
    canonicalJson(found.payload) === canonicalJson(event.payload)
  );
}
