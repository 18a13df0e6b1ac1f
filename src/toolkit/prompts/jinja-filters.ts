/**
 * What Jinja has and nunjucks lacks, written to Jinja's documented behaviour: the filters `tojson`, `map`,
 * `unique`, `min`, `max`, `items`, `format` and `wordwrap`, and the Python string and dict methods a
 * template calls (`{{ name.upper() }}`, `{% for key, value in fields.items() %}`). Keyword arguments
 * arrive as nunjucks passes them: a last argument object marked `__keywords`.
 */
import { checkedSize, countStep, safeMember, TemplateSandboxError } from "./sandbox.js";

type Arguments = unknown[];
type Keywords = Record<string, unknown>;

// Split nunjucks' arguments into the positional ones and the keywords, checked against `names`.
function split(filter: string, args: Arguments, names: readonly string[]): [Arguments, Keywords] {
  const last = args.at(-1);
  const keywords =
    last !== null && typeof last === "object" && (last as { __keywords?: unknown }).__keywords === true
      ? { ...(last as Keywords) }
      : null;
  const positional = keywords === null ? args : args.slice(0, -1);
  if (keywords !== null) {
    delete keywords.__keywords;
    for (const name of Object.keys(keywords)) {
      if (!names.includes(name)) throw new TemplateSandboxError(`${filter}() got an unexpected keyword "${name}"`);
    }
  }
  return [positional, keywords ?? {}];
}

function sequence(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [...value];
  if (Array.isArray(value)) return value;
  if (typeof value === "object") return Object.keys(value);
  throw new TemplateSandboxError(`${typeof value} is not iterable`);
}

// An attribute as Jinja's make_attrgetter reads it: dots separate parts, digits index.
function attribute(item: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((value, part) => safeMember(value, part), item);
}

const folded = (value: unknown, caseSensitive: boolean) =>
  !caseSensitive && typeof value === "string" ? value.toLowerCase() : value;

