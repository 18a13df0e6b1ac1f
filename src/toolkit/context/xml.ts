/**
 * The xml layout: each element as a tag named by its type, its number as `id`, a Source's cite marker
 * and text, parts nested inside their whole. The model sees numbers, never real ids.
 */
import { type Element, type ElementType, Source } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import type { Numbering } from "../../domain/numbering.js";
import type { CitationStrategy, Show } from "../../runtime/contracts.js";
import { withoutText } from "./forms.js";
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

/**
 * Whether a field is one every element has, which the layout shows in its own way (type as tag, id as number, ref
 * by nesting).
 */
function baseField(key: string): boolean {
  // Compared, not looked up in a Set: a cold build reads every field of every element it measures.
  return key === "type" || key === "id" || key === "ref" || key === "properties";
}

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
  // Without an order setting, parts keep arrival order: nothing is sorted.
  const names = attributeNames();
  const attributes = new AttributeList();
  const orderOf = order.size === 0 ? null : (element: Element) => orderValue(order, element);
  // Elements are immutable: each one's tag, attributes and escaped text are made once for a thread's numbering.
  const byNumbering = new WeakMap<Numbering, Pick<RenderContext, "made" | "byNumber" | "lengths">>();
  // The context of the last citation strategy a numbering was shown with: a build shows all with one.
  const contexts = new WeakMap<Numbering, RenderContext>();
  const contextOf = (numbering: Numbering, citations: CitationStrategy | null): RenderContext => {
    let context = contexts.get(numbering);
    if (context === undefined || context.citations !== citations) {
      let made = byNumbering.get(numbering);
      if (made === undefined)
        byNumbering.set(numbering, (made = { made: new Map(), byNumber: [], lengths: new MeasuredLengths() }));
      context = { fields, tags, order, cite, numbering, citations, attributeName: names, attributes, ...made };
      contexts.set(numbering, context);
    }
    return context;
  };
  // A result's few elements are nested each time they are measured or shown: keeping the nesting costs more.
  const shownWith: RenderShow = (elements, numbering, _tool, citations, textless) => {
    const roots = nest(elements, orderOf);
    const context = contextOf(numbering, citations);
    // Where nothing nests, each element is a root in its place: no nodes are made.
    const count = roots === null ? elements.length : roots.length;
    let shown = "";
    for (let index = 0; index < count; index += 1) {
      const root = roots === null ? undefined : roots[index]!;
      const made =
        root === undefined
          ? render(elements[index]!, index, NO_PARTS, false, context, textless)
          : render(root.element, root.index, root.parts, false, context, textless);
      shown = index === 0 ? made : `${shown}\n${made}`;
    }
    return shown;
  };
  // The Show itself: its callers pass no textless flags, the context builder does (renderOf).
  const show: Show = shownWith;
  // The length alone is summed from the same kept pieces, so a context is measured without making its text.
  const layout: XmlLayout = {
    measure: (elements, numbering, _tool, citations, textless) =>
      measure(elements, contextOf(numbering, citations), textless),
    render: shownWith,
  };
  Object.defineProperty(show, XML_LAYOUT, { value: layout });
  return show;
}

/**
 * A Show's arguments and `textless`: an element whose place in it is true counts as `withoutText` leaves it
 * (dropText), without being copied.
 */
type TextlessShow<R> = (
  elements: readonly Element[],
  numbering: Numbering,
  tool: string | null,
  citations: CitationStrategy | null,
  textless?: readonly boolean[],
) => R;

/** The length of the text a Show makes of elements, found without making the text. */
export type MeasureShow = TextlessShow<number>;

/** The text a Show makes of elements. */
export type RenderShow = TextlessShow<string>;

/** What a Show that xml() made carries besides itself: its measure, and itself with textless elements. */
interface XmlLayout {
  measure: MeasureShow;
  render: RenderShow;
}

// The key under which a Show that xml() made carries its XmlLayout.
const XML_LAYOUT = Symbol("xmlLayout");

