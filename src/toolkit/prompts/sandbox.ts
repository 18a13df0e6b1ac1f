/**
 * The limits of prompt templates: a prompt file is data, not code. The interpreter (jinja-interpreter.ts)
 * has no way to reach host code, so what is left to bound is work: each render gets a RenderBudget of
 * steps, characters and time, and every filter states its cost to the budget before it does the work.
 * The load check (`unsafeNames`) refuses names that are no identifiers, and the names of paths to
 * prototypes, so that a file that tries is refused with its line rather than rendered harmlessly.
 */
import { CallerError } from "../../domain/errors.js";

/** The limits of one render. */
export const RENDER_BUDGET = Object.freeze({
  /** Nodes evaluated, loop iterations, items a filter handles, calls of one render. */
  steps: 200_000,
  /** The longest text a render may make, its output included. */
  characters: 1_000_000,
  /** The most items of a list a render may make at once (range, batch, slice, list). */
  items: 100_000,
  /** The longest a render may run, checked every 1,024 steps: a last guard, never the first. */
  milliseconds: 1_000,
  /** How deep macros and blocks may call each other. */
  depth: 64,
});

/** A template that went over its render budget, or did what a template may not do. */
export class TemplateSandboxError extends CallerError {}

/** The budget of one render: each render makes its own. */
export class RenderBudget {
  private steps = 0;
  private output = 0;
  private readonly deadline = Date.now() + RENDER_BUDGET.milliseconds;

  /** Count `count` steps; throw when the render goes over its steps or its time. */
  step(count = 1): void {
    const before = this.steps;
    this.steps += count;
    if (this.steps > RENDER_BUDGET.steps) {
      throw new TemplateSandboxError(`the render went over its budget of ${RENDER_BUDGET.steps} steps`);
    }
    if (before >> 10 !== this.steps >> 10 && Date.now() > this.deadline) {
      throw new TemplateSandboxError(`the render went over its budget of ${RENDER_BUDGET.milliseconds} ms`);
    }
  }

  /** Refuse, before it is made, a text of `length` characters over the limit; `what` names its maker. */
  text(length: number, what: string): void {
    if (!(length <= RENDER_BUDGET.characters)) {
      throw new TemplateSandboxError(
        `${what} would make a text of ${length} characters: the render went over its budget of ${RENDER_BUDGET.characters} characters`,
      );
    }
  }

  /** Refuse, before it is made, a list of `count` items over the limit, and count them as steps. */
  items(count: number, what: string): void {
    if (!(count <= RENDER_BUDGET.items)) {
      throw new TemplateSandboxError(`${what} would make ${count} items, over the limit of ${RENDER_BUDGET.items}`);
    }
    this.step(Math.max(1, Math.ceil(count)));
  }

  /** Count `length` characters of output; throw when the output goes over its budget. */
  emit(length: number): void {
    this.output += length;
    if (this.output > RENDER_BUDGET.characters) {
      throw new TemplateSandboxError(
        `the render's output went over its budget of ${RENDER_BUDGET.characters} characters`,
      );
    }
  }
}

/** A name the load check refuses, and the template's line (1-based). */
export interface UnsafeName {
  name: string;
  line: number;
  why: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why the load check refuses `name` as a variable, set target, macro, argument or attribute; null when it does not. */
export function unsafeName(name: string, asIdentifier: boolean): string | null {
  if (name === "constructor" || name === "prototype" || name.startsWith("__")) {
    return "no prompt template may name constructors, prototypes or names that start with __";
  }
  if (asIdentifier && !IDENTIFIER.test(name)) {
    return "a name in a prompt template is letters, digits and _, not starting with a digit";
  }
  return null;
}

/** `range` as Jinja's sandbox has it: at most RENDER_BUDGET.items items. */
export function safeRange(budget: RenderBudget, start: number, stop?: number, stepBy = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (stepBy === 0 || !Number.isFinite(stepBy))
    throw new TemplateSandboxError("range() step must be a number, not zero");
  const count = Math.max(0, Math.ceil((to - from) / stepBy));
  if (!Number.isFinite(count) || count > RENDER_BUDGET.items) {
    throw new TemplateSandboxError(`range() would make ${count} items, over the limit of ${RENDER_BUDGET.items}`);
  }
  budget.step(count);
  return Array.from({ length: count }, (_, index) => from + index * stepBy);
}
