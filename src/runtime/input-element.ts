/**
 * InputElement: the field of an input type that holds an element. An input brings elements only in such
 * fields: elements are numbered from the recorded payload, so a plain field (a loose object with an `id`)
 * would otherwise let the sender forge an element, any id with any text, that the model cites and tools get.
 */
import { z } from "zod";
import type { Element, ElementType } from "../domain/elements.js";

/** The mark an InputElement puts on what it parsed; a payload parsed from JSON cannot carry a symbol. */
const DECLARED_ELEMENT = Symbol("soev-agents.input-element");

/**
 * A zod field of an input type that holds an element of `type` (or of a type that extends it), as recorded:
 * `{ type: "passage", id, text, ... }`. Elements in the payload are accepted only where the input type
 * parses them with an InputElement.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { sourceType } from "soev-agents/domain";
 * import { InputElement } from "soev-agents/runtime";
 *
 * const Passage = sourceType("passage");
 * export const AskAbout = z.strictObject({ text: z.string(), attached: z.array(InputElement(Passage)).default([]) });
 * ```
 */
export function InputElement<T extends Element>(type: ElementType<T, any>): z.ZodType<T> {
  return type.schema
    .extend({
      type: z.string().refine((name) => type.names.has(name), `must name ${type.name} or a type that extends it`),
    })
    .transform((element) => {
      Object.defineProperty(element, DECLARED_ELEMENT, { value: type.name });
      return element as unknown as T;
    });
}

/** Whether an InputElement parsed `value`: the parsed turn holds a declared element there. */
export function isInputElement(value: unknown): boolean {
  return typeof value === "object" && value !== null && DECLARED_ELEMENT in value;
}