function layoutOf(show: Show): XmlLayout | undefined {
  return (show as Show & { [XML_LAYOUT]?: XmlLayout })[XML_LAYOUT];
}

/** The function that measures what `show` makes, when xml() made it; undefined for any other Show. */
export function measureOf(show: Show): MeasureShow | undefined {
  return layoutOf(show)?.measure;
}

/** `show` with textless elements (RenderShow), when xml() made it; undefined for any other Show. */
export function renderOf(show: Show): RenderShow | undefined {
  return layoutOf(show)?.render;
}

interface RenderContext {
  fields: ByType<Readonly<Record<string, string>>>;
  tags: ByType<string>;
  order: ByType<string>;
  cite: string | null;
  numbering: Numbering;
  citations: CitationStrategy | null;
  /** A properties key's attribute name, kept by the layout. */
  attributeName: (key: string) => string;
  /** The list each opening's attributes are found into, written over by the next. */
  attributes: AttributeList;
  /** The pieces of each element first recorded under its number, by number (1 at 0). */
  byNumber: (ElementPieces | undefined)[];
  /** The pieces of any other element (a copy that differs from the recorded element in more than its text). */
  made: Map<Element, ElementPieces>;
  /** The lengths of the pieces of each element first recorded under its number, where only measured. */
  lengths: MeasuredLengths;
}

/**
 * The lengths a measure reads of each element first recorded under its number: its escaped text, its opening as
 * a root and as a part, and its tag, four to a number in one list (-1 until found). Most elements are measured to
 * plan and never shown: a record of their pieces for each would be most of what a cold build keeps.
 */
class MeasuredLengths {
  /** The strategy the openings were measured with: their cite markers depend on it. */
  private citations: CitationStrategy | null | undefined;
  table = new Int32Array(0);

  /** Where the lengths of `number` start in `table`, for openings with `citations`. */
  at(number: number, citations: CitationStrategy | null): number {
    if (citations !== this.citations) {
      this.citations = citations;
      this.table.fill(-1);
    }
    const at = (number - 1) * 4;
    if (at + 4 > this.table.length) {
      const grown = new Int32Array(Math.max(at + 4, this.table.length * 2)).fill(-1);
      grown.set(this.table);
      this.table = grown;
    }
    return at;
  }
}

/** What an opening reads of an element besides its fields: its number, and whether it is a Source. */
type Numbered = Pick<ElementPieces, "number" | "source">;

/** What an element renders to with one citation strategy: its number, tag, opening as a root and as a part, text. */
interface ElementPieces {
  citations: CitationStrategy | null;
  number: number;
  /** Whether the element is a Source: its opening holds a cite marker, and its text follows it. */
  source: boolean;
  tag: string;
  text: string;
  root: string | undefined;
  part: string | undefined;
  /** The lengths of the openings, where they were measured and not made; -1 until then. */
  rootLength: number;
  partLength: number;
}

// The pieces of an element with one citation strategy, made once: the element first recorded under a number
// keeps them by that number. A Source that a Shorten copied with another text (dropText, a cap) shares the
// tag and openings of the element first recorded under its id.
function piecesOf(element: Element, context: RenderContext): ElementPieces {
  const number = numberOf(element.id, context.numbering);
  const recorded = context.numbering.element(number);
  let made = recorded === element ? context.byNumber[number - 1] : context.made.get(element);
  if (made === undefined || made.citations !== context.citations) {
    const source = Source.is(element);
    const text = source && typeof element.text === "string" ? escapeText(element.text) : "";
    const shared = source && recorded !== element ? recordedPieces(element, recorded!, number, context) : undefined;
    if (shared !== undefined)
      // A copy is measured once or twice: its pieces are found again rather than kept beside the recorded element's.
      return { ...shared, text };
    // The openings are made when first asked.
    made = {
      citations: context.citations,
      number,
      source,
      tag: tagOf(element, context.tags),
      text,
      root: undefined,
      part: undefined,
      rootLength: -1,
      partLength: -1,
    };
    if (recorded === element) context.byNumber[number - 1] = made;
    else context.made.set(element, made);
  }
  return made;
}

