/**
 * Numbering: one short number per element for the whole thread, in order of first appearance, never
 * renumbered. The model writes numbers; the framework maps them back to real ids.
 */
import { Element, Source } from "./elements.js";
import { Input, ToolOutput, type Event } from "./events.js";
import type { GrowingIndex } from "./trace.js";

/** The numbers of a thread's elements: number 1 is the first element that appeared. */
export class Numbering {
  private readonly byNumber: Element[] = [];
  private readonly numbers = new Map<string, number>();
  // The number last looked up, and how far the last lookup that missed its neighbours went from the one before: a
  // build asks for the elements of a result in order, for a part's whole right after the part, and for one
  // element of each result in turn, so the next answer is most often next to the last or one such step on. It is
  // found without a lookup in a table as large as the thread (which at tens of thousands of elements misses the
  // processor's caches).
  private near = 0;
  private step = 0;

  /** Number the elements of the events, in order. Pass every event of the thread, all streams. */
  constructor(events: readonly Event[] = []) {
    this.append(events);
  }

  /** Number the elements of events that follow those numbered so far; the numbers given already never change. */
  append(events: readonly Event[]): void {
    // Indexed loops: a builder reads a thread one event at a time, and an iterator is an object each time.
    for (let index = 0; index < events.length; index += 1) {
      const elements = elementsOf(events[index]!);
      for (let at = 0; at < elements.length; at += 1) this.add(elements[at]!);
    }
  }

  /** The number of an element id, or undefined for an id no event showed. */
  numberOf(id: string): number | undefined {
    const near = this.near;
    // Ids are unique in byNumber: the element at a number with this id is the one first recorded under it.
    for (let number = near + 1; number >= near - 1 && number > 0; number -= 1)
      if (this.byNumber[number - 1]?.id === id) return (this.near = number);
    if (this.step > 1 && this.byNumber[near + this.step - 1]?.id === id) return (this.near = near + this.step);
    const number = this.numbers.get(id);
    if (number !== undefined) {
      this.step = number - near;
      this.near = number;
    }
    return number;
  }

  /** The element first recorded under a number, or undefined. */
  element(number: number): Element | undefined {
    return this.byNumber[number - 1];
  }

  /** The count of numbered elements. */
  get size(): number {
    return this.byNumber.length;
  }

  /** The real id that a cited number names: a Source the model read, or null (a Reference, or nothing). */
  source(number: number): string | null {
    const element = this.element(number);
    return element && Source.is(element) ? element.id : null;
  }

  private add(element: Element): void {
    if (this.numbers.has(element.id)) return;
    this.byNumber.push(element);
    this.numbers.set(element.id, this.byNumber.length);
  }
}

/** The elements an event shows: a tool result's elements, or the elements an input's payload holds. */
export function elementsOf(event: Event): Element[] {
  if (ToolOutput.is(event)) return event.elements;
  if (Input.is(event)) return findElements(event.payload, []);
  return [];
}

// Depth first, each object's own values in key order, into one list: most payloads hold no element.
function findElements(value: unknown, found: Element[]): Element[] {
  if (value === null || typeof value !== "object") return found;
  if (Array.isArray(value)) for (const item of value) findElements(item, found);
  else if (Element.is(value) && typeof (value as { id?: unknown }).id === "string") found.push(value as Element);
  else for (const key of Object.keys(value)) findElements((value as Record<string, unknown>)[key], found);
  return found;
}

/** The thread's element numbers as an index a Trace keeps and grows: `trace.thread.index(THREAD_NUMBERING)`. */
export const THREAD_NUMBERING: GrowingIndex<Numbering> = {
  make: () => new Numbering(),
  append: (numbering, events) => numbering.append(events),
};
