/** only: the usual selection of events for MessageBuilder.select. */
import { ValueError } from "../../domain/errors.js";
import type { Event, EventType } from "../../domain/events.js";
import type { Trace } from "../../domain/trace.js";

/**
 * A selection of the events of `types`, subtypes included, in the order of the trace, such as
 * `only(Input, ModelOutput, ToolOutput)`. Element numbers stay the thread's: a selection never renumbers.
 * @throws ValueError when no type is given.
 */
export function only(...types: EventType<any, any>[]): (trace: Trace) => Event[] {
  if (types.length === 0)
    throw new ValueError("only() needs at least one event type, such as only(Input, ModelOutput, ToolOutput).");
  return (trace) => trace.events.filter((event) => types.some((type) => type.is(event)));
}