// The pieces of `recorded`, the element first recorded under the number of `element`, when the two differ in
// their text alone (the same fields, each the same value): the opening of a Source leaves its text out.
function recordedPieces(
  element: Element,
  recorded: Element,
  number: number,
  context: RenderContext,
): ElementPieces | undefined {
  // A path the fields setting lists may read the text into an attribute.
  if (nearestKind(context.fields, element) !== undefined) return undefined;
  const made = context.byNumber[number - 1];
  if (made === undefined || made.citations !== context.citations) return undefined;
  // The same keys (each of the element's in the recorded one, as many of them), each the same value but the text.
  let keys = 0;
  for (const key in element) {
    keys += 1;
    if (key === "text") continue;
    if (!Object.hasOwn(recorded, key) || (element as never)[key] !== (recorded as never)[key]) return undefined;
  }
  for (const _key in recorded) keys -= 1;
  return keys === 0 ? made : undefined;
}

// An element's opening as a root or as a part, made once.
function openingFor(element: Element, made: ElementPieces, nested: boolean, context: RenderContext): string {
  let opening = nested ? made.part : made.root;
  if (opening === undefined) {
    opening = openingOf(element, made, nested, context);
    if (nested) made.part = opening;
    else if (kept(element, context)) made.root = opening;
  }
  return opening;
}

// The length of an element's opening as a root or as a part, found once, from the opening where it is made.
function openingLength(element: Element, made: ElementPieces, nested: boolean, context: RenderContext): number {
  const opening = nested ? made.part : made.root;
  if (opening !== undefined) return opening.length;
  let length = nested ? made.partLength : made.rootLength;
  if (length < 0) {
    length = openingLengthOf(element, made, nested, context);
    if (nested) made.partLength = length;
    else if (kept(element, context)) made.rootLength = length;
  }
  return length;
}

// Whether an element's opening as a root holds: a whole with no number yet may have one once more events are
// numbered, and then the opening is made again.
function kept(element: Element, context: RenderContext): boolean {
  return element.ref === null || element.ref === undefined || context.numbering.numberOf(element.ref) !== undefined;
}

// An element and its parts: its opening, its text, each part on a line of its own, its closing tag. The pieces
// are joined by +, which shares them (a passage's text is not copied).
function render(
  recorded: Element,
  index: number,
  parts: readonly Nested[],
  nested: boolean,
  context: RenderContext,
  textless: readonly boolean[] | undefined,
): string {
  const dropped = textless?.[index] === true && Source.is(recorded);
  const element = dropped ? textlessElement(recorded, context) : recorded;
  const made = piecesOf(element, context);
  const opening = openingFor(element, made, nested, context);
  const text = dropped ? "" : made.text;
  const tag = made.tag;
  if (parts.length === 0) return text === "" ? `<${opening}/>` : `<${opening}>${text}</${tag}>`;
  let inner = text;
  for (const part of parts) inner += `\n${render(part.element, part.index, part.parts, true, context, textless)}`;
  return `<${opening}>${inner}\n</${tag}>`;
}

// The element a Source shown without its text (dropText's) opens as: itself, since its opening leaves the text out,
// unless the fields setting may read the text into an attribute; then the copy withoutText makes.
function textlessElement(source: Element, context: RenderContext): Element {
  return nearestKind(context.fields, source) === undefined ? source : withoutText(source);
}

