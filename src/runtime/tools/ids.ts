/**
 * Arguments that hold ids: ElementId(Type) for an element's number, ResultHandle() for a result's handle.
 * The model writes the short form (5, r3); the LlmStep records the real id or call id (arguments.ts), so
 * the tool gets real ids and a recorded call reads without the tool's code. Result handles themselves:
 * r1, r2, ... name a thread's tool results in the order they were recorded (resultHandles).
 */
import { z } from "zod";
import type { ElementType } from "../../domain/elements.js";
import { ToolOutput, type Event } from "../../domain/events.js";
import type { GrowingIndex } from "../../domain/trace.js";

/** What an id argument holds, as its schema's metadata. */
export type IdTarget = { kind: "element"; type: ElementType<any, any> } | { kind: "result" };

// The registry keeps its metadata through describe() and meta(), which clone the schema with a parent link.
const targets = z.registry<IdTarget>();

/**
 * A string argument that holds the number of an element of `type` (subtypes included). The JSON schema
 * says string ("5"); a model that writes the integer 5 is accepted too. The tool gets the element's real id.
 */
export function ElementId(type: ElementType<any, any>): z.ZodString {
  return z
    .string()
    .register(targets, { kind: "element", type })
    .describe(`The number of ${article(type.name)} ${type.name}.`);
}

/** A string argument that holds the handle of a tool result, such as "r3". The tool gets the result's call id. */
export function ResultHandle(): z.ZodString {
  return z.string().register(targets, { kind: "result" }).describe("The handle of a result, such as r3.");
}

/** One id argument of a tool: what it holds, and whether it is a list of them. */
export interface IdArgument {
  target: IdTarget;
  list: boolean;
}

/** The id arguments of a tool's arguments schema, by argument name. Wrappers (optional, default, ...) are seen through. */
export function idArguments(args: z.ZodObject<any>): Map<string, IdArgument> {
  const found = new Map<string, IdArgument>();
  for (const [name, schema] of Object.entries(args.shape as Record<string, z.ZodType>)) {
    const argument = idArgument(schema, false);
    if (argument) found.set(name, argument);
  }
  return found;
}

function idArgument(schema: z.ZodType, list: boolean): IdArgument | undefined {
  const target = idTarget(schema);
  if (target) return { target, list };
  const definition = schema._zod.def as {
    type: string;
    innerType?: z.ZodType;
    element?: z.ZodType;
    options?: z.ZodType[];
  };
  if (definition.type === "array" && definition.element && !list) return idArgument(definition.element, true);
  if (definition.innerType) return idArgument(definition.innerType, list);
  // A union with null is an optional id, as nullable() is.
  const others =
    definition.type === "union" ? (definition.options ?? []).filter((option) => option._zod.def.type !== "null") : [];
  if (others.length === 1 && others.length < (definition.options ?? []).length) return idArgument(others[0]!, list);
  return undefined;
}

/** What an id schema (ElementId or ResultHandle) holds, or undefined for any other schema. */
export function idTarget(schema: z.ZodType): IdTarget | undefined {
  return targets.get(schema) as IdTarget | undefined;
}

/** The article of a type name in a sentence: "an" before a vowel, else "a". */
export function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

/** The handle of each result's call id, and the call id of each handle, for a thread's events (all streams). */
export interface Handles {
  /** The handle of a call id's result, such as "r3", or undefined. */
  handleOf(callId: string): string | undefined;
  /** The call id of a handle, or undefined for a handle that names no result. */
  callIdOf(handle: string): string | undefined;
}

/** The handles of a thread's results, numbered as events are appended: r1 is the first ToolOutput with a call id. */
export class ResultHandles implements Handles {
  // The number of each call id's handle, and the call id and the handle of r<n> at n - 1: handles are numbered in order.
  private readonly numbers = new Map<string, number>();
  private readonly callIds: string[] = [];
  private readonly handles: string[] = [];
  // The number of the handle last answered: a build asks for the results of a thread in order, so the next answer
  // is most often the one after it, found without a lookup in a table as large as the thread (Numbering's `near`).
  private near = 0;

  /** Number the results of a thread's events (all streams), in log order. */
  constructor(events: readonly Event[] = []) {
    this.append(events);
  }

  /** Number the results of events that follow those read so far; the handles given already never change. */
  append(events: readonly Event[]): void {
    // Indexed: a builder reads a thread one event at a time, and an iterator is an object each time.
    for (let index = 0; index < events.length; index += 1) {
      const event = events[index]!;
      if (!ToolOutput.is(event) || event.callId === null || this.numbers.has(event.callId)) continue;
      const number = this.callIds.push(event.callId);
      this.handles.push(`r${number}`);
      this.numbers.set(event.callId, number);
    }
  }

  /** The handle of a call id's result, such as "r3", or undefined. */
  handleOf(callId: string): string | undefined {
    // Call ids are unique in callIds: the next one's, then the last answer's.
    const near = this.near;
    for (let at = near; at >= near - 1 && at >= 0; at -= 1)
      if (this.callIds[at] === callId) {
        this.near = at + 1;
        return this.handles[at];
      }
    const number = this.numbers.get(callId);
    if (number === undefined) return undefined;
    this.near = number;
    return this.handles[number - 1];
  }

  /** The call id of a handle, or undefined for a handle that names no result. */
  callIdOf(handle: string): string | undefined {
    const number = handleNumber(handle);
    return number === 0 ? undefined : this.callIds[number - 1];
  }
}

/** The number of a handle as handleOf writes it ("r" and the number, without leading zeros or signs), or 0. */
export function handleNumber(handle: string): number {
  // By character codes, making no strings: a layout reads the number of each result it lays out.
  const length = handle.length;
  if (length < 2 || length > 16 || handle.charCodeAt(0) !== 114 || handle.charCodeAt(1) === 48) return 0;
  let number = 0;
  for (let index = 1; index < length; index += 1) {
    const digit = handle.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return 0;
    number = number * 10 + digit;
  }
  return number;
}

/** Number the results of a thread's events: r1 is the first ToolOutput with a call id. */
export function resultHandles(events: readonly Event[]): Handles {
  return new ResultHandles(events);
}

/** The thread's result handles as an index a Trace keeps and grows: `trace.thread.index(THREAD_HANDLES)`. */
export const THREAD_HANDLES: GrowingIndex<ResultHandles> = {
  make: () => new ResultHandles(),
  append: (handles, events) => handles.append(events),
};
