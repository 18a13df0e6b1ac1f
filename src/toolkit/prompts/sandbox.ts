/**
 * The sandbox of prompt templates: a prompt file is data, not code. nunjucks has no sandbox of its own, so
 * a template that reached `range.constructor` could run any JavaScript. Two guards close that:
 *
 * - at load, `unsafeReads` refuses every name, attribute and string literal that names a path to
 *   constructors and prototypes (`constructor`, `prototype`, `__proto__` and every `__` name, and the
 *   members of Object.prototype as variables), naming the line;
 * - at render, the member lookup of every template reads only data: own properties of objects, items of
 *   arrays, and the Python string and dict methods that Jinja templates use (`jinja-filters.ts`); never a
 *   member of a function. A render runs within a budget of steps, output and time (`RENDER_BUDGET`).
 */
import nunjucks from "nunjucks";
import { MAPPING_METHODS, STRING_METHODS } from "./jinja-filters.js";

/** The limits of one render: loop steps and lookups, characters of any value or the output, and time. */
export const RENDER_BUDGET = Object.freeze({
  /** Loop iterations, member lookups, calls and filters of one render. */
  steps: 200_000,
  /** The longest text a render may make, its output included. */
  characters: 1_000_000,
  /** The longest a render may run, checked every 1,024 steps. */
  milliseconds: 1_000,
  /** The most items `range()` makes, as Jinja's sandbox allows (MAX_RANGE). */
  range: 100_000,
});

/** A template that went over its render budget, or read what a template may not read. */
export class TemplateSandboxError extends Error {
  override name = "TemplateSandboxError";
}

/** One read that the sandbox refuses: what it names and the template's line (1-based). */
export interface UnsafeRead {
  name: string;
  line: number;
}

// Names a path to constructors and prototypes goes through.
function isForbiddenName(name: string): boolean {
  return name === "constructor" || name === "prototype" || name.startsWith("__");
}

// A variable lookup falls back to Object.prototype in nunjucks: its members are no variables of a prompt.
const PROTOTYPE_MEMBERS = new Set(Object.getOwnPropertyNames(Object.prototype));

interface JinjaNode {
  typename: string;
  fields: string[];
  lineno: number;
  [field: string]: unknown;
}

const parser = (nunjucks as unknown as { parser: { parse(source: string): JinjaNode } }).parser;

/** The reads of `source` that the sandbox refuses, in order. Throws the nunjucks error on invalid Jinja. */
export function unsafeReads(source: string): UnsafeRead[] {
  const found: UnsafeRead[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== "object" || typeof (value as JinjaNode).typename !== "string") return;
    const node = value as JinjaNode;
    const line = node.lineno + 1;
    if (node.typename === "Symbol") {
      const name = String(node.value);
      if (isForbiddenName(name) || PROTOTYPE_MEMBERS.has(name)) found.push({ name, line });
    } else if (node.typename === "Literal" && typeof node.value === "string") {
      // A string names an attribute too: `x["constructor"]`, `map(attribute="__proto__")`.
      for (const part of node.value.split(".")) if (isForbiddenName(part)) found.push({ name: part, line });
    }
    for (const field of node.fields) visit(node[field]);
    if (Array.isArray(node.children)) visit(node.children);
  };
  visit(parser.parse(source));
  return found;
}

// The budget of the render running now: renders are synchronous, so one at a time.
interface Running {
  steps: number;
  characters: number;
  deadline: number;
}
let running: Running | null = null;

function step(): void {
  if (running === null) return;
  running.steps += 1;
  if (running.steps > RENDER_BUDGET.steps) {
    throw new TemplateSandboxError(`the render went over its budget of ${RENDER_BUDGET.steps} steps`);
  }
  if ((running.steps & 1023) === 0 && Date.now() > running.deadline) {
    throw new TemplateSandboxError(`the render went over its budget of ${RENDER_BUDGET.milliseconds} ms`);
  }
}

/** Count a value a render made against the budget's characters; return it. */
export function checkedSize<T>(value: T): T {
  if (running !== null && typeof value === "string" && value.length > RENDER_BUDGET.characters) {
    throw new TemplateSandboxError(`the render made a text over its budget of ${RENDER_BUDGET.characters} characters`);
  }
  return value;
}

