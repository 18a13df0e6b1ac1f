/**
 * What model calls used, summed from the trace alone (a pure function, like the context): per call, per turn (the
 * events from a main-stream Input to the next, the turn's delegated tasks included) and per thread.
 */
import { Input, MAIN, ModelOutput, TaskInput, type Event, type Usage } from "./events.js";

/** The tokens of some model calls, summed. */
export interface UsageTotals {
  /** The model calls counted. */
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** The part of promptTokens read from a prompt cache, as far as the providers reported it. */
  cachedTokens: number;
  /** The part of completionTokens spent on reasoning, as far as the providers reported it. */
  reasoningTokens: number;
  /** promptTokens + completionTokens. */
  totalTokens: number;
  /** How many of the calls had no usage from their provider, so that theirs is an estimate. */
  estimatedCalls: number;
}

/** The totals of no call. */
export const NO_USAGE: UsageTotals = Object.freeze({
  calls: 0,
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
  estimatedCalls: 0,
});

/** Characters per token of the estimate, where a provider reported no usage: the framework's default ratio. */
const CHARACTERS_PER_TOKEN = 4;

/**
 * A call's usage: what its provider reported, else an estimate from the characters of its request and its output,
 * marked `estimated`.
 */
export function usageOfCall(output: ModelOutput): Usage {
  if (output.usage !== null) return output.usage;
  const written = output.content.length + (output.reasoning?.length ?? 0) + JSON.stringify(output.toolCalls).length;
  return {
    promptTokens: Math.ceil((output.promptCharacters ?? 0) / CHARACTERS_PER_TOKEN),
    completionTokens: Math.ceil(written / CHARACTERS_PER_TOKEN),
    estimated: true,
  };
}

/** The usage of the model outputs among `events`, summed. */
export function usageOf(events: readonly Event[]): UsageTotals {
  let totals = { ...NO_USAGE };
  for (const event of events) if (ModelOutput.is(event)) totals = added(totals, usageOfCall(event));
  return totals;
}

/** `totals` with one call's usage added. */
export function added(totals: UsageTotals, usage: Usage): UsageTotals {
  return {
    calls: totals.calls + 1,
    promptTokens: totals.promptTokens + usage.promptTokens,
    completionTokens: totals.completionTokens + usage.completionTokens,
    cachedTokens: totals.cachedTokens + (usage.cachedTokens ?? 0),
    reasoningTokens: totals.reasoningTokens + (usage.reasoningTokens ?? 0),
    totalTokens: totals.totalTokens + usage.promptTokens + usage.completionTokens,
    estimatedCalls: totals.estimatedCalls + (usage.estimated ? 1 : 0),
  };
}

/** Whether an event opens a turn of the thread: an Input on the main stream (a task's input opens no turn). */
export function opensTurn(event: Event): boolean {
  return event.stream === MAIN && Input.is(event) && !TaskInput.is(event);
}

/** The thread's events split into its turns, in order; events before the first input belong to none. */
export function eventsByTurn(events: readonly Event[]): Event[][] {
  const turns: Event[][] = [];
  for (const event of events) {
    if (opensTurn(event)) turns.push([event]);
    else turns.at(-1)?.push(event);
  }
  return turns;
}

/** The usage of each turn of the thread, in order. */
export function usageByTurn(events: readonly Event[]): UsageTotals[] {
  return eventsByTurn(events).map(usageOf);
}
