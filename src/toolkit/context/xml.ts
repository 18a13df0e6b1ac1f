/**
 * The xml layout: each element as a tag named by its type, its number as `id`, a Source's cite marker
 * and text, parts nested inside their whole. The model sees numbers, never real ids.
 */
import { type Element, type ElementType, Source } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import type { Numbering } from "../../domain/numbering.js";
import type { CitationStrategy, Show } from "../../runtime/contracts.js";
import { nearestKind } from "./render.js";

/**
 * A setting per element type, applying to its subtypes too: a Map, or an array of [type, value] pairs
 * (which types without a cast when the types differ).
 */
export type ByElementType<V> = Iterable<readonly [ElementType<any, any>, V]>;

type ByType<V> = ReadonlyMap<ElementType<any, any>, V>;

/** The settings of the xml layout. */
export interface XmlOptions {
  /** The attributes of each type it names: path to attribute name, e.g. `{ "properties.modified": "date" }`. Unnamed types show every field and property. */
  fields?: ByElementType<Readonly<Record<string, string>>> | null;
  /** The tag of each type it names, in place of its stored type name. */
  tags?: ByElementType<string> | null;
  /** The path per type that sorts the parts nested in one whole, e.g. "properties.chunkIndex". */
  order?: ByElementType<string> | null;
  /** The attribute that holds a Source's marker, or null for none. Default "cite". */
  cite?: string | null;
}

/** The fields every element has, which the layout shows in its own way (type as tag, id as number, ref by nesting). */
const BASE_FIELDS = new Set(["type", "id", "ref", "properties"]);

/**
 * Make the Show that renders elements as XML. Every field a type adds and every properties key is an
 * attribute, unless `fields` names the type. `id`, the cite attribute and the attribute that names the
 * whole are the element's own: a field of the same name is shown as `data-<name>`.
 * @throws ValueError when a path in `fields` or `order` does not start with a field of its type, or a name is not an XML name.
 */
export function xml(options: XmlOptions = {}): Show {
  const fields = settingMap(options.fields, "fields");
  const tags = settingMap(options.tags, "tags");
  const order = settingMap(options.order, "order");
  const cite = options.cite === undefined ? "cite" : options.cite;
  for (const [type, paths] of fields) {
    for (const [path, name] of Object.entries(paths)) {
      checkPath(type, path, "fields");
      checkName(name, "attribute name");
    }
  }
  for (const tag of tags.values()) checkName(tag, "tag");
  for (const [type, path] of order) checkPath(type, path, "order");
  if (cite !== null) checkName(cite, "cite attribute name");
  const layout = { fields, tags, order, cite };
  return (elements, numbering, _tool, citations) => {
    const context = { ...layout, numbering, citations };
    return nest(elements, (element) => orderValue(order, element))
      .map((node) => render(node, false, context))
      .join("\n");
  };
}

interface RenderContext {
  fields: ByType<Readonly<Record<string, string>>>;
  tags: ByType<string>;
  order: ByType<string>;
  cite: string | null;
  numbering: Numbering;
  citations: CitationStrategy | null;
}

function render(node: Nested, nested: boolean, context: RenderContext): string {
  const { element } = node;
  const tag = tagOf(element, context.tags);
  const attributes = attributesOf(element, nested, context)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join("");
  const text = Source.is(element) && typeof element.text === "string" ? escapeText(element.text) : "";
  const parts = node.parts.map((part) => render(part, true, context));
  if (text === "" && parts.length === 0) return `<${tag}${attributes}/>`;
  const inner = parts.length === 0 ? text : `${text}\n${parts.join("\n")}\n`;
  return `<${tag}${attributes}>${inner}</${tag}>`;
}

function attributesOf(element: Element, nested: boolean, context: RenderContext): [string, string][] {
  const number = numberOf(element.id, context.numbering);
  const own: [string, string][] = [["id", String(number)]];
  if (context.cite !== null && context.citations !== null && Source.is(element))
    own.push([context.cite, context.citations.write(number)]);
  const whole =
    nested || element.ref === null || element.ref === undefined ? undefined : context.numbering.numberOf(element.ref);
  if (whole !== undefined) {
    // A whole that has no number in the thread is not named: its real id is never shown.
    const wholeElement = context.numbering.element(whole);
    own.push([wholeElement === undefined ? "ref" : tagOf(wholeElement, context.tags), String(whole)]);
  }
  const reserved = new Set(["id", ...(context.cite === null ? [] : [context.cite]), ...own.map(([name]) => name)]);
  const used = new Set(own.map(([name]) => name));
  const attributes = own;
  for (const [name, value] of shownFields(element, context.fields)) {
    const text = attributeValue(value);
    const shownName = reserved.has(name) || used.has(name) ? `data-${name}` : name;
    if (text === undefined || used.has(shownName)) continue;
    used.add(shownName);
    attributes.push([shownName, text]);
  }
  return attributes;
}

/** The attributes a type shows besides its own: the paths `fields` lists for it, else every added field and property. */
function shownFields(element: Element, fields: ByType<Readonly<Record<string, string>>>): [string, unknown][] {
  const listed = nearestKind(fields, element);
  if (listed !== undefined) return Object.entries(listed).map(([path, name]) => [name, readPath(element, path)]);
  const own = Object.entries(element).filter(
    ([key]) => !BASE_FIELDS.has(key) && !(key === "text" && Source.is(element)),
  );
  const properties = Object.entries(element.properties ?? {}).map(([key, value]): [string, unknown] => [
    attributeName(key),
    value,
  ]);
  return [...own, ...properties];
}

