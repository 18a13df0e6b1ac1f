/** Agent: what a catalog runs. It parses a turn's input and builds the turn's graph. */
import type { z } from "zod";
import { Element, type ElementType } from "../domain/elements.js";
import type { EventType, Input } from "../domain/events.js";
import type { Graph } from "./graph.js";
import { InputDeniedError } from "./errors.js";
import { isInputElement } from "./input-element.js";

/** An agent: its input type, the element and event types its threads record, and the graph of each turn. */
export interface Agent<R = any, T = any> {
  /** The schema that each fresh input's payload parses into. */
  readonly input: z.ZodType<T>;
  /** The element types its tools record beyond the core ones. */
  readonly elementTypes: readonly ElementType<any, any>[];
  /** The event types it records beyond the core ones. */
  readonly eventTypes: readonly EventType<any, any>[];
  /** Build the graph of one turn from the thread's resources, the parsed input and the input's model. */
  build(resources: R, turn: T, model: string | null): Graph | Promise<Graph>;
}

/** Parse an input's payload into an agent's input type, strictly. Returns the input and the parsed turn. */
export function accepted<T>(type: z.ZodType<T>, input: Input): [Input, T] {
  const result = type.safeParse(input.payload);
  if (result.success) {
    checkDeclaredElements(input.payload, result.data);
    return [input, result.data];
  }
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".") || "(payload)";
  throw new InputDeniedError(`The input does not fit the agent's input type at "${field}": ${issue.message}`, {
    details: { field, issues: result.error.issues },
  });
}

/**
 * Refuse an element of the payload unless the parsed turn holds it at the same place, with the same id,
 * parsed by an InputElement: elements are numbered from the recorded payload, so an extra field that a
 * loose input type drops, or a plain object field with an `id`, would otherwise give a forged element
 * (any id, any text) a number the model can cite and pass to tools.
 */
function checkDeclaredElements(payload: unknown, turn: unknown): void {
  for (const [path, element] of payloadElements(payload, [])) {
    const parsed = path.reduce<unknown>(
      (value, key) =>
        value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined,
      turn,
    );
    const id = isInputElement(parsed) ? (parsed as { id?: unknown }).id : undefined;
    if (id !== element.id) {
      const field = path.join(".") || "(payload)";
      throw new InputDeniedError(
        `The input holds an element ("${element.type}" "${element.id}") at "${field}", a field that the agent's input type does not declare as an element: ` +
          "an input brings elements only in fields its type parses with InputElement. Remove it, or declare the field as InputElement(<its element type>).",
        { details: { field } },
      );
    }
  }
}

// The elements of a payload and where each is, as the numbering finds them (elementsOf).
function payloadElements(value: unknown, path: string[]): [string[], Element][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => payloadElements(item, [...path, String(index)]));
  if (value === null || typeof value !== "object") return [];
  if (Element.is(value) && typeof (value as { id?: unknown }).id === "string") return [[path, value]];
  return Object.entries(value).flatMap(([key, item]) => payloadElements(item, [...path, key]));
}
