/**
 * The filters of prompt templates, the allow-list the interpreter calls: Jinja's filters that nunjucks had
 * (with nunjucks' behaviour, so that files render as before) and those it lacked (`tojson`, `map`,
 * `unique`, `min`, `max`, `items`, `format`, `wordwrap`, to Jinja's documented behaviour). Each filter
 * bounds its work before it starts: it states the size of what it will make (`budget.text`,
 * `budget.items`) from its inputs' lengths and its count arguments, and runs in time linear in them (no
 * regular expression of the template's, none that backtracks on its input).
 */
import { format } from "./jinja-format.js";
import { joined, member, replaced, sequence, stripped } from "./jinja-methods.js";
import { applyTest } from "./jinja-tests.js";
import { tojson } from "./jinja-json.js";
import { wordwrap } from "./jinja-wordwrap.js";
import {
  Callable,
  isDict,
  less,
  numeric,
  text,
  truthy,
  type Arguments,
  type Dict,
  type Value,
} from "./jinja-values.js";
import { RenderBudget, TemplateSandboxError } from "./sandbox.js";

export { member } from "./jinja-methods.js";
export { applyTest } from "./jinja-tests.js";

/** One filter: its input, its arguments (positional, then by keyword) and the render's budget. */
export type Filter = (input: Value, args: Arguments, budget: RenderBudget) => Value;

// The argument at `index`, or the keyword `name`.
function arg(args: Arguments, index: number, name: string): Value {
  return args.keywords.has(name) ? args.keywords.get(name) : args.positional[index];
}

// nunjucks' normalize(): none and false read as the default.
function str(value: Value): string {
  return value === undefined || value === null || value === false ? "" : text(value);
}

/** Apply the filter `name` to `input`; an unknown name is refused (the load check finds it first). */
export function applyFilter(name: string, input: Value, args: Arguments, budget: RenderBudget): Value {
  const filter = FILTERS.get(name);
  if (filter === undefined) throw new TemplateSandboxError(`no filter named "${name}"`);
  budget.step();
  return filter(input, args, budget);
}

/** Whether the engine has a filter of this name. */
export function isKnownFilter(name: string): boolean {
  return FILTERS.has(name);
}

function count(value: Value, what: string, fallback: number): number {
  const number =
    value === undefined || value === null || value === false || value === 0 ? fallback : numeric(value, what);
  if (!Number.isFinite(number)) throw new TemplateSandboxError(`${what}: ${text(value)} is no finite number`);
  return number;
}

function center(input: Value, args: Arguments, budget: RenderBudget): string {
  const value = str(input);
  const width = count(arg(args, 0, "width"), "center()", 80);
  if (value.length >= width) return value;
  budget.text(width, "center()");
  const spaces = width - value.length;
  return " ".repeat(Math.max(0, Math.floor(spaces / 2 - (spaces % 2)))) + value + " ".repeat(Math.floor(spaces / 2));
}

function indent(input: Value, args: Arguments, budget: RenderBudget): string {
  const value = str(input);
  if (value === "") return "";
  const width = Math.max(0, Math.floor(count(arg(args, 0, "width"), "indent()", 4)));
  const first = truthy(arg(args, 1, "first"));
  const lines = value.split("\n");
  budget.text(value.length + lines.length * width, "indent()");
  const space = " ".repeat(width);
  return lines.map((line, index) => (index === 0 && !first ? line : space + line)).join("\n");
}

function batch(input: Value, args: Arguments, budget: RenderBudget): Value[][] {
  const items = sequence(input, "batch()");
  const size = Math.floor(count(arg(args, 0, "linecount"), "batch()", 1));
  if (size < 1) throw new TemplateSandboxError(`batch(): a batch holds at least 1 item, not ${size}`);
  const fill = arg(args, 1, "fill_with");
  budget.items(items.length + (truthy(fill) ? size : 0), "batch()");
  const rows: Value[][] = [];
  for (let start = 0; start < items.length; start += size) rows.push(items.slice(start, start + size));
  const last = rows.at(-1);
  if (last !== undefined && truthy(fill)) while (last.length < size) last.push(fill);
  return rows;
}