/** Python's json.dumps with Jinja's policy (keys sorted), made HTML-safe as Jinja's `tojson` makes it. */
export function tojson(value: unknown, ...args: Arguments): string {
  const [[indentArgument], keywords] = split("tojson", args, ["indent"]);
  const indent = (keywords.indent ?? indentArgument ?? null) as number | null;
  const text = pythonJson(value, indent, 0);
  return checkedSize(
    text.replace(/[<>&']/g, (character) => `\\u00${character.charCodeAt(0).toString(16).padStart(2, "0")}`),
  );
}

function pythonJson(value: unknown, indent: number | null, depth: number): string {
  countStep();
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : value > 0 ? "Infinity" : "NaN";
  if (typeof value === "string") return asciiJson(value);
  const newline = indent === null ? "" : `\n${" ".repeat(indent * (depth + 1))}`;
  const closing = indent === null ? "" : `\n${" ".repeat(indent * depth)}`;
  const separator = indent === null ? ", " : ",";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((item) => pythonJson(item, indent, depth + 1));
    return `[${newline}${items.join(separator + newline)}${closing}]`;
  }
  if (typeof value === "object") {
    const keys = Object.keys(value).sort();
    if (keys.length === 0) return "{}";
    const items = keys.map(
      (key) => `${asciiJson(key)}: ${pythonJson((value as Record<string, unknown>)[key], indent, depth + 1)}`,
    );
    return `{${newline}${items.join(separator + newline)}${closing}}`;
  }
  throw new TemplateSandboxError(`Object of type ${typeof value} is not JSON serializable`);
}

// json.dumps escapes every character outside ASCII (ensure_ascii=True), as \uXXXX.
function asciiJson(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Jinja's `map`: apply a filter to each item (`map('upper')`, `map('replace', 'a', 'b')`), or look up an
 * attribute of each (`map(attribute='name')`, with `default=`). Returns a list.
 */
function map(
  this: { env: { getFilter(name: string): (...args: unknown[]) => unknown } },
  value: unknown,
  ...args: Arguments
) {
  const [positional, keywords] = split("map", args, ["attribute", "default"]);
  const items = sequence(value);
  if (keywords.attribute !== undefined) {
    const path = String(keywords.attribute);
    return items.map((item) => {
      const found = attribute(item, path);
      return found === undefined && "default" in keywords ? keywords.default : found;
    });
  }
  const [name, ...rest] = positional;
  if (typeof name !== "string") throw new TemplateSandboxError("map() needs a filter name or attribute=");
  const filters = (this.env as unknown as { filters: Record<string, unknown> }).filters;
  if (!Object.hasOwn(filters, name)) throw new TemplateSandboxError(`map(): no filter named "${name}"`);
  const filter = this.env.getFilter(name);
  return items.map((item) => filter.call(this, item, ...rest));
}

/** Jinja's `unique(case_sensitive=False, attribute=None)`: the first of each equal item, in order. */
function unique(value: unknown, ...args: Arguments): unknown[] {
  const [[caseArgument, attributeArgument], keywords] = split("unique", args, ["case_sensitive", "attribute"]);
  const caseSensitive = Boolean(keywords.case_sensitive ?? caseArgument ?? false);
  const path = (keywords.attribute ?? attributeArgument ?? null) as string | null;
  const seen = new Set<unknown>();
  return sequence(value).filter((item) => {
    countStep();
    const key = folded(path === null ? item : attribute(item, String(path)), caseSensitive);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Jinja's `min` and `max(case_sensitive=False, attribute=None)`: undefined for an empty sequence. */
function extreme(name: "min" | "max") {
  return (value: unknown, ...args: Arguments): unknown => {
    const [[caseArgument, attributeArgument], keywords] = split(name, args, ["case_sensitive", "attribute"]);
    const caseSensitive = Boolean(keywords.case_sensitive ?? caseArgument ?? false);
    const path = (keywords.attribute ?? attributeArgument ?? null) as string | null;
    const key = (item: unknown) => folded(path === null ? item : attribute(item, String(path)), caseSensitive) as never;
    let best: unknown = undefined;
    for (const item of sequence(value)) {
      countStep();
      if (best === undefined || (name === "min" ? key(item) < key(best) : key(item) > key(best))) best = item;
    }
    return best;
  };
}

/** Jinja's `items`: the (key, value) pairs of a mapping, in its order; nothing for undefined. */
function items(value: unknown): [string, unknown][] {
  if (value === undefined || value === null) return [];
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new TemplateSandboxError("items() can only be used on a mapping");
  }
  return Object.entries(value);
}

/** Jinja's `format`: Python's `%` formatting, with positional values or keywords (`%(name)s`). */
export function format(value: unknown, ...args: Arguments): string {
  const [positional, keywords] = split("format", args, Object.keys((args.at(-1) as object | undefined) ?? {}));
  if (positional.length > 0 && Object.keys(keywords).length > 0) {
    throw new TemplateSandboxError("format() takes positional values or keywords, not both");
  }
  let next = 0;
  const text = String(value).replace(
    /%(?:\(([^)]*)\))?([-+ 0#]*)(\d+)?(?:\.(\d+))?([sdifFeExXor%])/g,
    (
      whole,
      key: string | undefined,
      flags: string,
      width: string | undefined,
      precision: string | undefined,
      type: string,
    ) => {
      if (type === "%") return "%";
      let item: unknown;
      if (key !== undefined) {
        if (!(key in keywords)) throw new TemplateSandboxError(`format(): no value for "%(${key})${type}"`);
        item = keywords[key];
      } else {
        if (next >= positional.length)
          throw new TemplateSandboxError("format(): not enough arguments for format string");
        item = positional[next++];
      }
      return percent(item, flags, width === undefined ? 0 : Number(width), precision, type, whole);
    },
  );
  if (positional.length > next && Object.keys(keywords).length === 0) {
    throw new TemplateSandboxError("format(): not all arguments converted during string formatting");
  }
  return checkedSize(text);
}

function percent(
  item: unknown,
  flags: string,
  width: number,
  precision: string | undefined,
  type: string,
  whole: string,
): string {
  if (width > 10_000) throw new TemplateSandboxError(`format(): width ${width} in "${whole}" is too wide`);
  let text: string;
  const number = Number(item);
  const sign = (digits: string) =>
    number >= 0 && flags.includes("+") ? `+${digits}` : number >= 0 && flags.includes(" ") ? ` ${digits}` : digits;
  switch (type) {
    case "s":
      text = pythonStr(item);
      if (precision !== undefined) text = text.slice(0, Number(precision));
      break;
    case "r":
      text = typeof item === "string" ? `'${item.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'` : pythonStr(item);
      break;
    case "d":
    case "i":
      if (!Number.isFinite(number)) throw new TemplateSandboxError(`format(): %${type} format: a number is required`);
      text = sign(String(Math.trunc(number)));
      break;
    case "f":
    case "F":
      text = sign(number.toFixed(precision === undefined ? 6 : Number(precision)));
      break;
    case "e":
    case "E": {
      const exponential = number.toExponential(precision === undefined ? 6 : Number(precision));
      // Python writes at least two exponent digits: 1.5e+03, not 1.5e+3.
      text = sign(exponential.replace(/e([+-])(\d)$/, "e$10$2"));
      if (type === "E") text = text.toUpperCase();
      break;
    }
    default: {
      const base = type === "o" ? 8 : 16;
      const digits = Math.trunc(Math.abs(number)).toString(base);
      const prefix = flags.includes("#") ? (type === "o" ? "0o" : type === "X" ? "0X" : "0x") : "";
      text = (number < 0 ? "-" : "") + prefix + (type === "X" ? digits.toUpperCase() : digits);
      text = sign(text);
    }
  }
  if (text.length >= width) return text;
  if (flags.includes("-")) return text.padEnd(width);
  if (flags.includes("0") && type !== "s" && type !== "r") {
    const signed = /^[+\- ]/.test(text) ? text[0]! : "";
    return signed + text.slice(signed.length).padStart(width - signed.length, "0");
  }
  return text.padStart(width);
}

// str() of a value as Python prints it, for the JSON values a template holds.
function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  return String(value);
}

/**
 * Jinja's `wordwrap(width=79, break_long_words=True, wrapstring=None, break_on_hyphens=True)`: each line of
 * the text wrapped as Python's textwrap wraps it (whitespace kept inside lines, dropped at the breaks), the
 * lines joined with `wrapstring` (default a newline).
 */
export function wordwrap(value: unknown, ...args: Arguments): string {
  const names = ["width", "break_long_words", "wrapstring", "break_on_hyphens"] as const;
  const [positional, keywords] = split("wordwrap", args, names);
  const option = (index: number) => keywords[names[index]!] ?? positional[index];
  const width = Number(option(0) ?? 79);
  const breakLongWords = option(1) === undefined ? true : Boolean(option(1));
  const wrapstring = (option(2) ?? "\n") as string;
  const breakOnHyphens = option(3) === undefined ? true : Boolean(option(3));
  if (!(width > 0)) throw new TemplateSandboxError(`wordwrap(): invalid width ${width} (must be > 0)`);
  const lines = String(value).split(/\r\n|\r|\n/);
  if (lines.at(-1) === "") lines.pop(); // str.splitlines() makes no empty last line
  return checkedSize(
    lines.map((line) => wrapLine(line, width, breakLongWords, breakOnHyphens).join(wrapstring)).join(wrapstring),
  );
}

// textwrap.TextWrapper._wrap_chunks, with expand_tabs=False, replace_whitespace=False, drop_whitespace=True.
function wrapLine(text: string, width: number, breakLongWords: boolean, breakOnHyphens: boolean): string[] {
  const chunks = text
    .split(/(\s+)/)
    .filter((chunk) => chunk !== "")
    .flatMap((chunk) => (breakOnHyphens && !/^\s/.test(chunk) ? chunk.split(/(?<=\w-)(?=\w)/) : [chunk]))
    .reverse();
  const lines: string[] = [];
  while (chunks.length > 0) {
    countStep();
    const line: string[] = [];
    let length = 0;
    if (chunks.at(-1)!.trim() === "" && lines.length > 0) chunks.pop();
    while (chunks.length > 0 && length + chunks.at(-1)!.length <= width) {
      length += chunks.at(-1)!.length;
      line.push(chunks.pop()!);
    }
    if (chunks.length > 0 && chunks.at(-1)!.length > width) {
      if (breakLongWords) {
        const room = Math.max(width - length, 1);
        const long = chunks.pop()!;
        line.push(long.slice(0, room));
        chunks.push(long.slice(room));
      } else if (line.length === 0) {
        line.push(chunks.pop()!);
      }
    }
    if (line.length > 0 && line.at(-1)!.trim() === "") line.pop();
    if (line.length > 0) lines.push(line.join(""));
  }
  return lines;
}

/** The Jinja filters that nunjucks lacks, by name. */
export const JINJA_FILTERS: Readonly<Record<string, (...args: any[]) => unknown>> = {
  tojson,
  map,
  unique,
  min: extreme("min"),
  max: extreme("max"),
  items,
  format,
  wordwrap,
};

const WHITESPACE = " \t\n\r\v\f";

function stripped(text: string, characters: unknown, start: boolean, end: boolean): string {
  const set = characters === undefined || characters === null ? WHITESPACE : String(characters);
  let from = 0;
  let to = text.length;
  while (start && from < to && set.includes(text[from]!)) from += 1;
  while (end && to > from && set.includes(text[to - 1]!)) to -= 1;
  return text.slice(from, to);
}

function pythonSplit(text: string, separator: unknown, limit: unknown): string[] {
  const max = limit === undefined || limit === null || Number(limit) < 0 ? Infinity : Number(limit);
  if (separator === undefined || separator === null) {
    const parts: string[] = [];
    let rest = text.replace(/^\s+/, "");
    while (rest !== "") {
      if (parts.length === max) {
        parts.push(rest);
        break;
      }
      const match = /\s+/.exec(rest);
      if (match === null) {
        parts.push(rest);
        break;
      }
      parts.push(rest.slice(0, match.index));
      rest = rest.slice(match.index + match[0].length);
    }
    return parts;
  }
  const sep = String(separator);
  if (sep === "") throw new TemplateSandboxError("split(): empty separator");
  const parts = text.split(sep);
  return parts.length - 1 <= max ? parts : [...parts.slice(0, max), parts.slice(max).join(sep)];
}

/** The Python str methods a template may call on a text, with Python's behaviour. */
export const STRING_METHODS: Readonly<Record<string, (text: string, ...args: any[]) => unknown>> = {
  upper: (text) => text.toUpperCase(),
  lower: (text) => text.toLowerCase(),
  title: (text) => text.replace(/\p{L}+/gu, (word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase()),
  capitalize: (text) => text.slice(0, 1).toUpperCase() + text.slice(1).toLowerCase(),
  strip: (text, characters) => stripped(text, characters, true, true),
  lstrip: (text, characters) => stripped(text, characters, true, false),
  rstrip: (text, characters) => stripped(text, characters, false, true),
  startswith: (text, prefix) =>
    (Array.isArray(prefix) ? prefix : [prefix]).some((item) => text.startsWith(String(item))),
  endswith: (text, suffix) => (Array.isArray(suffix) ? suffix : [suffix]).some((item) => text.endsWith(String(item))),
  replace: (text, old, replacement, count) => {
    const parts = text.split(String(old));
    const times = count === undefined || Number(count) < 0 ? parts.length - 1 : Number(count);
    return checkedSize(
      parts.slice(0, times + 1).join(String(replacement)) +
        (parts.length - 1 > times ? String(old) + parts.slice(times + 1).join(String(old)) : ""),
    );
  },
  split: (text, separator, limit) => pythonSplit(text, separator, limit),
  splitlines: (text) => {
    const lines = text.split(/\r\n|\r|\n/);
    if (lines.at(-1) === "") lines.pop();
    return lines;
  },
  join: (text, values) =>
    checkedSize(
      sequence(values)
        .map((value) => String(value))
        .join(text),
    ),
  count: (text, part) => (String(part) === "" ? text.length + 1 : text.split(String(part)).length - 1),
  find: (text, part) => text.indexOf(String(part)),
  isdigit: (text) => /^\d+$/.test(text),
  isalpha: (text) => /^\p{L}+$/u.test(text),
  isspace: (text) => /^\s+$/.test(text),
  isupper: (text) => /\p{Lu}/u.test(text) && text === text.toUpperCase(),
  islower: (text) => /\p{Ll}/u.test(text) && text === text.toLowerCase(),
  zfill: (text, width) => {
    const signed = /^[+-]/.test(text) ? text[0]! : "";
    return signed + text.slice(signed.length).padStart(Number(width) - signed.length, "0");
  },
};

/** The Python dict methods a template may call on a mapping (a plain object), with Python's behaviour. */
export const MAPPING_METHODS: Readonly<Record<string, (mapping: Record<string, unknown>, ...args: any[]) => unknown>> =
  {
    items: (mapping) => Object.entries(mapping),
    keys: (mapping) => Object.keys(mapping),
    values: (mapping) => Object.values(mapping),
    get: (mapping, key, fallback = null) => (Object.hasOwn(mapping, String(key)) ? mapping[String(key)] : fallback),
  };
