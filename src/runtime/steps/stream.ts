/** Small readers of a step's stream that every step shares. */
import type { Event } from "../../domain/events.js";
import { turnStarts, type Trace } from "../../domain/trace.js";
import type { StepContext } from "../contracts.js";

/** The trace of the step's stream; its `thread` is the whole thread. */
export function streamTrace(context: StepContext): Trace {
  return context.trace.stream(context.stream);
}

/** The events of the running turn: from the last input that started a turn, that input first. */
export function turnEvents(events: readonly Event[]): readonly Event[] {
  return events.slice(turnStarts(events).at(-1) ?? 0);
}
