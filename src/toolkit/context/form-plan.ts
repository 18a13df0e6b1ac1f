/**
 * Form planning: the forms of the results, worked out again at each build from the first model call of the
 * running turn. At each call of the turn the shrinks run on the forms of the call before, so a form never rises
 * within a turn, and a shrunk result keeps what floors kept when it shrank. Also the measured prompt that makes
 * each pass's estimate exact up to the last call.
 */
import type { Element } from "../../domain/elements.js";
import { type Event, ModelOutput, ToolOutput } from "../../domain/events.js";
import { extendsList } from "../../domain/lists.js";
import type { Trace } from "../../domain/trace.js";
import { handleNumber } from "../../runtime/tools/ids.js";
import type { ContextPolicy } from "./context-policy.js";
import { FULL, type Form, STUBBED } from "./forms.js";
import type { MeasuredPrompt, ModelLimits } from "./limits.js";
import { FULL_SHAPE, type ResultShape } from "./render.js";
import type { ContextDraft, ShownPlace, Sizes } from "./context-draft.js";
import { type ThreadCache, citedAmong } from "./thread-cache.js";
import {
  type FormsByHandle,
  RecentLists,
  type Shrink,
  cited,
  citedFrom,
  selectionOffers,
  turnStartsOf,
} from "./shrink.js";

/** A shape as a key: two shapes with the same form and floors show a result the same. */
export function shapeKey(shape: ResultShape): string {
  return (shape as Partial<ResultState>).key ?? keyOf(shape.form, shape.floors);
}

// A form is one digit: the key is that digit, then each floor's id and form.
function keyOf(form: Form, floors: ReadonlyMap<string, Form>): string {
  let key = String(form);
  if (floors.size > 0) floors.forEach((lifted, id) => (key += `\u0000${id}\u0000${lifted}`));
  return key;
}

// The key of the same floors with another form: its first digit replaced.
function withForm(key: string, form: Form): string {
  return String(form) + key.slice(1);
}

/** The shape of a shrunk result, and the shrink and the call that gave it its form. */
export interface ResultState extends ResultShape {
  /** The shrink that gave the form. */
  by: Shrink;
  /** The call of the running turn at which the shrink gave the form: 0 for the turn's first. */
  call: number;
  /** The shape as a key (shapeKey), made with the state: a shrunk result's state lives on from build to build. */
  key: string;
}

/** The state of each shrunk result, by handle; a result that is not in it is full. */
export type ResultStates = ReadonlyMap<string, ResultState>;

/**
 * The Map methods that follow from `size`, `get` and `entries`, for the maps a pass keeps in lists (result states by
 * handle, a result's floors by element id); no value is undefined.
 */
abstract class ListedMap<V> implements ReadonlyMap<string, V> {
  abstract readonly size: number;
  abstract get(key: string): V | undefined;
  abstract entries(): MapIterator<[string, V]>;

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(each: (value: V, key: string, map: ReadonlyMap<string, V>) => void, self?: unknown): void {
    for (const [key, value] of this.entries()) each.call(self, value, key, this);
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
}

/**
 * Result states at their handle's number, listed in the order they were set: a pass and a layout read them in
 * handle order, from a list rather than a table as large as the thread (which at tens of thousands of results
 * misses the processor's caches). Only shown results get a state, and their handles are r1, r2, ...
 */
class StatesByNumber extends ListedMap<ResultState> {
  private readonly byNumber: (ResultState | undefined)[] = [];
  private readonly handles: string[] = [];

  /** A copy of `states`, listed in their order. */
  static of(states: ResultStates): StatesByNumber {
    const copy = new StatesByNumber();
    for (const [handle, state] of states) copy.set(handle, state);
    return copy;
  }

  get size(): number {
    return this.handles.length;
  }

  get(handle: string): ResultState | undefined {
    return this.byNumber[handleNumber(handle)];
  }

  set(handle: string, state: ResultState): this {
    const number = handleNumber(handle);
    if (number === 0) throw new Error(`A result state needs a result's handle, such as "r1", not "${handle}".`);
    if (this.byNumber[number] === undefined) this.handles.push(handle);
    this.byNumber[number] = state;
    return this;
  }

