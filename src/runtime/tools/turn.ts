/**
 * Readers of a running turn around one tool call. A call sees the results of earlier model outputs only,
 * never those of its siblings (the other calls of its own model output): siblings run concurrently, so
 * which of their results is recorded first is timing, and a call must not depend on it.
 */
import { ModelOutput, ToolOutput, type Event, type ToolCall } from "../../domain/events.js";
import type { Element, ElementType } from "../../domain/elements.js";

/** The model output of the turn that made a call, or undefined. */
function outputOfCall(turn: readonly Event[], callId: string): ModelOutput | undefined {
  return turn.findLast(
    (event): event is ModelOutput => ModelOutput.is(event) && event.toolCalls.some((call) => call.id === callId),
  );
}

/**
 * The calls of the turn made before a call: every call of earlier model outputs, then the earlier calls of
 * its own output, in call order. For a call the turn does not hold, every call of the turn.
 */
export function callsBefore(turn: readonly Event[], callId: string): ToolCall[] {
  const own = outputOfCall(turn, callId);
  const calls: ToolCall[] = [];
  for (const event of turn) {
    if (!ModelOutput.is(event)) continue;
    if (event === own) {
      calls.push(
        ...event.toolCalls.slice(
          0,
          event.toolCalls.findIndex((call) => call.id === callId),
        ),
      );
      break;
    }
    calls.push(...event.toolCalls);
  }
  return calls;
}

/** The results of the turn that a call may read: all but those of the calls of its own model output. */
export function settledResults(turn: readonly Event[], callId: string): ToolOutput[] {
  const siblings = new Set(outputOfCall(turn, callId)?.toolCalls.map((call) => call.id) ?? [callId]);
  return turn.filter(
    (event): event is ToolOutput => ToolOutput.is(event) && (event.callId === null || !siblings.has(event.callId)),
  );
}

/** The elements of a type (subtypes included) that the turn recorded before a call, in order, each id once. */
export function turnElements<T extends Element>(
  turn: readonly Event[],
  callId: string,
  type: ElementType<T, any>,
): T[] {
  const found = new Map<string, T>();
  for (const result of settledResults(turn, callId)) {
    for (const element of result.elements)
      if (type.is(element) && !found.has(element.id)) found.set(element.id, element);
  }
  return [...found.values()];
}
