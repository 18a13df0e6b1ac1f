/**
 * Elements: the things a tool shows the model and the model can name again. A Source is content the
 * model read and can cite; a Reference is a thing named but not read, and is never citable.
 */
import { z } from "zod";
import { callableKind, declareKind, type Kind } from "./kinds.js";
import type { JsonValue } from "./json.js";

/** The fields every element has. */
export interface ElementFields {
  /** The real id, from the application. The model never sees it: it sees the element's number. */
  id: string;
  /** The id of the whole this element is part of (a passage's document), or null. */
  ref?: string | null;
  /** Free-form properties, shown to the model as attributes. */
  properties?: Record<string, JsonValue>;
}

/** An element as recorded: its stored type name and its fields. */
export interface Element extends ElementFields {
  type: string;
  [field: string]: unknown;
}

/** A Source: content the model read, which it can cite. */
export interface Source extends Element {
  text: string;
}

/** A Reference: a thing the model can name, such as a document, but not cite. */
export type Reference = Element;

/** An element type: call it with fields to make an element; `is` tests an element, subtypes included. */
export interface ElementType<T extends Element = Element, F = ElementFields> extends Kind<T> {
  (fields: F): T;
  /** Whether elements of this type are Sources (citable). */
  readonly citable: boolean;
}

const elementShape = {
  id: z.string().min(1),
  ref: z.string().nullable().optional(),
  properties: z.record(z.string(), z.json()).optional(),
};

function elementType<T extends Element, F>(
  name: string,
  schema: z.ZodObject<any>,
  parent: ElementType<any, any> | undefined,
  citable: boolean,
): ElementType<T, F> {
  const make = (fields: F) => ({ type: name, ...schema.parse(fields) }) as T;
  return callableKind(declareKind<T>(name, schema, parent), make, { citable });
}

/** The root of every element type. */
export const Element: ElementType<Element> = elementType("element", z.object(elementShape), undefined, false);

/** Content that the model read; it can cite it. */
export const Source: ElementType<Source, ElementFields & { text: string }> = elementType(
  "source",
  z.object({ ...elementShape, text: z.string() }),
  Element,
  true,
);

/** A thing the model can name, such as a document, but not cite. */
export const Reference: ElementType<Reference> = elementType("reference", z.object(elementShape), Element, false);

// No added fields adds nothing: zod infers Record<string, never> for {}, which would refuse every field.
type Extra<S extends z.ZodRawShape> = keyof S extends never ? unknown : z.infer<z.ZodObject<S>>;

type ElementOf<P> = P extends ElementType<infer T, any> ? T : never;
type FieldsOf<P> = P extends ElementType<any, infer F> ? F : never;
type NoFields = Record<never, never>;

/**
 * Declare a Source type of your own, such as a passage. Its stored and shown type name is `name`
 * (kebab case); `fields` are the zod fields it adds to its parent's (Source, or a Source type of yours),
 * each shown to the model as an attribute.
 */
export function sourceType<S extends z.ZodRawShape = NoFields, P extends ElementType<Source, any> = typeof Source>(
  name: string,
  fields: S = {} as S,
  parent: P = Source as unknown as P,
): ElementType<ElementOf<P> & Extra<S>, FieldsOf<P> & Extra<S>> {
  return elementType(name, parent.schema.extend(fields), parent, true);
}

/** Declare a Reference type of your own, such as a document, with the zod `fields` it adds to its parent's. */
export function referenceType<
  S extends z.ZodRawShape = NoFields,
  P extends ElementType<Reference, any> = typeof Reference,
>(
  name: string,
  fields: S = {} as S,
  parent: P = Reference as unknown as P,
): ElementType<ElementOf<P> & Extra<S>, FieldsOf<P> & Extra<S>> {
  return elementType(name, parent.schema.extend(fields), parent, false);
}