// The length of what show makes of elements, from the pieces render writes ("<", the opening, ">", the text,
// and so on), without nesting them: each element adds its own pieces, a part a newline before it, each root
// but the first a newline. The order of parts changes no length, so it is not read.
function measure(elements: readonly Element[], context: RenderContext, textless?: readonly boolean[]): number {
  const wholes = wholesOf(elements);
  const nested = wholes !== null;
  // Which elements have parts: searched in place among a few elements, flagged once among many.
  const parted = nested && elements.length > 16 ? partedOf(wholes) : undefined;
  let length = elements.length === 0 ? 0 : -1;
  const { numbering, lengths } = context;
  for (let index = 0; index < elements.length; index += 1) {
    const dropped = textless?.[index] === true && Source.is(elements[index]!);
    const element = dropped ? textlessElement(elements[index]!, context) : elements[index]!;
    const part = nested && wholes[index]! >= 0;
    let opening: number;
    let text: number;
    let tag: number;
    const number = numberOf(element.id, numbering);
    if (numbering.element(number) === element) {
      // The element first recorded under its number: its lengths are kept by number, no record of its pieces.
      const at = lengths.at(number, context.citations);
      const table = lengths.table;
      const source = Source.is(element);
      if (table[at]! < 0) {
        table[at] = source && typeof element.text === "string" ? escapedLength(element.text) : 0;
        table[at + 3] = tagOf(element, context.tags).length;
      }
      text = dropped ? 0 : table[at]!;
      tag = table[at + 3]!;
      opening = table[at + (part ? 2 : 1)]!;
      if (opening < 0) {
        opening = openingLengthOf(element, { number, source }, part, context);
        if (part || kept(element, context)) table[at + (part ? 2 : 1)] = opening;
      }
    } else {
      const made = piecesOf(element, context);
      opening = openingLength(element, made, part, context);
      tag = made.tag.length;
      text = dropped ? 0 : made.text.length;
    }
    // An element with parts closes on a line of its own.
    if (nested && (parted === undefined ? wholes.includes(index) : parted[index])) length += opening + text + tag + 7;
    else length += text === 0 ? opening + 4 : opening + text + tag + 6;
  }
  return length;
}

// Whether each element is the whole of another.
function partedOf(wholes: readonly number[]): boolean[] {
  const parted = new Array<boolean>(wholes.length).fill(false);
  for (const at of wholes) if (at >= 0) parted[at] = true;
  return parted;
}

/**
 * An element's tag and attributes: its number as `id`, a Source's marker, the whole it is part of (when it
 * is not nested inside it), then each field `fields` shows, or every added field and property. `id`, the
 * cite attribute and the whole's are the element's own: a field of the same name shows as `data-<name>`.
 */
function openingOf(element: Element, made: ElementPieces, nested: boolean, context: RenderContext): string {
  return attributesOf(element, made, nested, context).opening(made.tag);
}

/** The length of openingOf's opening, found without making it: most openings are measured to plan and never sent. */
function openingLengthOf(element: Element, made: Numbered, nested: boolean, context: RenderContext): number {
  const { names, values, count } = attributesOf(element, made, nested, context);
  let length = tagOf(element, context.tags).length;
  for (let index = 0; index < count; index += 1) length += names[index]!.length + values[index]!.length + 4;
  return length;
}

/**
 * The attributes of one opening: each name and its escaped value. One list per layout and numbering, written
 * over by each opening: a list per element was most of what a cold build allocated (13 of 68 MB at 10,000 events).
 */
class AttributeList {
  readonly names: string[] = [];
  readonly values: string[] = [];
  count = 0;
  private readonly pieces: string[] = [];

  /** Add an attribute, unless its value is absent or its name used already (then it shows as data-<name>). */
  add(name: string, value: unknown, cite: string | null): void {
    const text = attributeValue(value);
    const shownName = name === "id" || name === cite || this.has(name) ? `data-${name}` : name;
    if (text === undefined || this.has(shownName)) return;
    this.set(shownName, escapeAttribute(text));
  }

  /** Add an attribute whose name is free and whose value is escaped. */
  set(name: string, value: string): void {
    this.names[this.count] = name;
    this.values[this.count] = value;
    this.count += 1;
  }

  /**
   * The opening with this tag, joined once into one flat string: the opening is kept as long as its thread, and
   * a string grown by += is a tree of its pieces.
   */
  opening(tag: string): string {
    // Written over, not emptied: an emptied array gives its storage back and grows again.
    const pieces = this.pieces;
    let placed = 0;
    pieces[placed++] = tag;
    for (let index = 0; index < this.count; index += 1) {
      pieces[placed++] = " ";
      pieces[placed++] = this.names[index]!;
      pieces[placed++] = '="';
      pieces[placed++] = this.values[index]!;
      pieces[placed++] = '"';
    }
    pieces.length = placed;
    return pieces.join("");
  }