  *entries(): MapIterator<[string, ResultState]> {
    for (const handle of this.handles) yield [handle, this.get(handle)!];
  }
}

/**
 * Result states made from others and the states set since, without copying the others: a long thread's first
 * pass goes on from the last one's thousands of states and sets a few. The states it is made from are never
 * changed (a pass's states are final once it returns); once those set since grow to a quarter of them, they are
 * copied into one list.
 */
class GrownStates extends ListedMap<ResultState> {
  private readonly base: ResultStates;
  private readonly own = new StatesByNumber();

  constructor(from: ResultStates) {
    super();
    if (!(from instanceof GrownStates)) this.base = from;
    // States grown from none are their own: final, like every pass's states once it returns.
    else if (from.base.size === 0) this.base = from.own;
    else if (from.own.size * 4 > from.base.size) this.base = StatesByNumber.of(from);
    else {
      this.base = from.base;
      for (const [handle, state] of from.own) this.own.set(handle, state);
    }
  }

  get size(): number {
    let added = 0;
    for (const handle of this.own.keys()) if (!this.base.has(handle)) added += 1;
    return this.base.size + added;
  }

  get(handle: string): ResultState | undefined {
    return this.own.get(handle) ?? this.base.get(handle);
  }

  set(handle: string, state: ResultState): this {
    this.own.set(handle, state);
    return this;
  }

