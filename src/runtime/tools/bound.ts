/**
 * Bound values: what the application's code gives a tool with `.bind({...})`, never the model. A bound
 * value must not change, because one tool object serves every thread and a thread can continue in
 * another process: a value that changes would carry state from one call to the next.
 */
import { ValueError } from "../../domain/errors.js";
import { UnboundToolError } from "../errors.js";

/** The declaration of one bound value of type T: `bound: { library: bound<Library>() }`. */
export interface Bound<T> {
  readonly kind: "bound";
  /** Carries T for the type checker only; never set. */
  readonly valueType?: T;
}

/** Declare a bound value of type T, given later with the tool's `.bind({...})`. */
export function bound<T>(): Bound<T> {
  return Object.freeze({ kind: "bound" as const });
}

/** Whether a value is a bound-value declaration. */
export function isBound(value: unknown): value is Bound<unknown> {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "bound";
}

/** The values that declarations of bound values stand for. */
export type BoundValues<B> = { [K in keyof B]: B[K] extends Bound<infer T> ? T : never };

// Built-ins that stay mutable even when frozen: Object.freeze does not stop set(), add() or setTime().
const ALWAYS_MUTABLE: readonly [new (...args: any[]) => object, string][] = [
  [Map, "a Map"],
  [Set, "a Set"],
  [WeakMap, "a WeakMap"],
  [WeakSet, "a WeakSet"],
  [Date, "a Date"],
  [ArrayBuffer, "an ArrayBuffer"],
];

/**
 * Refuse a value that can keep state between calls: an array or a plain object that is not frozen (deeply),
 * a Map, a Set, a Date or a binary buffer. Primitives, functions and frozen values pass. Instances of other
 * classes pass unchecked: make sure that their fields do not change.
 */
export function checkBindable(tool: string, name: string, value: unknown): void {
  const problem = mutability(value);
  if (problem === null) return;
  throw new ValueError(
    `bind refuses the value of "${name}" for tool "${tool}": it is ${problem}, which can change and keep state ` +
      `from one call to the next. Give a value that does not change: freeze it deeply (Object.freeze), or use ` +
      `an object whose fields do not change.`,
    { details: { tool, name } },
  );
}

function mutability(value: unknown, seen = new Set<object>()): string | null {
  if (value === undefined) return "undefined";
  if (value === null || typeof value !== "object") return null;
  if (seen.has(value)) return null;
  seen.add(value);
  for (const [type, description] of ALWAYS_MUTABLE) if (value instanceof type) return description;
  if (ArrayBuffer.isView(value)) return "a binary array";
  const isArray = Array.isArray(value);
  const prototype: unknown = Object.getPrototypeOf(value);
  if (!isArray && prototype !== Object.prototype && prototype !== null) return null;
  const description = isArray ? "an array" : "a plain object";
  if (!Object.isFrozen(value)) return `${description} that is not frozen`;
  for (const item of Object.values(value)) {
    const inner = mutability(item, seen);
    if (inner !== null && inner !== "undefined") return `${description} that holds ${inner}`;
  }
  return null;
}

/** The error for a tool whose values nothing bound: it names the tool, the values and the fix. */
export function unboundError(tool: string, names: readonly string[]): UnboundToolError {
  const listed = names.map((name) => `"${name}"`).join(", ");
  const example = names.map((name) => `${name}: ...`).join(", ");
  return new UnboundToolError(
    `Tool "${tool}" has values that nothing bound: ${listed}. Give them with ${tool}.bind({ ${example} }) before an agent uses the tool.`,
    { details: { tool, values: [...names] } },
  );
}
