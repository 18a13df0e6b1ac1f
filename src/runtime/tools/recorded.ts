/**
 * Recorded values: the elements of one type that the running turn recorded, which the runtime gives a
 * tool before each call. A tool keeps no state, so "what did the model already see" comes from the trace.
 */
import type { Element, ElementType } from "../../domain/elements.js";
import type { Event } from "../../domain/events.js";
import { turnElements } from "./turn.js";

/** The declaration of a Recorded value: `recorded: { seen: Recorded(Passage) }`. Hidden from the model. */
export interface Recorded<T extends Element> {
  readonly kind: "recorded";
  /** The element type to collect; its subtypes are collected too. */
  readonly type: ElementType<T, any>;
}

/**
 * Declare a value that the runtime fills before each call with the elements of `type` (subtypes
 * included) that the running turn recorded, in order, each id once. In a test, give a plain array.
 */
export function Recorded<T extends Element>(type: ElementType<T, any>): Recorded<T> {
  return Object.freeze({ kind: "recorded" as const, type });
}

/** Whether a value is a Recorded declaration. */
export function isRecorded(value: unknown): value is Recorded<Element> {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "recorded";
}

/** The values that Recorded declarations stand for: a list of elements each. */
export type RecordedValues<R> = { [K in keyof R]: R[K] extends Recorded<infer T> ? readonly T[] : never };

/** The value of each Recorded declaration for one call of the running turn. */
export function recordedValues(
  declarations: Readonly<Record<string, Recorded<Element>>>,
  turn: readonly Event[],
  callId: string,
): Record<string, Element[]> {
  return Object.fromEntries(
    Object.entries(declarations).map(([name, declaration]) => [name, turnElements(turn, callId, declaration.type)]),
  );
}
