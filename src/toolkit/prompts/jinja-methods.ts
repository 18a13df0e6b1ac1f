/**
 * What a template may read of a value and call on it: items of lists and texts, keys of dicts, and the
 * Python str and dict methods prompt templates use (`{{ name.upper() }}`, `fields.items()`), each bound
 * by the interpreter as a Callable. Every method states its cost to the render's budget before its work.
 */
import { Callable, isDict, text, typeName, type Arguments, type Dict, type Value } from "./jinja-values.js";
import { RenderBudget, TemplateSandboxError, unsafeName } from "./sandbox.js";

type Method<T> = (self: T, args: readonly Value[], budget: RenderBudget) => Value;

/** Read `key` of `target` as a template may: items, dict keys, and the allow-listed methods. */
export function member(target: Value, key: Value): Value {
  if (target === undefined || target === null) return undefined;
  if (target instanceof Callable) {
    throw new TemplateSandboxError(
      `the template read "${text(key)}" of a function: a template reads members of data only`,
    );
  }
  const name = typeof key === "number" ? String(key) : text(key);
  // Nothing of a template value has these; a name built at render time to reach one is refused, not ignored.
  if (unsafeName(name, false) !== null)
    throw new TemplateSandboxError(`the template read "${name}", which no template may read`);
  if (typeof target === "string") {
    if (name === "length") return target.length;
    if (/^\d+$/.test(name)) return target[Number(name)];
    const method = STRING_METHODS.get(name);
    if (method !== undefined) return bound(name, target, method);
    if (JAVASCRIPT_STRING_METHODS.has(name)) {
      throw new TemplateSandboxError(
        `"${name}" is a JavaScript method; a template calls Python's str methods (${[...STRING_METHODS.keys()].join(", ")})`,
      );
    }
    return undefined;
  }
  if (Array.isArray(target)) {
    if (name === "length") return target.length;
    return /^\d+$/.test(name) ? target[Number(name)] : undefined;
  }
  if (isDict(target)) {
    if (target.has(name)) return target.get(name);
    const method = MAPPING_METHODS.get(name);
    return method === undefined ? undefined : bound(name, target, method);
  }
  return undefined;
}

function bound<T>(name: string, self: T, method: Method<T>): Callable {
  return new Callable(name, ({ positional }: Arguments, budget) => method(self, positional, budget));
}

// Names of String.prototype's methods, fixed here (not read from the prototype): for a helpful error only.
const JAVASCRIPT_STRING_METHODS: ReadonlySet<string> = new Set(
  "at charAt charCodeAt codePointAt concat endsWith includes indexOf lastIndexOf localeCompare match matchAll normalize padEnd padStart repeat replaceAll search slice substring substr toLowerCase toUpperCase toLocaleLowerCase toLocaleUpperCase toString trim trimStart trimEnd valueOf".split(
    " ",
  ),
);

const WHITESPACE = new Set(" \t\n\r\v\f");

/** Strip the characters of `characters` (default whitespace) from the start and/or end of `self`. */
export function stripped(self: string, characters: Value, start: boolean, end: boolean): string {
  const set = characters === undefined || characters === null ? WHITESPACE : new Set(text(characters));
  let from = 0;
  let to = self.length;
  while (start && from < to && set.has(self[from]!)) from += 1;
  while (end && to > from && set.has(self[to - 1]!)) to -= 1;
  return self.slice(from, to);
}

/** Replace `old` by `replacement` in `self`, at most `count` times (all when negative or undefined): literal text only. */
export function replaced(self: string, old: string, replacement: string, count: number, budget: RenderBudget): string {
  const limit = count < 0 || Number.isNaN(count) ? Infinity : count;
  if (old === "") {
    const times = Math.min(self.length + 1, limit);
    budget.text(self.length + times * replacement.length, "replace()");
    const characters = [...self];
    return (
      characters.map((character, index) => (index < times ? replacement + character : character)).join("") +
      (times > self.length ? replacement : "")
    );
  }
  let times = 0;
  for (let at = self.indexOf(old); at !== -1 && times < limit; at = self.indexOf(old, at + old.length)) times += 1;
  budget.text(self.length + times * (replacement.length - old.length), "replace()");
  budget.step(times);
  let output = "";
  let position = 0;
  for (let done = 0; done < times; done += 1) {
    const at = self.indexOf(old, position);
    output += self.slice(position, at) + replacement;
    position = at + old.length;
  }
  return output + self.slice(position);
}

