/**
 * Selection: some results of a trace, picked by an index or a slice of its turns, rounds or results, as
 * `turns.slice(0, -2)` (every turn but the last two) or `turns.at(-1)` (the current turn).
 */
import { ValueError } from "../../domain/errors.js";
import type { Trace } from "../../domain/trace.js";
import { resultHandles } from "../../runtime/tools/ids.js";
import { unitsOf, type Unit } from "./units.js";

/** A slice of units, as Array.prototype.slice takes it: from `start` up to (not including) `end`; negative counts from the end. */
export interface SliceKey {
  start: number | null;
  end: number | null;
}

/** Some results of a trace: the results of the units that an index or a slice picks. An index out of range picks nothing. */
export class Selection {
  /** @throws ValueError when unit is not a Unit or the key is not a whole number or a slice of whole numbers. */
  constructor(
    readonly unit: Unit,
    readonly key: number | SliceKey,
  ) {
    if (unit !== "turns" && unit !== "rounds" && unit !== "results")
      throw new ValueError(`A Selection counts "turns", "rounds" or "results", not ${JSON.stringify(unit)}.`);
    const whole = (value: unknown) => value === null || Number.isSafeInteger(value);
    const fits =
      typeof key === "number"
        ? Number.isSafeInteger(key)
        : typeof key === "object" && key !== null && whole(key.start) && whole(key.end);
    if (!fits)
      throw new ValueError(
        `A Selection of ${unit} needs a whole-number index or a slice of whole numbers, such as ${unit}.slice(0, -2).`,
      );
  }

  /** Which of `count` units this selects, counted from 0 in the order of the slice; empty when an index is out of range. */
  picked(count: number): number[] {
    if (typeof this.key === "number") {
      const index = this.key < 0 ? count + this.key : this.key;
      return index >= 0 && index < count ? [index] : [];
    }
    const from = bound(this.key.start, count, 0);
    const to = bound(this.key.end, count, count);
    return Array.from({ length: Math.max(0, to - from) }, (_, offset) => from + offset);
  }

  /** The handles, such as "r1", of each result in a selected unit of `view`, oldest first. */
  handles(view: Trace): string[] {
    const units = unitsOf(view.events, this.unit);
    const handles = resultHandles(view.thread.events);
    return this.picked(units.length)
      .sort((a, b) => a - b)
      .flatMap((index) => units[index]!.results.flatMap((callId) => handles.handleOf(callId) ?? []));
  }

  /** The selection as code writes it, such as "turns.slice(0, -2)". */
  toString(): string {
    if (typeof this.key === "number") return `${this.unit}.at(${this.key})`;
    const { start, end } = this.key;
    const parts = end === null ? [start ?? 0] : [start ?? 0, end];
    return `${this.unit}.slice(${parts.join(", ")})`;
  }
}

// Array.prototype.slice's bounds: negative counts from the end, then clamped to [0, count].
function bound(value: number | null, count: number, missing: number): number {
  if (value === null) return missing;
  return value < 0 ? Math.max(0, count + value) : Math.min(value, count);
}

/** The turns, rounds or results of a trace, as one selects them: `slice(start, end)` or `at(index)`. */
export class Units {
  constructor(readonly unit: Unit) {}

  /** The units from `start` up to (not including) `end`, as Array.prototype.slice counts them. */
  slice(start?: number, end?: number): Selection {
    return new Selection(this.unit, { start: start ?? null, end: end ?? null });
  }

  /** The unit at `index`; a negative index counts from the end, -1 is the current one. */
  at(index: number): Selection {
    return new Selection(this.unit, index);
  }
}

/** The turns of a trace, the current one last: `turns.slice(0, -2)` selects the results of every turn but the last two. */
export const turns = new Units("turns");
/** The rounds of a trace, the current one last: `rounds.slice(0, -3)` selects the results of every round but the last three. */
export const rounds = new Units("rounds");
/** The results of a trace, in recorded order: `results.slice(0, -3)` selects every result but the newest three. */
export const results = new Units("results");
