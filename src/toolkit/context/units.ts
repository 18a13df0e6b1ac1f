/** Units: the turns, rounds or results of a stream's events, which context management counts the age of results in. */
import { ModelOutput, ToolOutput, type Event } from "../../domain/events.js";
import { turnStarts } from "../../domain/trace.js";

/**
 * What context management counts the age of results in. A turn starts at a fresh input, a round at a model
 * output that calls tools, and a result is one result.
 */
export type Unit = "turns" | "rounds" | "results";

/** One unit of a stream: the index of its first event, and the call ids of its results in recorded order. */
export interface UnitSpan {
  start: number;
  results: string[];
}

/** The units of a stream's events, oldest first, the current one last. Events before the first of each unit belong to none. */
export function unitsOf(events: readonly Event[], unit: Unit): UnitSpan[] {
  if (unit === "results") {
    return events.flatMap((event, index) =>
      ToolOutput.is(event) && event.callId !== null ? [{ start: index, results: [event.callId] }] : [],
    );
  }
  if (unit === "turns") {
    const starts = turnStarts(events);
    return starts.map((start, at) => ({ start, results: resultsIn(events, start, starts[at + 1] ?? events.length) }));
  }
  const rounds: UnitSpan[] = [];
  const roundOf = new Map<string, UnitSpan>();
  events.forEach((event, index) => {
    if (ModelOutput.is(event) && event.toolCalls.length > 0) {
      const round: UnitSpan = { start: index, results: [] };
      rounds.push(round);
      for (const call of event.toolCalls) roundOf.set(call.id, round);
    } else if (ToolOutput.is(event) && event.callId !== null) {
      roundOf.get(event.callId)?.results.push(event.callId);
    }
  });
  return rounds;
}

function resultsIn(events: readonly Event[], from: number, to: number): string[] {
  const found: string[] = [];
  for (let index = from; index < to; index += 1) {
    const event = events[index]!;
    if (ToolOutput.is(event) && event.callId !== null) found.push(event.callId);
  }
  return found;
}
