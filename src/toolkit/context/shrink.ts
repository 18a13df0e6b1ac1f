/**
 * Shrinks: functions that offer results to lower to a smaller form, oldest first. The builder asks its
 * shrinks while the context is too big and applies their offers one at a time, so a shrink never decides
 * when to stop.
 */
import { ValueError } from "../../domain/errors.js";
import type { Trace } from "../../domain/trace.js";
import { COMPRESSED, FULL, STUBBED, type Form } from "./form.js";
import { Share, Tokens, type Threshold } from "./limits.js";
import { Selection } from "./selection.js";

/** The form of each result so far, by handle ("r1", ...); a result that is not in it is full. */
export type FormsByHandle = ReadonlyMap<string, Form>;

/**
 * A function that offers results to shrink, each with the form it goes to, in the order to try them. An
 * offer that raises a form, or that frees nothing, is skipped. A shrink with a `when` starts when the
 * context is over it and stops when it no longer is; without one it follows the policy's startAt and target.
 */
export interface Shrink {
  (view: Trace, forms: FormsByHandle): Iterable<readonly [string, Form]>;
  /** The size above which this shrink runs, or null/absent to follow the policy's startAt and target. */
  readonly when?: Threshold | null;
}

/** A built-in shrink: the results its selection picks go to one form. */
export interface SelectionShrink extends Shrink {
  (view: Trace, forms: FormsByHandle): [string, Form][];
  readonly where: Selection;
  readonly when: Threshold | null;
}

/** The settings of Compress and Stub besides `where`. */
export interface ShrinkOptions {
  /** The size of the context above which it runs, or null to follow the policy's startAt and target. */
  when?: Threshold | null;
}

/** A shrink that compresses each full result that `where` selects, oldest first. */
export function Compress(where: Selection, options: ShrinkOptions = {}): SelectionShrink {
  return selectionShrink("Compress", where, options, COMPRESSED, (form) => form === FULL);
}

/** A shrink that stubs each result that `where` selects and that is not stubbed yet, oldest first: one line that names its handle. */
export function Stub(where: Selection, options: ShrinkOptions = {}): SelectionShrink {
  return selectionShrink("Stub", where, options, STUBBED, (form) => form !== STUBBED);
}

function selectionShrink(
  kind: string,
  where: Selection,
  options: ShrinkOptions,
  to: Form,
  offers: (form: Form) => boolean,
): SelectionShrink {
  if (!(where instanceof Selection))
    throw new ValueError(`${kind} needs a Selection, such as ${kind}(turns.slice(0, -2)).`);
  const when = options.when ?? null;
  checkThreshold(when, `${kind}'s when`, true);
  const shrink = (view: Trace, forms: FormsByHandle): [string, Form][] =>
    where
      .handles(view)
      .filter((handle) => offers(forms.get(handle) ?? FULL))
      .map((handle) => [handle, to]);
  const label = `${kind}(${where.toString()}${when === null ? "" : `, { when: ${String(when)} }`})`;
  Object.defineProperty(shrink, "name", { value: label });
  return Object.assign(shrink, { where, when, toString: () => label });
}

/** @throws ValueError when a value is not a Threshold (or null, where allowed). */
export function checkThreshold(value: unknown, name: string, nullable: boolean): void {
  if (value instanceof Share || value instanceof Tokens || (nullable && value === null)) return;
  throw new ValueError(`${name} must be a Share or Tokens, such as new Share(0.6)${nullable ? ", or null" : ""}.`);
}