  *entries(): MapIterator<[string, ResultState]> {
    for (const [handle, state] of this.base) yield [handle, this.own.get(handle) ?? state];
    for (const entry of this.own) if (!this.base.has(entry[0])) yield entry;
  }
}

/** What planning needs besides the draft. */
export interface Planning {
  policy: ContextPolicy;
  limits: ModelLimits;
  /** The model the calls go to: its recorded prompt counts make the estimate exact up to the last call. */
  model: string;
}

/**
 * The result states of the next call of a stream's `trace`: each call of the running turn in turn, the next
 * call last. A pass depends only on its view, so the passes of views an earlier build planned are reused.
 */
export function planForms(draft: ContextDraft, trace: Trace, planning: Planning): ResultStates {
  const events = trace.events;
  const from = turnStartsOf(events).at(-1) ?? 0;
  const ends: number[] = [];
  const byPlace = draft.cache.factsIn(events);
  for (let index = from; index < events.length; index += 1)
    if (draft.cache.factsAt(events, byPlace, index).kind.modelOutput) ends.push(index);
  ends.push(events.length);
  const known = draft.cache.passesFor(draft.planningParts(planning.model));
  const kept = new Map<Event, Map<number, ResultStates>>();
  let states: ResultStates = new Map();
  sizeChanges.set(states, { characters: 0, shortened: 0 });
  for (const [call, end] of ends.entries()) {
    const last = events[end - 1];
    const found = last === undefined ? undefined : known.get(last)?.get(end);
    states =
      found ?? shrinkPass(draft, end === events.length ? trace : draft.before(trace, end), states, planning, call);
    if (last === undefined) continue;
    const byLength = kept.get(last) ?? new Map<number, ResultStates>();
    kept.set(last, byLength.set(end, states));
  }
  draft.cache.passes = kept;
  return states;
}

/**
 * The real prompt tokens of the stream's last call to `model` that recorded them, with the characters its
 * prompt had, or null: from then on only the characters added are estimated.
 */
export function measuredPrompt(events: readonly Event[], model: string, facts?: ThreadCache): MeasuredPrompt | null {
  let byModel = measuredByEvents.get(events);
  if (byModel === undefined) measuredByEvents.set(events, (byModel = new Map()));
  let measured = byModel.get(model);
  if (measured === undefined) {
    // The events appended since a list asked about before are searched; before them, its answer holds.
    let recent = recentMeasured.get(model);
    if (recent === undefined) recentMeasured.set(model, (recent = new RecentLists()));
    const last = recent.extended(events);
    const from = last?.events.length ?? 0;
    const byPlace = facts?.factsIn(events);
    const isOutput = (event: Event, index: number) =>
      byPlace !== undefined
        ? byPlace[index]!.kind.modelOutput
        : (facts?.factsOf(event).kind.modelOutput ?? ModelOutput.is(event));
    let output: ModelOutput | undefined;
    for (let index = events.length - 1; index >= from && output === undefined; index -= 1) {
      const event = events[index]!;
      if (
        isOutput(event, index) &&
        (event as ModelOutput).model === model &&
        (event as ModelOutput).usage !== null &&
        (event as ModelOutput).promptCharacters !== null
      )
        output = event as ModelOutput;
    }
    measured =
      output !== undefined
        ? { tokens: output.usage!.promptTokens, characters: output.promptCharacters! }
        : (last?.value ?? null);
    byModel.set(model, measured);
    recent.remember(events, measured);
  }
  return measured;
}

// Each pass of a build and the build itself ask about the same events: each list is searched once per model.
const measuredByEvents = new WeakMap<readonly Event[], Map<string, MeasuredPrompt | null>>();
const recentMeasured = new Map<string, RecentLists<MeasuredPrompt | null>>();

/**
 * What the first pass of a turn decided of each offer, shrink by shrink, in order. The first pass of the next
 * turn starts from the same forms (every result full) on a view that extends this one, so an offer of the
 * same result from the same state decides the same: its decision is taken, not made again.
 */
export interface PassTrail {
  /** The events of the pass's view, and those it showed: a view that extends both shows their results the same. */
  events: readonly Event[];
  shown: readonly Event[];
  summary: string | null;
  policy: ContextPolicy;
  /** Each shrink's offers, in the order it made them, with what was decided. */
  offers: OfferDecision[][];
  /** What each shrink read and freed, where it is a built-in one that ran: the next first pass may go on from it. */
  shrinks: (ShrinkTrail | undefined)[];
  /** The states the pass made (those it returned, unless minGain left them out). */
  states: ResultStates;
}

/** What one shrink of a turn's first pass did: the offers it made, how far it read them, and what it freed. */
interface ShrinkTrail {
  offers: readonly string[];
  /** How many of the offers it read, and the first it left open (not taken, or not reached). */
  reached: number;
  open: number;
  /** The characters its decisions freed, and the change in results shown shortened. */
  freed: number;
  shortened: number;
}

/** One offer of a shrink and what the pass decided of it. */
interface OfferDecision {
  handle: string;
  form: Form;
  /** The result's state when it was offered (undefined: full). */
  current: ResultState | undefined;
  /** The result the handle named, or undefined when the call did not show it. */
  result: ToolOutput | undefined;
  /** The state the result went to, or null when the offer was skipped. */
  state: ResultState | null;
  /** The characters it freed, and the change in results shown shortened. */
  freed: number;
  shortened: number;
}

/**
 * One pass of the shrinks at call `call` of the running turn (0 for its first), whose view is `view`: over
 * startAt, the shrinks without a `when` apply their offers one at a time until the size is under target; a
 * shrink with a `when` runs while the size is over it. A pass that frees less than minGain is not made,
 * unless without it the call would not fit. A turn's first pass takes what the last one decided where it holds,
 * and goes on from its states where all of it holds (`goOn`; where a check finds otherwise, the pass is made again
 * without).
 */
function shrinkPass(
  draft: ContextDraft,
  view: Trace,
  before: ResultStates,
  planning: Planning,
  call: number,
  goOn = true,
): ResultStates {
  const { policy, limits } = planning;
  const { startAt, target } = policy.thresholds(limits);
  const measured = measuredPrompt(view.events, planning.model, draft.cache);
  const { results, events: shown, summary } = draft.visible(view);
  let characters = draft.characters(view, before);
  const tokens = () => limits.promptTokens(characters, measured);
  const initial = tokens();
  const started = initial > startAt;
  const first = call === 0;
  const earlier = first ? draft.cache.firstPass : undefined;
  // A decision holds where the view shows what the earlier one showed, and each floor applies as it did then:
  // with only `cited` floors, a result none of whose elements was cited since is kept as it was.
  const holds =
    earlier !== undefined &&
    earlier.policy === policy &&
    earlier.summary === summary &&
    policy.protect.every((floor) => floor.applies === cited) &&
    extendsList(earlier.events, view.events) &&
    extendsList(earlier.shown, shown);
  const citedSince = holds ? citedFrom(view.events, earlier.events.length) : new Set<string>();
  // The results that hold an element cited since (and the reopen results, which may draw one in), found once by id
  // rather than by reading every result offered.
  const touched = citedSince.size === 0 ? undefined : draft.cache.resultsHolding(citedSince);
  const keeps = (result: ToolOutput | undefined) =>
    touched === undefined || result === undefined || !touched.has(result);
  // Where every decision of the last first pass holds (none of a result that shows an element cited since, whose
  // handles are `touchedHandles`) and every shrink is a built-in one, this pass starts from the states it made and
  // reads each shrink's offers from where it stopped: a long thread's first pass would otherwise take some thousand
  // decisions again, one at a time. Its states may list their entries in another order than a pass made anew: they
  // are read by handle, and sorted where listed.
  const replay = goOn && holds && policy.shrink.every((shrink) => selectionOffers(shrink) !== undefined);
  const touchedHandles =
    !replay || touched === undefined ? [] : [...touched].map((result) => draft.cache.factsOf(result).handle);
  const again = () => shrinkPass(draft, view, before, planning, call, false);
  // The states this pass grows from, and its own (with what they change), made when the first offer is taken (most
  // later calls of a turn take none), or at once where it goes on from the last first pass's.
  const base = replay && earlier.states.size > 0 ? earlier.states : before;
  let change = sizeChanges.get(before);
  const grow = () => {
    if (change !== undefined) change = { ...change };
    return new GrownStates(base);
  };
  let states = base === before ? undefined : grow();
  const trail: OfferDecision[][] = [];
  const shrinkTrails: (ShrinkTrail | undefined)[] = [];
  const closedBefore = closedOffers.get(before);
  const changedHandles: string[] = [];
  const closed = new Map<Shrink, ClosedOffers>();
  for (const [index, shrink] of policy.shrink.entries()) {
    let decided: OfferDecision[] = [];
    if (first) trail.push(decided);
    const when = shrink.when === undefined || shrink.when === null ? null : limits.tokens(shrink.when);
    const active = () => (when === null ? started && tokens() >= target : tokens() > when);
    const known = closedBefore?.get(shrink);
    const last = replay ? earlier.shrinks[index] : undefined;
    if (!active()) {
      // The states gone on from hold what the last pass's shrink took, which this one does not reach.
      if (last !== undefined && last.freed > 0) return again();
      // Forms only fall within a turn: what was closed before still is.
      if (known !== undefined) closed.set(shrink, known);
      if (first) shrinkTrails.push(undefined);
      continue;
    }
    // A built-in shrink (Compress, Stub) is read here handle by handle, not asked for a list of offers: a turn's
    // first pass on a long thread would make one pair per result.
    const selection = selectionOffers(shrink);
    const forms = selection === undefined ? new FormsOf(states ?? before) : undefined;
    const offers: Iterable<string | readonly [string, Form]> =
      selection === undefined ? shrink(view, forms!) : selection.where.handles(view);
    const lazy = selection === undefined && !Array.isArray(offers);
    const past = holds ? earlier.offers[index] : undefined;
    // A list is read by index: a pass reads each result's offer, and an iterator's step is an object each time.
    const iterator = Array.isArray(offers) ? undefined : offers[Symbol.iterator]();
    // A later call of the turn starts after the offers closed at the call before: on a long thread, nearly all.
    let start =
      known !== undefined && !first && extendsList(known.offers, offers as readonly string[]) ? known.count : 0;
    // The first offer left open: one not taken, or not reached.
    let open = -1;
    let freed = 0;
    let shortened = 0;
    if (last !== undefined) {
      // The last first pass's decisions of this shrink, taken again at once: the same offers from the same states,
      // unless a decision this pass made anew (`changedHandles`) set the state of one of them, or one was of a result
      // that shows an element cited since.
      if (!extendsList(last.offers, offers as readonly string[])) return again();
      const readBefore = (handle: string | undefined) => {
        const at = handle === undefined ? -1 : last.offers.indexOf(handle);
        return at >= 0 && at < last.reached;
      };
      if (changedHandles.some(readBefore) || touchedHandles.some(readBefore)) return again();
      trail[index] = decided = past!.slice();
      [start, freed, shortened] = [last.reached, last.freed, last.shortened];
      open = last.open < last.reached ? last.open : -1;
      characters -= freed;
      if (change !== undefined) {
        change.characters -= freed;
        change.shortened += shortened;
      }
      if (!active()) {
        // Forms fall one offer at a time, so this pass stops where the last one did (after its last decision, a
        // taken one, where it had offers left), or it stops before and decides there anew.
        const taken = past!.at(-1);
        if (last.reached === last.offers.length || taken === undefined || taken.state === null) return again();
        characters += taken.freed;
        const stopsHere = active();
        characters -= taken.freed;
        if (!stopsHere) return again();
        closed.set(shrink, { offers: offers as readonly string[], count: last.open });
        shrinkTrails.push({ ...last, offers: offers as readonly string[] });
        continue;
      }
    }
    let reached = start;
    for (let at = start; ; at += 1) {
      const offer =
        iterator === undefined ? (offers as readonly (string | readonly [string, Form])[])[at] : nextOf(iterator);
      if (offer === undefined) {
        if (open < 0) open = at;
        reached = at;
        break;
      }
      const handle = typeof offer === "string" ? offer : offer[0];
      const form = typeof offer === "string" ? selection!.to : offer[1];
      const current = (states ?? before).get(handle);
      // A state that a later shrink of the last pass gave: this pass would offer the result before it had it.
      if (replay && current !== undefined && policy.shrink.indexOf(current.by) > index) return again();
      if (selection !== undefined && !selection.offers(current?.form ?? FULL)) continue;
      const same = past?.[decided.length];
      const decision =
        same !== undefined &&
        same.handle === handle &&
        same.form === form &&
        same.current === current &&
        (same.result !== undefined || !results.has(handle)) &&
        keeps(same.result)
          ? same
          : decide(draft, view, policy, { handle, form, current, place: results.place(handle) }, shrink, call);
      if (first) decided.push(decision);
      if (decision.state === null) {
        if (open < 0) open = at;
        continue;
      }
      if (lazy) forms!.keep();
      states ??= grow();
      states.set(handle, decision.state);
      changedHandles.push(handle);
      characters -= decision.freed;
      freed += decision.freed;
      shortened += decision.shortened;
      if (change !== undefined) {
        change.characters -= decision.freed;
        change.shortened += decision.shortened;
      }
      if (!active()) {
        if (open < 0) open = at + 1;
        reached = at + 1;
        break;
      }
    }
    if (selection !== undefined) closed.set(shrink, { offers: offers as readonly string[], count: open });
    if (first)
      shrinkTrails.push(
        selection === undefined ? undefined : { offers: offers as readonly string[], reached, open, freed, shortened },
      );
  }
  if (first)
    draft.cache.firstPass = {
      events: view.events,
      shown,
      summary,
      policy,
      offers: trail,
      shrinks: shrinkTrails,
      states: states ?? before,
    };
  const gain = initial - tokens();
  const minGain = policy.minGain === null ? 0 : limits.tokens(policy.minGain);
  const fitsWithout = initial + policy.outputReserve.count <= limits.window.count;
  if (states === undefined) closedOffers.set(before, closed);
  if (states === undefined || (gain > 0 && gain < minGain && fitsWithout)) return before;
  if (change !== undefined) sizeChanges.set(states, change);
  closedOffers.set(states, closed);
  // A first pass made anew starts from states made for it (planForms), which no layout was laid out in: a walk back
  // from a later pass's states ends at it. One that went on from the last first pass's states changed those.
  if (!first || base !== before) startedFrom.set(states, { before: base, changed: changedHandles });
  return states;
}

/** The states each pass started from, and the handles whose state it set: a layout finds what changed since its last. */
const startedFrom = new WeakMap<
  ReadonlyMap<string, ResultShape>,
  { before: ResultStates; changed: readonly string[] }
>();

/**
 * The handles whose state may differ between `earlier` and `later`, when passes made `later` from `earlier` in a few
 * steps; else undefined.
 */
export function changedSince(
  earlier: ReadonlyMap<string, ResultShape>,
  later: ReadonlyMap<string, ResultShape>,
): string[] | undefined {
  const changed: string[] = [];
  for (let states = later, steps = 0; states !== earlier; steps += 1) {
    const step = startedFrom.get(states);
    if (step === undefined || steps === 8) return undefined;
    for (const handle of step.changed) changed.push(handle);
    states = step.before;
  }
  return changed;
}

/**
 * The index of the first of `results` (their handles' numbers rising) that a handle of `changed` names and whose
 * shape in `shapes` shows it otherwise (another key), or the length of `results`; a result in a shape of the same
 * key takes that shape, as layoutOn does.
 */
export function firstChanged(
  results: readonly { handle: string; shape: ResultShape }[],
  changed: readonly string[],
  shapes: ReadonlyMap<string, ResultShape>,
): number {
  let first = results.length;
  for (const handle of changed) {
    const number = handleNumber(handle);
    // Found by halves: the results' handles rise in number.
    let low = 0;
    let high = results.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (handleNumber(results[middle]!.handle) < number) low = middle + 1;
      else high = middle;
    }
    const laidOut = results[low];
    const shape = shapes.get(handle) ?? FULL_SHAPE;
    if (laidOut?.handle !== handle || shape === laidOut.shape) continue;
    if (shapeKey(shape) === shapeKey(laidOut.shape)) laidOut.shape = shape;
    else first = Math.min(first, low);
  }
  return first;
}

