/**
 * Result shapes as keys, and what changed between two planned forms: a layout keeps the messages of the results
 * whose shape is the same as when it laid them out last.
 */
import { handleNumber } from "../../runtime/tools/ids.js";
import type { Form } from "./forms.js";
import { FULL_SHAPE, type ResultShape } from "./render.js";
import type { PlannedForms, ResultState } from "./draft-types.js";

/** A shape as a key: two shapes with the same form and floors show a result the same. */
export function shapeKey(shape: ResultShape): string {
  return (shape as Partial<ResultState>).key ?? keyOf(shape.form, shape.floors);
}

/** The key of a form and its floors: the form's digit, then each floor's id and form. */
export function keyOf(form: Form, floors: ReadonlyMap<string, Form>): string {
  let key = String(form);
  if (floors.size > 0) floors.forEach((lifted, id) => (key += `\u0000${id}\u0000${lifted}`));
  return key;
}

/** The key of the same floors with another form: its first digit replaced. */
export function withForm(key: string, form: Form): string {
  return String(form) + key.slice(1);
}

/** How many passes a walk back from later forms to earlier ones follows before it gives up. */
const MAX_STEPS_BACK = 8;

/**
 * The handles whose state may differ between `earlier` and `later`, when passes made `later` from `earlier` in a few
 * steps; else undefined.
 */
export function changedSince(earlier: PlannedForms, later: PlannedForms): string[] | undefined {
  const changed: string[] = [];
  for (let forms = later, steps = 0; forms.states !== earlier.states; steps += 1) {
    const step = forms.startedFrom;
    if (step === undefined || steps === MAX_STEPS_BACK) return undefined;
    for (const handle of step.changed) changed.push(handle);
    forms = step.before;
  }
  return changed;
}

/**
 * The index of the first of `results` (their handles' numbers rising) that a handle of `changed` names and whose
 * shape in `shapes` shows it otherwise (another key), or the length of `results`; a result in a shape of the same
 * key takes that shape, as the layout does.
 */
export function firstChanged(
  results: readonly { handle: string; shape: ResultShape }[],
  changed: readonly string[],
  shapes: ReadonlyMap<string, ResultShape>,
): number {
  let first = results.length;
  for (const handle of changed) {
    const at = indexOfHandle(results, handleNumber(handle));
    const laidOut = results[at];
    const shape = shapes.get(handle) ?? FULL_SHAPE;
    if (laidOut?.handle !== handle || shape === laidOut.shape) continue;
    if (shapeKey(shape) === shapeKey(laidOut.shape)) laidOut.shape = shape;
    else first = Math.min(first, at);
  }
  return first;
}

// The index of the first result whose handle's number is `number` or more, found by halves.
function indexOfHandle(results: readonly { handle: string }[], number: number): number {
  let low = 0;
  let high = results.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (handleNumber(results[middle]!.handle) < number) low = middle + 1;
    else high = middle;
  }
  return low;
}
