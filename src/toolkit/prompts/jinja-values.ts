/**
 * The values a prompt template works on, all the interpreter's own: strings, numbers, booleans, null and
 * undefined, arrays, dicts (a Map: a lookup finds only the keys it holds), and callables that the
 * interpreter itself made (filters' helpers, macros, Python's methods). A render converts its variables to
 * these at the start (`fromHost`), so no template value is a host object: nothing a template reads has a
 * prototype, a constructor or a getter, and nothing it calls was written outside the allow-list.
 */
import { RENDER_BUDGET, TemplateSandboxError, type RenderBudget } from "./sandbox.js";

/** Keyword and positional arguments of one call. */
export interface Arguments {
  readonly positional: readonly Value[];
  readonly keywords: ReadonlyMap<string, Value>;
}

/** A function the interpreter made: a macro, a bound Python method, `range`, `cycler`. */
export class Callable {
  constructor(
    /** The name errors give it. */
    readonly name: string,
    /** The work: it gets the call's arguments and the render's budget. */
    readonly invoke: (args: Arguments, budget: RenderBudget) => Value,
  ) {
    Object.freeze(this);
  }
}

/** A dict of a template: a Map, so that a lookup reads only the keys it holds. */
export type Dict = Map<string, Value>;

/** A value of a template. */
export type Value = undefined | null | boolean | number | string | Value[] | Dict | Callable;

/** No arguments. */
export const NO_ARGUMENTS: Arguments = Object.freeze({ positional: [], keywords: new Map() });

/** Whether `value` is a dict. */
export function isDict(value: Value): value is Dict {
  return value instanceof Map;
}

/**
 * Convert a render's variable to a template value: data is copied (own enumerable properties of objects),
 * anything else refused. `where` names the variable in the error. Each item counts against the budget.
 */
export function fromHost(value: unknown, where: string, budget: RenderBudget, depth = 0): Value {
  budget.step();
  if (depth > 64) throw new TemplateSandboxError(`the variable ${where} is nested deeper than 64 levels`);
  if (value === undefined || value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map((item, index) => fromHost(item, `${where}[${index}]`, budget, depth + 1));
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") {
    const dict: Dict = new Map();
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== "function") dict.set(key, fromHost(item, `${where}.${key}`, budget, depth + 1));
    }
    return dict;
  }
  throw new TemplateSandboxError(`the variable ${where} holds a ${typeof value}: a template reads data only`);
}

/** The value as JavaScript's String() writes it, as nunjucks printed and concatenated values. */
export function text(value: Value): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return listText(value);
  if (value instanceof Callable) return `[function ${value.name}]`;
  return "[object Object]";
}

// A list as Array.prototype.join writes it, refused once it grows over the budget's characters.
function listText(list: readonly Value[]): string {
  let length = 0;
  const parts = list.map((item) => {
    const part = item === undefined || item === null ? "" : text(item);
    length += part.length + 1;
    if (length > RENDER_BUDGET.characters) {
      throw new TemplateSandboxError(
        `a list's text would go over the budget of ${RENDER_BUDGET.characters} characters`,
      );
    }
    return part;
  });
  return parts.join(",");
}

/** Truth as nunjucks had it (JavaScript's): every array and dict is true, even an empty one. */
export function truthy(value: Value): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return false;
  return !(typeof value === "number" && Number.isNaN(value));
}

/** A number of the value, as JavaScript arithmetic coerces the primitives; other values are refused. */
export function numeric(value: Value, what: string): number {
  if (typeof value === "number") return value;
  if (typeof value === "string") return Number(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === null) return 0;
  if (value === undefined) return Number.NaN;
  throw new TemplateSandboxError(`${what}: a ${typeName(value)} is no number`);
}

/** The name of a value's type in error messages. */
export function typeName(value: Value): string {
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return "list";
  if (isDict(value)) return "dict";
  if (value instanceof Callable) return "function";
  return typeof value;
}

/** Equality as nunjucks' `==` had it for primitives (JavaScript's loose equality); arrays and dicts by identity. */
export function equal(left: Value, right: Value): boolean {
  const primitive = (value: Value) => value === null || value === undefined || typeof value !== "object";
  if (primitive(left) && primitive(right)) return left == right;
  return left === right;
}

/** Order of two primitives as nunjucks had it (JavaScript's `<`); lists and dicts are refused. */
export function less(left: Value, right: Value): boolean {
  // JavaScript's `<` on primitives runs no code; on a list or dict it would call their methods.
  const orderable = (value: Value) => value === null || value === undefined || typeof value !== "object";
  if (!orderable(left) || !orderable(right)) {
    throw new TemplateSandboxError(`cannot compare a ${typeName(left)} with a ${typeName(right)}`);
  }
  return (left as number) < (right as number);
}
