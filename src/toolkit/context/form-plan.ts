/**
 * The forms of the results, worked out again at each build from the first model call of the running turn:
 * at each call of the turn the shrinks run on the forms of the call before, so a form never rises within
 * a turn, and a shrunk result keeps what floors kept when it shrank. Nothing is stored.
 */
import type { Element } from "../../domain/elements.js";
import { ModelOutput, type Event } from "../../domain/events.js";
import { turnStarts, type Trace } from "../../domain/trace.js";
import type { ContextDraft } from "./context-draft.js";
import type { ContextPolicy } from "./context-policy.js";
import { FULL, STUBBED, type Form } from "./form.js";
import type { MeasuredPrompt, ModelLimits } from "./limits.js";
import type { Shrink } from "./shrink.js";
import { FULL_SHAPE, type ResultShape } from "./shown-result.js";

/** The shape of a shrunk result, and the shrink and the call that gave it its form. */
export interface ResultState extends ResultShape {
  /** The shrink that gave the form. */
  by: Shrink;
  /** The number of model calls before the call at which the shrink gave the form. */
  at: number;
}

/** The state of each shrunk result, by handle; a result that is not in it is full. */
export type ResultStates = ReadonlyMap<string, ResultState>;

/** What planning needs besides the draft. */
export interface Planning {
  policy: ContextPolicy;
  limits: ModelLimits;
  /** The model the calls go to: its recorded prompt counts make the estimate exact up to the last call. */
  model: string;
}

/** The result states of the next call of a stream's `trace`: each call of the running turn in turn, the next call last. */
export function planForms(draft: ContextDraft, trace: Trace, planning: Planning): ResultStates {
  const events = trace.events;
  const from = turnStarts(events).at(-1) ?? 0;
  const calls = events.flatMap((event, index) => (index >= from && ModelOutput.is(event) ? [index] : []));
  let states: ResultStates = new Map();
  for (const view of [...calls.map((index) => trace.before(index)), trace])
    states = shrinkPass(draft, view, states, planning);
  return states;
}

/** The estimated prompt tokens of a call at `view` in these states. */
export function promptTokens(draft: ContextDraft, view: Trace, states: ResultStates, planning: Planning): number {
  return planning.limits.promptTokens(draft.characters(view, states), measuredPrompt(view.events, planning.model));
}

/**
 * The real prompt tokens of the stream's last call to `model` that recorded them, with the characters its
 * prompt had, or null: from then on only the characters added are estimated.
 */
export function measuredPrompt(events: readonly Event[], model: string): MeasuredPrompt | null {
  const output = events.findLast(
    (event): event is ModelOutput =>
      ModelOutput.is(event) && event.model === model && event.usage !== null && event.promptCharacters !== null,
  );
  return output === undefined ? null : { tokens: output.usage!.promptTokens, characters: output.promptCharacters! };
}

/**
 * One pass of the shrinks at the call after `view`: over startAt, the shrinks without a `when` apply their
 * offers one at a time until the size is under target; a shrink with a `when` runs while the size is over
 * it. A pass that frees less than minGain is not made, unless without it the call would not fit.
 */
function shrinkPass(draft: ContextDraft, view: Trace, before: ResultStates, planning: Planning): ResultStates {
  const { policy, limits } = planning;
  const { startAt, target } = policy.thresholds(limits);
  const measured = measuredPrompt(view.events, planning.model);
  const { results } = draft.visible(view);
  let characters = draft.characters(view, before);
  const tokens = () => limits.promptTokens(characters, measured);
  const initial = tokens();
  const started = initial > startAt;
  const states = new Map(before);
  const at = view.events.filter((event) => ModelOutput.is(event)).length;
  for (const shrink of policy.shrink) {
    const when = shrink.when === undefined || shrink.when === null ? null : limits.tokens(shrink.when);
    const active = () => (when === null ? started && tokens() >= target : tokens() > when);
    if (!active()) continue;
    for (const [handle, form] of shrink(view, formsOf(states))) {
      const result = results.get(handle);
      const current = states.get(handle);
      // An offer that does not lower the form, or names a result the call does not show, frees nothing.
      if (result === undefined || !(form < (current?.form ?? FULL))) continue;
      const output = draft.output(result);
      const state: ResultState = {
        form,
        floors: floorsOf(output.elements, form, draft.toolOf(result), view, policy),
        by: shrink,
        at,
      };
      const freed =
        draft.result(result, current ?? FULL_SHAPE).content.length - draft.result(result, state).content.length;
      if (freed <= 0) continue;
      states.set(handle, state);
      characters -= freed;
      if (!active()) break;
    }
  }
  const gain = initial - tokens();
  const minGain = policy.minGain === null ? 0 : limits.tokens(policy.minGain);
  const fitsWithout = initial + policy.outputReserve.count <= limits.window.count;
  return gain > 0 && gain < minGain && fitsWithout ? before : states;
}

function formsOf(states: ResultStates): Map<string, Form> {
  return new Map([...states].map(([handle, state]) => [handle, state.form]));
}

/** The forms that floors lift the elements of a result to, above its own form, reading only the trace before the call. */
function floorsOf(
  elements: readonly Element[],
  form: Form,
  tool: string | null,
  view: Trace,
  policy: ContextPolicy,
): Map<string, Form> {
  const floors = new Map<string, Form>();
  for (const element of elements) {
    let lifted: Form = STUBBED;
    for (const floor of policy.protect)
      if (floor.form > lifted && floor.applies(element, tool, view)) lifted = floor.form;
    if (lifted > form) floors.set(element.id, lifted);
  }
  return floors;
}