function tagOf(element: Element, tags: ByType<string>): string {
  return nearestKind(tags, element) ?? element.type;
}

function orderValue(order: ByType<string>, element: Element): OrderValue {
  const path = nearestKind(order, element);
  const value = path === undefined ? undefined : readPath(element, path);
  return typeof value === "number" || typeof value === "string" ? value : undefined;
}

function numberOf(id: string, numbering: Numbering): number {
  const number = numbering.numberOf(id);
  if (number === undefined) {
    throw new ValueError(
      `Element "${id}" has no number in the thread: a Show gets the elements of recorded tool results and inputs only.`,
    );
  }
  return number;
}

function settingMap<V>(setting: ByElementType<V> | null | undefined, name: string): ByType<V> {
  const iterable =
    setting === null ||
    setting === undefined ||
    typeof (setting as Partial<Iterable<unknown>>)[Symbol.iterator] === "function";
  const entries = iterable ? [...(setting ?? [])] : null;
  if (
    entries === null ||
    entries.some((entry) => !Array.isArray(entry) || typeof (entry[0] as Partial<ElementType>)?.is !== "function")
  ) {
    throw new ValueError(
      `${name} must be a Map, or [type, value] pairs, keyed by element types (from sourceType or referenceType).`,
    );
  }
  return new Map(entries);
}

// XML text for the layout: escaping, and names that are safe as tag and attribute names.

const NAME = /^[\p{L}_][\p{L}\p{N}_.-]*$/u;

/** Escape a text so it never reads as a tag: &, < and >. */
export function escapeText(text: string): string {
  // Most texts hold none of the three: a test is cheaper than three replaces.
  if (!TEXT_SPECIAL.test(text)) return text;
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escape an attribute value: &, <, > and both quotes. */
export function escapeAttribute(value: string): string {
  if (!ATTRIBUTE_SPECIAL.test(value)) return value;
  return escapeText(value).replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

const TEXT_SPECIAL = /[&<>]/;
const ATTRIBUTE_SPECIAL = /[&<>"']/;

/** Refuse a configured tag or attribute name that is not a valid XML name. */
export function checkName(name: string, what: string): void {
  if (!NAME.test(name))
    throw new ValueError(
      `The ${what} "${name}" is not a valid XML name (a letter or "_", then letters, digits, "_", "." or "-").`,
    );
}

/** A properties key as an attribute name: characters an XML name cannot hold become "_". */
export function attributeName(key: string): string {
  const name = key.replace(/[^\p{L}\p{N}_.-]/gu, "_");
  return NAME.test(name) ? name : `_${name}`;
}

/** An attribute value as text: strings as they are, other JSON values as JSON; null and undefined as absent. */
export function attributeValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

// The parts of one call's elements nested inside their whole, for the xml layout.

/** One element and the parts nested inside it. */
export interface Nested {
  element: Element;
  parts: Nested[];
}

/** A value that sorts parts: a number or a string; anything else counts as no value. */
export type OrderValue = number | string | undefined;

/**
 * Nest each element inside the element its `ref` names when that whole is in the same call. Roots keep
 * arrival order; the parts of one whole sort by `orderOf` (numbers before strings), and parts without a
 * value follow in arrival order. A cycle of refs is cut at its first element in arrival order.
 */
export function nest(elements: readonly Element[], orderOf: (element: Element) => OrderValue): Nested[] {
  const firstIndex = new Map<string, number>();
  elements.forEach((element, index) => {
    if (!firstIndex.has(element.id)) firstIndex.set(element.id, index);
  });
  const whole = elements.map((element, index) => {
    const found = element.ref === null || element.ref === undefined ? undefined : firstIndex.get(element.ref);
    return found === index ? undefined : found;
  });
  elements.forEach((_, index) => {
    const seen = new Set<number>();
    for (let at = whole[index]; at !== undefined && !seen.has(at); at = whole[at]) {
      if (at === index) {
        whole[index] = undefined;
        break;
      }
      seen.add(at);
    }
  });
  const nodes: Nested[] = elements.map((element) => ({ element, parts: [] }));
  const roots: Nested[] = [];
  nodes.forEach((node, index) => {
    const at = whole[index];
    (at === undefined ? roots : nodes[at]!.parts).push(node);
  });
  for (const node of nodes) node.parts = sorted(node.parts, orderOf);
  return roots;
}

function sorted(parts: Nested[], orderOf: (element: Element) => OrderValue): Nested[] {
  const keyed = parts.map((node) => ({ node, key: orderOf(node.element) }));
  const withValue = keyed.filter((entry) => entry.key !== undefined).sort((a, b) => compare(a.key!, b.key!));
  const without = keyed.filter((entry) => entry.key === undefined);
  return [...withValue, ...without].map((entry) => entry.node);
}

function compare(a: number | string, b: number | string): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a !== typeof b) return typeof a === "number" ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// Dotted paths into an element, such as "title" or "properties.chunkIndex", for the xml layout's settings.

/** Check that a path starts with a field of the element type, so a typo fails when the layout is made. */
export function checkPath(type: ElementType<any, any>, path: string, setting: string): void {
  const first = path.split(".")[0] ?? "";
  const fields = Object.keys(type.schema.shape);
  if (path.split(".").some((part) => part === "") || !fields.includes(first)) {
    throw new ValueError(
      `The ${setting} path "${path}" of element type "${type.name}" does not start with one of its fields (${fields.join(", ")}).`,
    );
  }
}

/** The value at a path of an element, or undefined when a step of the path is missing. */
export function readPath(element: object, path: string): unknown {
  let value: unknown = element;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