/** Count one step of a render (a filter, a call): filters call it. */
export function countStep(): void {
  step();
}

/** Run `render` within the render budget. */
export function withinBudget<T>(render: () => T): T {
  const outer = running;
  running = { steps: 0, characters: 0, deadline: Date.now() + RENDER_BUDGET.milliseconds };
  try {
    return render();
  } finally {
    running = outer;
  }
}

/** Read `key` of `value` as the sandbox allows: data only (see the module's comment). */
export function safeMember(value: unknown, key: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  step();
  const name = String(key);
  if (isForbiddenName(name)) throw new TemplateSandboxError(`the template read "${name}", which no template may read`);
  if (typeof value === "function") {
    throw new TemplateSandboxError(`the template read "${name}" of a function: a template reads members of data only`);
  }
  if (typeof value === "string") {
    if (/^\d+$/.test(name) || name === "length") return value[name as never];
    const method = Object.hasOwn(STRING_METHODS, name) ? STRING_METHODS[name] : undefined;
    if (method === undefined && name in String.prototype) {
      throw new TemplateSandboxError(
        `"${name}" is a JavaScript method; a template calls Python's str methods (${Object.keys(STRING_METHODS).join(", ")})`,
      );
    }
    return method === undefined ? undefined : (...args: unknown[]) => method(value, ...args);
  }
  if (typeof value !== "object") return undefined;
  if (Array.isArray(value)) return /^\d+$/.test(name) || name === "length" ? value[name as never] : undefined;
  if (Object.hasOwn(value, name)) {
    const member = (value as Record<string, unknown>)[name];
    return typeof member === "function" ? (...args: unknown[]) => member.apply(value, args) : member;
  }
  const method = Object.hasOwn(MAPPING_METHODS, name) ? MAPPING_METHODS[name] : undefined;
  return method === undefined ? undefined : (...args: unknown[]) => method(value as Record<string, unknown>, ...args);
}

type Runtime = {
  memberLookup(value: unknown, key: unknown): unknown;
  callWrap(value: unknown, name: string, context: unknown, args: unknown[]): unknown;
  suppressValue(value: unknown, autoescape: boolean): unknown;
  Frame: { prototype: { set(name: string, value: unknown, resolveUp?: boolean): void } };
};

let installed = false;

/**
 * Put the sandbox into nunjucks' runtime, once: compiled templates call these functions of the runtime
 * module for every member lookup, call, output and loop variable. soev-agents uses nunjucks for prompt
 * templates alone, so the stricter lookup holds for every template of the process.
 */
export function installSandbox(): void {
  if (installed) return;
  installed = true;
  const runtime = (nunjucks as unknown as { runtime: Runtime }).runtime;
  runtime.memberLookup = safeMember;
  const callWrap = runtime.callWrap;
  runtime.callWrap = (value, name, context, args) => {
    step();
    return checkedSize(callWrap(value, name, context, args));
  };
  const suppressValue = runtime.suppressValue;
  runtime.suppressValue = (value, autoescape) => {
    const shown = suppressValue(value, autoescape);
    if (running !== null) {
      running.characters += String(shown).length;
      if (running.characters > RENDER_BUDGET.characters) {
        throw new TemplateSandboxError(
          `the render's output went over its budget of ${RENDER_BUDGET.characters} characters`,
        );
      }
    }
    return shown;
  };
  const set = runtime.Frame.prototype.set;
  runtime.Frame.prototype.set = function (this: unknown, name, value, resolveUp) {
    step();
    set.call(this, name, checkedSize(value), resolveUp);
  };
}

/** `range` as Jinja's sandbox has it: at most RENDER_BUDGET.range items. */
export function safeRange(start: number, stop?: number, stepBy = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (stepBy === 0) throw new TemplateSandboxError("range() step must not be zero");
  const count = Math.max(0, Math.ceil((to - from) / stepBy));
  if (!Number.isFinite(count) || count > RENDER_BUDGET.range) {
    throw new TemplateSandboxError(`range() would make ${count} items, over the limit of ${RENDER_BUDGET.range}`);
  }
  return Array.from({ length: count }, (_, index) => from + index * stepBy);
}