function slice(input: Value, args: Arguments, budget: RenderBudget): Value[][] {
  const items = sequence(input, "slice()");
  const slices = Math.floor(count(arg(args, 0, "slices"), "slice()", 1));
  if (slices < 1) throw new TemplateSandboxError(`slice(): at least 1 slice, not ${slices}`);
  budget.items(slices + items.length, "slice()");
  const fill = arg(args, 1, "fill_with");
  const length = Math.floor(items.length / slices);
  const extra = items.length % slices;
  const result: Value[][] = [];
  let offset = 0;
  for (let index = 0; index < slices; index += 1) {
    const start = offset + index * length;
    if (index < extra) offset += 1;
    const part = items.slice(start, offset + (index + 1) * length);
    if (truthy(fill) && index >= extra) part.push(fill);
    result.push(part);
  }
  return result;
}

function sortFilter(input: Value, args: Arguments, budget: RenderBudget): Value[] {
  const items = [...sequence(input, "sort()")];
  const reverse = truthy(arg(args, 0, "reverse"));
  const caseSensitive = truthy(arg(args, 1, "case_sensitive"));
  const path = arg(args, 2, "attribute");
  budget.step(items.length * Math.max(1, Math.ceil(Math.log2(items.length + 1))));
  const key = (item: Value): Value => {
    const value = truthy(path) ? attribute(item, text(path)) : item;
    if (truthy(path) && value === undefined)
      throw new TemplateSandboxError(`sort: attribute "${text(path)}" resolved to undefined`);
    return !caseSensitive && typeof value === "string" ? value.toLowerCase() : value;
  };
  return items.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    const order = less(x, y) ? -1 : less(y, x) ? 1 : 0;
    return reverse ? -order : order;
  });
}

function dictsort(input: Value, args: Arguments, budget: RenderBudget): Value[] {
  if (!isDict(input)) throw new TemplateSandboxError("dictsort filter: val must be an object");
  const caseSensitive = truthy(arg(args, 0, "case_sensitive"));
  const by = arg(args, 1, "by");
  if (by !== undefined && by !== "key" && by !== "value") {
    throw new TemplateSandboxError("dictsort filter: You can only sort by either key or value");
  }
  const at = by === "value" ? 1 : 0;
  budget.step(input.size * Math.max(1, Math.ceil(Math.log2(input.size + 1))));
  const key = (value: Value) => (!caseSensitive && typeof value === "string" ? value.toUpperCase() : value);
  const pairs = [...input.entries()].map(([name, value]) => [name, value] as [string, Value]);
  return pairs.sort((left, right) => {
    const a = key(left[at]);
    const b = key(right[at]);
    return less(b, a) ? 1 : a === b ? 0 : -1;
  });
}

/** An attribute path of an item as Jinja's make_attrgetter reads it: dots separate parts, digits index. */
export function attribute(item: Value, path: string): Value {
  return path.split(".").reduce<Value>((value, part) => member(value, part), item);
}

function replaceFilter(input: Value, args: Arguments, budget: RenderBudget): Value {
  const old = arg(args, 0, "old");
  const replacement = text(arg(args, 1, "new") ?? "");
  const limit = arg(args, 2, "count");
  if (typeof old !== "string" && typeof old !== "number") return input;
  if (typeof input !== "string" && typeof input !== "number") return input;
  return replaced(
    String(input),
    String(old),
    replacement,
    limit === undefined ? -1 : numeric(limit, "replace()"),
    budget,
  );
}

function truncate(input: Value, args: Arguments): string {
  const value = str(input);
  const length = count(arg(args, 0, "length"), "truncate()", 255);
  if (value.length <= length) return value;
  const killwords = truthy(arg(args, 1, "killwords"));
  const end = arg(args, 2, "end");
  let cut: number = length;
  if (!killwords) {
    const space = value.lastIndexOf(" ", length);
    cut = space === -1 ? length : space;
  }
  return value.substring(0, cut) + (end === undefined || end === null ? "..." : text(end));
}

function isSpace(character: string): boolean {
  return /\s/.test(character);
}

/** JavaScript's trim of `\s` on both ends, in linear time (nunjucks' /^\s*|\s*$/ backtracks). */
export function trimmed(value: string): string {
  let from = 0;
  let to = value.length;
  while (from < to && isSpace(value[from]!)) from += 1;
  while (to > from && isSpace(value[to - 1]!)) to -= 1;
  return value.slice(from, to);
}