/** A built-in shrink's offers at a pass, and how many of the first are closed: each result at or below its form. */
interface ClosedOffers {
  offers: readonly string[];
  count: number;
}

/** The closed offers of each built-in shrink in the states a pass gave (or kept), by shrink. */
const closedOffers = new WeakMap<ResultStates, Map<Shrink, ClosedOffers>>();

// The next value of an iterator of offers, or undefined once it is done (an offer is never undefined).
function nextOf<T>(iterator: Iterator<T>): T | undefined {
  const next = iterator.next();
  return next.done === true ? undefined : next.value;
}

// What an offer frees: nothing when it names a result the call does not show, or does not lower its form.
// Decisions are made as one literal shape: the next turn's first pass reads many of them.
function decide(
  draft: ContextDraft,
  view: Trace,
  policy: ContextPolicy,
  offer: Pick<OfferDecision, "handle" | "form" | "current"> & { place: ShownPlace | undefined },
  by: Shrink,
  call: number,
): OfferDecision {
  const { handle, form, current, place } = offer;
  if (place === undefined || !(form < (current?.form ?? FULL)))
    return { handle, form, current, result: place?.result, state: null, freed: 0, shortened: 0 };
  const { result, facts } = place;
  // Floors that lift to FULL alone lift the same elements whatever the form: a state decided at this call (at this
  // view) has them already.
  const same = current !== undefined && current.call === call && policy.protect.every((floor) => floor.form === FULL);
  const floors = same
    ? current.floors
    : floorsOf(draft, draft.output(result, facts).elements, form, draft.toolOf(result, facts), view, policy);
  const key = same ? withForm(current.key, form) : keyOf(form, floors);
  const state: ResultState = { form, floors, by, call, key };
  const was = draft.result(result, current ?? FULL_SHAPE, facts);
  const is = draft.result(result, state, facts);
  const freed = was.length - is.length;
  if (freed <= 0) return { handle, form, current, result, state: null, freed: 0, shortened: 0 };
  return { handle, form, current, result, state, freed, shortened: Number(is.shortened) - Number(was.shortened) };
}