  /** Whether an attribute found so far has this name. */
  has(name: string): boolean {
    for (let index = 0; index < this.count; index += 1) if (this.names[index] === name) return true;
    return false;
  }
}

// The attributes of an element's opening, in order (see openingOf), into the context's list. The names reserved
// for the element's own attributes are "id", the cite attribute and those used so far.
function attributesOf(
  element: Element,
  { number, source }: Numbered,
  nested: boolean,
  context: RenderContext,
): AttributeList {
  const attributes = context.attributes;
  attributes.count = 0;
  // A number needs no escaping.
  attributes.set("id", String(number));
  const cite = context.cite !== null && context.citations !== null && source ? context.cite : undefined;
  if (cite !== undefined) attributes.set(cite, escapeAttribute(context.citations!.write(number)));
  const whole =
    nested || element.ref === null || element.ref === undefined ? undefined : context.numbering.numberOf(element.ref);
  if (whole !== undefined) {
    // A whole that has no number in the thread is not named: its real id is never shown.
    const wholeElement = context.numbering.element(whole);
    attributes.set(wholeElement === undefined ? "ref" : tagOf(wholeElement, context.tags), String(whole));
  }
  const listed = nearestKind(context.fields, element);
  if (listed !== undefined) {
    for (const path of Object.keys(listed)) attributes.add(listed[path]!, readPath(element, path), context.cite);
    return attributes;
  }
  // for-in reads the keys in the order Object.keys gives them, without making a list for each element.
  for (const key in element) {
    if (!Object.hasOwn(element, key) || baseField(key) || (key === "text" && source)) continue;
    attributes.add(key, (element as unknown as Record<string, unknown>)[key], context.cite);
  }
  const properties: Record<string, unknown> | null | undefined = element.properties;
  if (properties !== null && properties !== undefined)
    for (const key of Object.keys(properties))
      attributes.add(context.attributeName(key), properties[key], context.cite);
  return attributes;
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
  // Most texts hold none of the three: then the text itself is the answer.
  if (text.indexOf("&") < 0 && text.indexOf("<") < 0 && text.indexOf(">") < 0) return text;
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The length of escapeText(text), found without making it. */
function escapedLength(text: string): number {
  if (text.indexOf("&") < 0 && text.indexOf("<") < 0 && text.indexOf(">") < 0) return text.length;
  let length = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // &amp; for &, &lt; and &gt; for < and >.
    if (code === 38) length += 4;
    else if (code === 60 || code === 62) length += 3;
  }
  return length;
}

/** Escape an attribute value: &, <, > and both quotes. */
export function escapeAttribute(value: string): string {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    // &, ', ", < and >.
    if (code === 38 || code === 39 || code === 34 || code === 60 || code === 62)
      return escapeText(value).replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  return value;
}

/** Refuse a configured tag or attribute name that is not a valid XML name. */
export function checkName(name: string, what: string): void {
  if (!NAME.test(name))
    throw new ValueError(
      `The ${what} "${name}" is not a valid XML name (a letter or "_", then letters, digits, "_", "." or "-").`,
    );
}

/** A properties key as an attribute name: characters an XML name cannot hold become "_". */
export function attributeName(key: string): string {
  const replaced = key.replace(/[^\p{L}\p{N}_.-]/gu, "_");
  return NAME.test(replaced) ? replaced : `_${replaced}`;
}

/** How many properties keys a layout keeps the attribute names of. */
const KEPT_ATTRIBUTE_NAMES = 10_000;