// The end of the tag at `at` (after its `>`), as /<\/?([a-z][a-z0-9]*)\b[^>]*>/i matched it; -1 for none.
function tagEnd(value: string, at: number, nextClose: Int32Array): number {
  let position = at + 1;
  if (value[position] === "/") position += 1;
  if (!/[a-z]/i.test(value[position] ?? "")) return -1;
  while (/[a-z0-9]/i.test(value[position] ?? "")) position += 1;
  if (/\w/.test(value[position] ?? "")) return -1;
  const close = nextClose[position]!;
  return close === -1 ? -1 : close + 1;
}

function striptags(input: Value, args: Arguments, budget: RenderBudget): string {
  const value = str(input);
  budget.step(value.length >> 4);
  const nextClose = new Int32Array(value.length + 1).fill(-1);
  for (let index = value.length - 1; index >= 0; index -= 1)
    nextClose[index] = value[index] === ">" ? index : nextClose[index + 1]!;
  let output = "";
  let position = 0;
  let commentEnd = -2;
  for (let index = 0; index < value.length; index += 1) {
    if (value[index] !== "<") continue;
    let end = tagEnd(value, index, nextClose);
    if (end === -1 && value.startsWith("<!--", index)) {
      if (commentEnd !== -1 && commentEnd < index + 4) commentEnd = value.indexOf("-->", index + 4);
      end = commentEnd === -1 ? -1 : commentEnd + 3;
    }
    if (end === -1) continue;
    output += value.slice(position, index);
    position = end;
    index = end - 1;
  }
  const stripped = trimmed(output + value.slice(position));
  if (!truthy(arg(args, 0, "preserve_linebreaks"))) return stripped.replace(/\s+/g, " ");
  return stripped
    .split("\n")
    .map((line) => stripped_spaces(line))
    .join("\n")
    .replace(/ +/g, " ")
    .replace(/\r\n/g, "\n")
    .replace(/\n\n\n+/g, "\n\n");
}

// /^ +| +$/gm of one line (a line's own \r stays, as $ does not match before it).
function stripped_spaces(line: string): string {
  return stripped(line, " ", true, true);
}

function sum(input: Value, args: Arguments, budget: RenderBudget): Value {
  const path = arg(args, 0, "attribute");
  let items = sequence(input, "sum()");
  if (truthy(path)) items = items.map((item) => member(item, path));
  budget.step(items.length);
  let total: Value = 0;
  for (const item of items) total = plus(total, item, budget);
  return plus(arg(args, 1, "start") ?? 0, total, budget);
}

function plus(left: Value, right: Value, budget: RenderBudget): Value {
  const numberLike = (value: Value) => typeof value === "number" || typeof value === "boolean" || value === null;
  if (numberLike(left) && numberLike(right)) return numeric(left, "sum()") + numeric(right, "sum()");
  const [a, b] = [text(left), text(right)];
  budget.text(a.length + b.length, "sum()");
  return a + b;
}

function selecting(keep: boolean): Filter {
  return (input, args, budget) => {
    const name = args.positional[0] === undefined ? "truthy" : text(args.positional[0]);
    const rest = { positional: args.positional.slice(1), keywords: new Map<string, Value>() };
    const items = sequence(input, "select()");
    budget.step(items.length);
    return items.filter((item) => applyTest(name, item, rest) === keep);
  };
}

function selectingAttribute(keep: boolean): Filter {
  return (input, args, budget) => {
    const items = sequence(input, "selectattr()");
    budget.step(items.length);
    const path = text(args.positional[0]);
    return items.filter((item) => truthy(member(item, path)) === keep);
  };
}

function map(input: Value, args: Arguments, budget: RenderBudget): Value[] {
  const items = sequence(input, "map()");
  budget.step(items.length);
  if (args.keywords.has("attribute")) {
    const path = text(args.keywords.get("attribute"));
    return items.map((item) => {
      const found = attribute(item, path);
      return found === undefined && args.keywords.has("default") ? args.keywords.get("default") : found;
    });
  }
  const [name, ...rest] = args.positional;
  if (typeof name !== "string") throw new TemplateSandboxError("map() needs a filter name or attribute=");
  if (!FILTERS.has(name)) throw new TemplateSandboxError(`map(): no filter named "${name}"`);
  const forwarded = { positional: rest, keywords: args.keywords };
  return items.map((item) => applyFilter(name, item, forwarded, budget));
}