/** No result shrunk: the states of a build without limits, which change nothing from every result full. */
export function noStates(): ResultStates {
  const states: ResultStates = new Map();
  sizeChanges.set(states, { characters: 0, shortened: 0 });
  return states;
}

/** What the states change from every result full: characters, and results shown shortened; kept with each pass's states. */
export const sizeChanges = new WeakMap<ReadonlyMap<string, ResultShape>, Sizes>();

// The form of each result in `states`, read from them, as they were when the shrink was asked: a shrink that
// returns an array has read them all by then, and for one that reads them later they are copied before they
// change (`keep`).
class FormsOf implements FormsByHandle {
  private states: ResultStates;
  private kept = false;

  constructor(states: ResultStates) {
    this.states = states;
  }

  /** Keep the forms as they are now, before the states change. */
  keep(): void {
    if (this.kept) return;
    this.states = new Map(this.states);
    this.kept = true;
  }

  get size(): number {
    return this.states.size;
  }

  get(handle: string): Form | undefined {
    return this.states.get(handle)?.form;
  }

  has(handle: string): boolean {
    return this.states.has(handle);
  }

  *entries(): MapIterator<[string, Form]> {
    for (const [handle, state] of this.states) yield [handle, state.form];
  }

  keys(): MapIterator<string> {
    return this.states.keys();
  }