function pythonSplit(self: string, separator: Value, limit: Value): string[] {
  const max = limit === undefined || limit === null || Number(limit) < 0 ? Infinity : Number(limit);
  if (separator === undefined || separator === null) {
    const parts = self.split(/\s+/).filter((part) => part !== "");
    if (parts.length - 1 <= max) return parts;
    const rest = self.replace(/^\s+/, "");
    const head: string[] = [];
    let position = 0;
    for (const part of parts.slice(0, max)) {
      const at = rest.indexOf(part, position);
      head.push(part);
      position = at + part.length;
    }
    return [...head, rest.slice(position).replace(/^\s+/, "")];
  }
  const sep = text(separator);
  if (sep === "") throw new TemplateSandboxError("split(): empty separator");
  const parts = self.split(sep);
  return parts.length - 1 <= max ? parts : [...parts.slice(0, max), parts.slice(max).join(sep)];
}

/** The Python str methods a template may call on a text, with Python's behaviour. */
export const STRING_METHODS: ReadonlyMap<string, Method<string>> = new Map<string, Method<string>>([
  ["upper", (self) => self.toUpperCase()],
  ["lower", (self) => self.toLowerCase()],
  ["title", (self) => self.replace(/\p{L}+/gu, (word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase())],
  ["capitalize", (self) => self.slice(0, 1).toUpperCase() + self.slice(1).toLowerCase()],
  ["strip", (self, [characters]) => stripped(self, characters, true, true)],
  ["lstrip", (self, [characters]) => stripped(self, characters, true, false)],
  ["rstrip", (self, [characters]) => stripped(self, characters, false, true)],
  [
    "startswith",
    (self, [prefix]) => (Array.isArray(prefix) ? prefix : [prefix]).some((item) => self.startsWith(text(item))),
  ],
  [
    "endswith",
    (self, [suffix]) => (Array.isArray(suffix) ? suffix : [suffix]).some((item) => self.endsWith(text(item))),
  ],
  [
    "replace",
    (self, [old, replacement, count], budget) =>
      replaced(self, text(old), text(replacement), count === undefined ? -1 : Number(count), budget),
  ],
  ["split", (self, [separator, limit]) => pythonSplit(self, separator, limit)],
  [
    "splitlines",
    (self) => {
      const lines = self.split(/\r\n|\r|\n/);
      if (lines.at(-1) === "") lines.pop();
      return lines;
    },
  ],
  ["join", (self, [values], budget) => joined(values, self, budget)],
  ["count", (self, [part]) => (text(part) === "" ? self.length + 1 : self.split(text(part)).length - 1)],
  ["find", (self, [part]) => self.indexOf(text(part))],
  ["isdigit", (self) => /^\d+$/.test(self)],
  ["isalpha", (self) => /^\p{L}+$/u.test(self)],
  ["isspace", (self) => /^\s+$/.test(self)],
  ["isupper", (self) => /\p{Lu}/u.test(self) && self === self.toUpperCase()],
  ["islower", (self) => /\p{Ll}/u.test(self) && self === self.toLowerCase()],
  [
    "zfill",
    (self, [width], budget) => {
      const wide = Number(width);
      budget.text(wide, "zfill()");
      const signed = /^[+-]/.test(self) ? self[0]! : "";
      return signed + self.slice(signed.length).padStart(wide - signed.length, "0");
    },
  ],
]);

/** The Python dict methods a template may call on a dict, with Python's behaviour. */
export const MAPPING_METHODS: ReadonlyMap<string, Method<Dict>> = new Map<string, Method<Dict>>([
  ["items", (self) => [...self.entries()].map(([key, value]) => [key, value])],
  ["keys", (self) => [...self.keys()]],
  ["values", (self) => [...self.values()]],
  ["get", (self, [key, fallback = null]) => (self.has(text(key)) ? self.get(text(key)) : fallback)],
]);

/** The items of a value a filter iterates: a list, a text's characters, a dict's keys; nothing for none. */
export function sequence(value: Value, what: string): Value[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [...value];
  if (Array.isArray(value)) return value;
  if (isDict(value)) return [...value.keys()];
  throw new TemplateSandboxError(`${what}: a ${typeName(value)} is not iterable`);
}

/** The items of `values` as texts joined with `separator`, the size checked as it grows. */
export function joined(values: Value, separator: string, budget: RenderBudget): string {
  const items = sequence(values, "join()");
  budget.step(items.length);
  let length = 0;
  const parts = items.map((item) => {
    const part = item === undefined || item === null ? "" : text(item);
    length += part.length + separator.length;
    budget.text(length - separator.length, "join()");
    return part;
  });
  return parts.join(separator);
}