function unique(input: Value, args: Arguments, budget: RenderBudget): Value[] {
  const caseSensitive = truthy(arg(args, 0, "case_sensitive"));
  const path = arg(args, 1, "attribute");
  const seen = new Set<Value>();
  const items = sequence(input, "unique()");
  budget.step(items.length);
  return items.filter((item) => {
    const value = path === undefined || path === null ? item : attribute(item, text(path));
    const key = !caseSensitive && typeof value === "string" ? value.toLowerCase() : value;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function extreme(name: "min" | "max"): Filter {
  return (input, args, budget) => {
    const caseSensitive = truthy(arg(args, 0, "case_sensitive"));
    const path = arg(args, 1, "attribute");
    const key = (item: Value): Value => {
      const value = path === undefined || path === null ? item : attribute(item, text(path));
      return !caseSensitive && typeof value === "string" ? value.toLowerCase() : value;
    };
    const items = sequence(input, `${name}()`);
    budget.step(items.length);
    let best: Value = undefined;
    for (const item of items) {
      if (best === undefined || (name === "min" ? less(key(item), key(best)) : less(key(best), key(item)))) best = item;
    }
    return best;
  };
}

function listFilter(input: Value, _args: Arguments, budget: RenderBudget): Value[] {
  if (typeof input === "string") {
    budget.items(input.length, "list()");
    return [...input];
  }
  if (Array.isArray(input)) return input;
  if (isDict(input)) {
    return [...input.entries()].map(
      ([key, value]) =>
        new Map<string, Value>([
          ["key", key],
          ["value", value],
        ]),
    );
  }
  throw new TemplateSandboxError("list filter: type not iterable");
}

function length(input: Value): Value {
  if (input === undefined || input === null || input === false) return 0;
  if (isDict(input)) return input.size;
  if (typeof input === "string" || Array.isArray(input)) return input.length;
  return undefined;
}

const HTML: Readonly<Record<string, string>> = { "&": "&amp;", '"': "&quot;", "'": "&#39;", "<": "&lt;", ">": "&gt;" };

function escape(input: Value, _args: Arguments, budget: RenderBudget): string {
  const value = input === undefined || input === null ? "" : text(input);
  budget.text(value.length * 6, "escape()");
  return value.replace(/[&"'<>]/g, (character) => HTML[character]!);
}

function urlencode(input: Value, _args: Arguments, budget: RenderBudget): string {
  const encode = (value: Value) => {
    const part = text(value);
    budget.text(part.length * 9, "urlencode()");
    return encodeURIComponent(part);
  };
  if (typeof input === "string") return encode(input);
  const pairs = isDict(input)
    ? [...input.entries()]
    : sequence(input, "urlencode()").map((pair) => [member(pair, 0), member(pair, 1)]);
  return pairs.map(([key, value]) => `${encode(key as Value)}=${encode(value as Value)}`).join("&");
}

function round(input: Value, args: Arguments): number {
  const precision = numeric(arg(args, 0, "precision") ?? 0, "round()") || 0;
  const method = arg(args, 1, "method");
  const factor = 10 ** precision;
  const rounder = method === "ceil" ? Math.ceil : method === "floor" ? Math.floor : Math.round;
  return rounder(numeric(input, "round()") * factor) / factor;
}

function reverse(input: Value, _args: Arguments, budget: RenderBudget): Value {
  if (typeof input === "string") return [...input].reverse().join("");
  const items = [...sequence(input, "reverse()")];
  budget.step(items.length);
  return items.reverse();
}

function first(input: Value): Value {
  return member(input, 0);
}

function last(input: Value): Value {
  if (typeof input === "string" || Array.isArray(input)) return input[input.length - 1];
  return undefined;
}

function intFilter(input: Value, args: Arguments): Value {
  const base = numeric(arg(args, 1, "base") ?? 10, "int()");
  const parsed = Number.parseInt(text(input), base);
  return Number.isNaN(parsed) ? arg(args, 0, "default") : parsed;
}

function floatFilter(input: Value, args: Arguments): Value {
  const parsed = Number.parseFloat(text(input));
  return Number.isNaN(parsed) ? arg(args, 0, "default") : parsed;
}

function items(input: Value): Value[] {
  if (input === undefined || input === null) return [];
  if (!isDict(input)) throw new TemplateSandboxError("items() can only be used on a mapping");
  return [...input.entries()].map(([key, value]) => [key, value]);
}

function title(input: Value): string {
  return str(input)
    .split(" ")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(" ");
}

function wordcount(input: Value): Value {
  const value = str(input);
  let words = 0;
  let inWord = false;
  for (const character of value) {
    const word = /\w/.test(character);
    if (word && !inWord) words += 1;
    inWord = word;
  }
  return words === 0 ? null : words;
}

function dump(input: Value, args: Arguments, budget: RenderBudget): string {
  const spaces = arg(args, 0, "spaces");
  const indent =
    spaces === undefined || spaces === null ? 0 : Math.min(10, Math.max(0, Math.floor(numeric(spaces, "dump()"))));
  return javascriptJson(input, indent, 0, budget) ?? "undefined";
}

// JSON.stringify of a template value (keys in their order, non-ASCII kept), `undefined` for none.
function javascriptJson(value: Value, indent: number, depth: number, budget: RenderBudget): string | undefined {
  budget.step();
  if (value === undefined || value instanceof Callable) return undefined;
  if (value === null || typeof value === "boolean") return String(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "string") return JSON.stringify(value);
  const newline = indent === 0 ? "" : `\n${" ".repeat(indent * (depth + 1))}`;
  const closing = indent === 0 ? "" : `\n${" ".repeat(indent * depth)}`;
  const colon = indent === 0 ? ":" : ": ";
  const parts = Array.isArray(value)
    ? value.map((item) => javascriptJson(item, indent, depth + 1, budget) ?? "null")
    : [...(value as Dict).entries()].flatMap(([key, item]) => {
        const json = javascriptJson(item, indent, depth + 1, budget);
        return json === undefined ? [] : [`${JSON.stringify(key)}${colon}${json}`];
      });
  const size = parts.reduce((total, part) => total + part.length + newline.length + 1, 0);
  budget.text(size, "dump()");
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return parts.length === 0 ? open + close : `${open}${newline}${parts.join(`,${newline}`)}${closing}${close}`;
}

const simple =
  (work: (value: string) => string): Filter =>
  (input) =>
    work(str(input));

const FILTER_LIST: readonly (readonly [string, Filter])[] = [
  ["abs", (input) => Math.abs(numeric(input, "abs()"))],
  ["batch", batch],
  ["capitalize", simple((value) => value.charAt(0).toUpperCase() + value.slice(1).toLowerCase())],
  ["center", center],
  ["default", (input, args) => (truthy(arg(args, 1, "boolean")) ? (truthy(input) ? input : arg(args, 0, "default_value")) : input !== undefined ? input : arg(args, 0, "default_value"))],
  ["dictsort", dictsort],
  ["dump", dump],
  ["escape", escape],
  ["first", first],
  ["float", floatFilter],
  ["forceescape", escape],
  ["format", (input, args, budget) => format(input, args, budget)],
  ["indent", indent],
  ["int", intFilter],
  ["items", items],
  ["join", (input, args, budget) => {
    const path = arg(args, 1, "attribute");
    const values = truthy(path) ? sequence(input, "join()").map((item) => member(item, path)) : input;
    return joined(values, str(arg(args, 0, "d")), budget);
  }],
  ["last", last],
  ["length", length],
  ["list", listFilter],
  ["lower", simple((value) => value.toLowerCase())],
  ["map", map],
  ["max", extreme("max")],
  ["min", extreme("min")],
  ["reject", selecting(false)],
  ["rejectattr", selectingAttribute(false)],
  ["replace", replaceFilter],
  ["reverse", reverse],
  ["round", round],
  ["safe", (input) => (input === undefined || input === null ? "" : text(input))],
  ["select", selecting(true)],
  ["selectattr", selectingAttribute(true)],
  ["slice", slice],
  ["sort", sortFilter],
  ["string", (input) => (typeof input === "string" || Array.isArray(input) || isDict(input) ? input : text(input))],
  ["striptags", striptags],
  ["sum", sum],
  ["title", title],
  ["tojson", (input, args, budget) => tojson(input, arg(args, 0, "indent"), budget)],
  ["trim", (input) => trimmed(text(input))],
  ["truncate", truncate],
  ["unique", unique],
  ["upper", simple((value) => value.toUpperCase())],
  ["urlencode", urlencode],
  ["wordcount", wordcount],
  ["wordwrap", (input, args, budget) => wordwrap(input, args, budget)],
] as const; // prettier-ignore

/** The filters a template may apply, by name: the allow-list (with Jinja's short names `d` and `e`). */
export const FILTERS: ReadonlyMap<string, Filter> = new Map([
  ...FILTER_LIST,
  ["d", FILTER_LIST.find(([name]) => name === "default")![1]],
  ["e", escape],
]);