/** attributeName, each key's name made once while fewer than KEPT_ATTRIBUTE_NAMES are kept: elements of a type share their keys. */
function attributeNames(): (key: string) => string {
  const names = new Map<string, string>();
  return (key) => {
    let name = names.get(key);
    if (name === undefined) {
      name = attributeName(key);
      if (names.size < KEPT_ATTRIBUTE_NAMES) names.set(key, name);
    }
    return name;
  };
}

/** An attribute value as text: strings as they are, other JSON values as JSON; null and undefined as absent. */
export function attributeValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

// The parts of one call's elements nested inside their whole, for the xml layout.

/** One element, its place in the list nested, and the parts nested inside it. */
export interface Nested {
  element: Element;
  index: number;
  parts: readonly Nested[];
}

/** A value that sorts parts: a number or a string; anything else counts as no value. */
export type OrderValue = number | string | undefined;

/**
 * Nest each element inside the element its `ref` names when that whole is in the same call. Roots keep
 * arrival order; the parts of one whole sort by `orderOf` (numbers before strings; null: no order is set),
 * and parts without a value follow in arrival order. A cycle of refs is cut at its first element in arrival order.
 * Null when nothing nests: every element is a root, in its place.
 */
export function nest(
  elements: readonly Element[],
  orderOf: ((element: Element) => OrderValue) | null,
): Nested[] | null {
  const wholes = wholesOf(elements);
  if (wholes === null) return null;
  const nodes: Nested[] = [];
  for (let index = 0; index < elements.length; index += 1)
    nodes.push({ element: elements[index]!, index, parts: NO_PARTS });
  const count = elements.length;
  const roots: Nested[] = [];
  for (let index = 0; index < count; index += 1) {
    const at = wholes[index]!;
    if (at < 0) roots.push(nodes[index]!);
    else if (nodes[at]!.parts === NO_PARTS) nodes[at]!.parts = [nodes[index]!];
    else (nodes[at]!.parts as Nested[]).push(nodes[index]!);
  }
  if (orderOf !== null) for (const node of nodes) node.parts = sorted(node.parts, orderOf);
  return roots;
}

/**
 * The index of the whole each element is a part of in `elements` (the first element of the id its ref names), or
 * -1 for a root; a cycle of refs is cut where it comes back. Null when every element is a root.
 */
function wholesOf(elements: readonly Element[]): number[] | null {
  const count = elements.length;
  let wholes: number[] | null = null;
  // A result has a few elements: they are searched in place; a long list is indexed by id once.
  const byId = count > 16 ? firstIndexes(elements) : undefined;
  for (let index = 0; index < count; index += 1) {
    const ref = elements[index]!.ref;
    if (ref === null || ref === undefined) continue;
    let at = -1;
    if (byId !== undefined) at = byId.get(ref) ?? -1;
    else for (let other = 0; other < count && at < 0; other += 1) if (elements[other]!.id === ref) at = other;
    // An element that names itself is cut below, as any cycle is.
    if (at < 0) continue;
    wholes ??= new Array<number>(count).fill(-1);
    wholes[index] = at;
  }
  if (wholes === null) return null;
  for (let index = 0; index < count; index += 1) {
    // A chain of wholes that does not come back to this element within as many steps as there are elements never does.
    let steps = 0;
    for (let at = wholes[index]!; at >= 0 && steps < count; at = wholes[at]!, steps += 1) {
      if (at === index) {
        wholes[index] = -1;
        break;
      }
    }
  }
  return wholes;
}

// The parts of an element that has none: one list for all of them, never grown.
const NO_PARTS: readonly Nested[] = Object.freeze([]);

function firstIndexes(elements: readonly Element[]): Map<string, number> {
  const byId = new Map<string, number>();
  elements.forEach((element, index) => {
    if (!byId.has(element.id)) byId.set(element.id, index);
  });
  return byId;
}

function sorted(parts: readonly Nested[], orderOf: (element: Element) => OrderValue): readonly Nested[] {
  if (parts.length < 2) return parts;
  const keyed = parts.map((node) => ({ node, key: orderOf(node.element) }));
  // Parts without a value keep arrival order.
  if (keyed.every((entry) => entry.key === undefined)) return parts;
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