  *values(): MapIterator<Form> {
    for (const state of this.states.values()) yield state.form;
  }

  forEach(each: (form: Form, handle: string, map: ReadonlyMap<string, Form>) => void, self?: unknown): void {
    for (const [handle, state] of this.states) each.call(self, state.form, handle, this);
  }

  [Symbol.iterator](): MapIterator<[string, Form]> {
    return this.entries();
  }
}

/**
 * The forms that floors lift the elements of a result to, above its own form, reading only the trace before
 * the call; one shared empty map when there are none, since a shrunk result's state is kept with its thread.
 */
function floorsOf(
  draft: ContextDraft,
  elements: readonly Element[],
  form: Form,
  tool: string | null,
  view: Trace,
  policy: ContextPolicy,
): ReadonlyMap<string, Form> {
  let lifts: (string | Form)[] | undefined;
  const protect = policy.protect;
  // The `cited` floor is answered from the cache's flags by element number: the same answer, read in order.
  const sources = protect.some((floor) => floor.applies === cited) ? draft.cache.citedIn(view.events) : undefined;
  // Indexed loops: a pass asks this of every result it shrinks, and an iterator is an object each time.
  for (let index = 0; index < elements.length; index += 1) {
    const element = elements[index]!;
    let lifted: Form = STUBBED;
    for (let at = 0; at < protect.length; at += 1) {
      const floor = protect[at]!;
      if (floor.form <= lifted) continue;
      const applies =
        floor.applies === cited
          ? citedAmong(sources!, element, draft.cache.numbering)
          : floor.applies(element, tool, view);
      if (applies) lifted = floor.form;
    }
    if (lifted > form) (lifts ??= []).push(element.id, lifted);
  }
  // A copy of its length: a list grown by push keeps room for more.
  return lifts === undefined ? FULL_SHAPE.floors : new ListedFloors(lifts.slice());
}

/**
 * The floors of one result, in one list of ids and forms of its length: a shrunk result's state keeps them as
 * long as its thread is kept, and a Map for its one or two lifted elements holds more than the rest of the state.
 */
class ListedFloors extends ListedMap<Form> {
  // Each id, then its form.
  constructor(private readonly pairs: readonly (string | Form)[]) {
    super();
  }

  get size(): number {
    return this.pairs.length / 2;
  }

  get(id: string): Form | undefined {
    for (let at = 0; at < this.pairs.length; at += 2) if (this.pairs[at] === id) return this.pairs[at + 1] as Form;
    return undefined;
  }

  *entries(): MapIterator<[string, Form]> {
    for (let at = 0; at < this.pairs.length; at += 2) yield [this.pairs[at] as string, this.pairs[at + 1] as Form];
  }

  // Indexed: each shrunk result's key reads its floors (keyOf), and a generator's step is an object each time.
  override forEach(each: (form: Form, id: string, map: ReadonlyMap<string, Form>) => void, self?: unknown): void {
    for (let at = 0; at < this.pairs.length; at += 2)
      each.call(self, this.pairs[at + 1] as Form, this.pairs[at] as string, this);
  }
}
