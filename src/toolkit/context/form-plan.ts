/**
 * Form planning: the forms of the results, worked out again at each build from the first model call of the
 * running turn. At each call of the turn the shrinks run on the forms of the call before, so a form never rises
 * within a turn, and a shrunk result keeps what floors kept when it shrank.
 */
import type { Element } from "../../domain/elements.js";
import type { Event, ToolOutput } from "../../domain/events.js";
import { extendsList } from "../../domain/lists.js";
import type { Trace } from "../../domain/trace.js";
import { handleNumber } from "../../runtime/tools/ids.js";
import type { ContextPolicy } from "./context-policy.js";
import { FULL, type Form, STUBBED } from "./forms.js";
import type { MeasuredPrompt, ModelLimits } from "./limits.js";
import { FULL_SHAPE } from "./render.js";
import type { ContextDraft } from "./context-draft.js";
import type {
  ClosedOffers,
  OfferDecision,
  PassTrail,
  PlannedForms,
  ResultState,
  ResultStates,
  ShownPlace,
  ShrinkTrail,
  Sizes,
} from "./draft-types.js";
import { keyOf, withForm } from "./result-shapes.js";
import { citedAmong } from "./thread-cache.js";
import { type FormsByHandle, type Shrink, cited, citedFrom, selectionOffers } from "./shrink.js";

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
 * Result states at their handle's number, listed in the order they were set: passes and layouts read them in
 * handle order. Only shown results get a state, and their handles are r1, r2, ...
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

/** No result shrunk: the forms of a build without limits, which change nothing from every result full. */
export function noForms(): PlannedForms {
  return { states: new Map(), sizeChange: { characters: 0, shortened: 0 }, closed: new Map(), startedFrom: undefined };
}

/**
 * The forms of the next call of a stream's `trace`: a pass at each call of the running turn in turn, the next
 * call last. A pass depends only on its view, so the passes of views an earlier build planned are reused.
 */
export function planForms(draft: ContextDraft, trace: Trace, planning: Planning): PlannedForms {
  const events = trace.events;
  const known = draft.cache.passesFor(draft.planningParts(planning.model));
  const kept = new Map<Event, Map<number, PlannedForms>>();
  let forms = noForms();
  for (const [call, end] of callEnds(draft, events).entries()) {
    const last = events[end - 1];
    const found = last === undefined ? undefined : known.get(last)?.get(end);
    forms =
      found ??
      shrinkPass({
        draft,
        view: end === events.length ? trace : draft.before(trace, end),
        before: forms,
        planning,
        call,
      });
    if (last === undefined) continue;
    const byLength = kept.get(last) ?? new Map<number, PlannedForms>();
    kept.set(last, byLength.set(end, forms));
  }
  draft.cache.passes = kept;
  return forms;
}

// The end of the view of each call of the running turn: each model output of the turn, then the next call's.
function callEnds(draft: ContextDraft, events: readonly Event[]): number[] {
  const from = draft.cache.units.turnStarts(events).at(-1) ?? 0;
  const ends: number[] = [];
  const byPlace = draft.cache.keptIn(events);
  for (let index = from; index < events.length; index += 1)
    if (draft.cache.keptAt(events, byPlace, index).kind.modelOutput) ends.push(index);
  ends.push(events.length);
  return ends;
}

/** What one pass reads: the draft, the view of its call, the forms of the call before, and the call's number. */
interface PassInput {
  draft: ContextDraft;
  view: Trace;
  before: PlannedForms;
  planning: Planning;
  /** The call of the running turn: 0 for its first. */
  call: number;
}

/**
 * One pass of the shrinks at a call of the running turn: over startAt, the shrinks without a `when` apply their
 * offers one at a time until the size is under target; a shrink with a `when` runs while the size is over it. A
 * pass that frees less than minGain is not made, unless without it the call would not fit. A turn's first pass
 * takes what the last turn's first pass decided where it holds, and resumes from its forms where all of it holds;
 * where a check finds otherwise, the pass is made again without resuming.
 */
function shrinkPass(input: PassInput): PlannedForms {
  return new ShrinkPass(input, true).run() ?? new ShrinkPass(input, false).run()!;
}

/** The state of one shrink pass while it runs (see shrinkPass). */
class ShrinkPass {
  private readonly policy: ContextPolicy;
  private readonly limits: ModelLimits;
  private readonly target: number;
  private readonly measured: MeasuredPrompt | null;
  private readonly visible: ReturnType<ContextDraft["visible"]>;
  /** The characters of the context in the states so far, and in the states of the call before. */
  private characters: number;
  private readonly initial: number;
  private readonly started: boolean;
  private readonly first: boolean;
  /** The last turn's first pass, where its decisions hold for this one (see holdsFor). */
  private readonly earlier: PassTrail | undefined;
  /** The results that show an element cited since the earlier pass, or undefined where none does. */
  private readonly touched: ReadonlySet<ToolOutput> | undefined;
  /** Whether this pass resumes from the earlier pass's forms, reading each shrink's offers from where it stopped. */
  private readonly resumes: boolean;
  private readonly touchedHandles: readonly (string | undefined)[];
  /** The forms this pass grows from: the call before's, or the earlier pass's where it resumes. */
  private readonly base: PlannedForms;
  private change: Sizes | undefined;
  private states: GrownStates | undefined;
  private readonly trail: OfferDecision[][] = [];
  private readonly shrinkTrails: (ShrinkTrail | undefined)[] = [];
  private readonly changedHandles: string[] = [];
  private readonly closed = new Map<Shrink, ClosedOffers>();

  constructor(
    private readonly input: PassInput,
    resume: boolean,
  ) {
    const { draft, view, before, planning, call } = input;
    ({ policy: this.policy, limits: this.limits } = planning);
    const { startAt, target } = this.policy.thresholds(this.limits);
    this.target = target;
    this.measured = draft.cache.measuredPrompt(view.events, planning.model);
    this.visible = draft.visible(view);
    this.characters = draft.characters(view, before);
    this.initial = this.tokens();
    this.started = this.initial > startAt;
    this.first = call === 0;
    this.earlier = this.first ? this.holdingTrail(draft.cache.firstPass) : undefined;
    const citedSince =
      this.earlier === undefined ? new Set<string>() : citedFrom(view.events, this.earlier.events.length);
    // Found once by id rather than by reading every result offered; reopen results count, as they may draw one in.
    this.touched = citedSince.size === 0 ? undefined : draft.cache.resultsHolding(citedSince);
    this.resumes =
      resume &&
      this.earlier !== undefined &&
      this.policy.shrink.every((shrink) => selectionOffers(shrink) !== undefined);
    this.touchedHandles =
      !this.resumes || this.touched === undefined
        ? []
        : [...this.touched].map((result) => draft.cache.keptOf(result).handle);
    this.base = this.resumes && this.earlier!.forms.states.size > 0 ? this.earlier!.forms : before;
    this.change = before.sizeChange;
    if (this.base !== before) this.states = this.grow();
  }

  // The last first pass, if its decisions hold: the view shows what it showed, and each floor applies as it did
  // then (with only `cited` floors, a result none of whose elements was cited since is kept as it was).
  private holdingTrail(earlier: PassTrail | undefined): PassTrail | undefined {
    const { view } = this.input;
    const holds =
      earlier !== undefined &&
      earlier.policy === this.policy &&
      earlier.summary === this.visible.summary &&
      this.policy.protect.every((floor) => floor.applies === cited) &&
      extendsList(earlier.events, view.events) &&
      extendsList(earlier.shown, this.visible.events);
    return holds ? earlier : undefined;
  }

  private tokens(): number {
    return this.limits.promptTokens(this.characters, this.measured);
  }

  // The states this pass sets, made when the first offer is taken (most later calls of a turn take none).
  private grow(): GrownStates {
    if (this.change !== undefined) this.change = { ...this.change };
    return new GrownStates(this.base.states);
  }

  private current(): ResultStates {
    return this.states ?? this.input.before.states;
  }

  // Take away what a decision (or the decisions taken again) freed.
  private free(freed: number, shortened: number): void {
    this.characters -= freed;
    if (this.change !== undefined) {
      this.change.characters -= freed;
      this.change.shortened += shortened;
    }
  }

  /** Run each shrink in turn: the forms planned, or undefined where what the pass resumed from does not hold. */
  run(): PlannedForms | undefined {
    for (const [index, shrink] of this.policy.shrink.entries()) if (!this.runShrink(index, shrink)) return undefined;
    return this.finish();
  }

  // Whether the shrink at `index` runs at the size so far.
  private active(shrink: Shrink): boolean {
    const when = shrink.when === undefined || shrink.when === null ? null : this.limits.tokens(shrink.when);
    return when === null ? this.started && this.tokens() >= this.target : this.tokens() > when;
  }

  // Run one shrink: false where the pass must be made again without resuming.
  private runShrink(index: number, shrink: Shrink): boolean {
    const decided: OfferDecision[] = [];
    if (this.first) this.trail.push(decided);
    const known = this.input.before.closed.get(shrink);
    const last = this.resumes ? this.earlier!.shrinks[index] : undefined;
    if (!this.active(shrink)) {
      // The forms resumed from hold what the last pass's shrink took, which this one does not reach.
      if (last !== undefined && last.freed > 0) return false;
      // Forms only fall within a turn: what was closed before still is.
      if (known !== undefined) this.closed.set(shrink, known);
      if (this.first) this.shrinkTrails.push(undefined);
      return true;
    }
    const offered = this.offersOf(shrink);
    const read: OfferReading = { index, shrink, decided, offered, start: 0, open: -1, freed: 0, shortened: 0 };
    // A later call of the turn starts after the offers closed at the call before: on a long thread, nearly all.
    if (known !== undefined && !this.first && extendsList(known.offers, offered.offers as readonly string[]))
      read.start = known.count;
    if (last !== undefined) {
      const taken = this.takeLast(read, last);
      if (taken !== "read on") return taken;
    }
    const reached = this.readOffers(read);
    if (reached === undefined) return false;
    const offers = offered.offers as readonly string[];
    if (offered.selection !== undefined) this.closed.set(shrink, { offers, count: read.open });
    if (this.first) {
      const { open, freed, shortened } = read;
      this.shrinkTrails.push(offered.selection === undefined ? undefined : { offers, reached, open, freed, shortened });
    }
    return true;
  }

  // A shrink's offers. A built-in one (Compress, Stub) is read here handle by handle, not asked for a list of
  // offers: a turn's first pass on a long thread would make one pair per result.
  private offersOf(shrink: Shrink): ShrinkOffers {
    const { draft, view } = this.input;
    const selection = selectionOffers(shrink);
    if (selection !== undefined) {
      const offers = selection.where.handles(view, { handles: draft.cache.handles, units: draft.cache.units });
      return { selection, offers, forms: undefined, lazy: false };
    }
    const forms = new FormsOf(this.current());
    const offers = shrink(view, forms);
    return { selection, offers, forms, lazy: !Array.isArray(offers) };
  }

  // Take the last first pass's decisions of this shrink again at once: the same offers from the same states, unless
  // a decision this pass made anew set the state of one of them, or one was of a result that shows an element cited
  // since. Whether to make the pass again (false), go on to the next shrink (true), or read the offers on.
  private takeLast(read: OfferReading, last: ShrinkTrail): boolean | "read on" {
    const offers = read.offered.offers as readonly string[];
    if (!extendsList(last.offers, offers)) return false;
    const readBefore = (handle: string | undefined) => {
      const at = handle === undefined ? -1 : last.offers.indexOf(handle);
      return at >= 0 && at < last.reached;
    };
    if (this.changedHandles.some(readBefore) || this.touchedHandles.some(readBefore)) return false;
    const past = this.earlier!.offers[read.index]!;
    read.decided = this.trail[read.index] = past.slice();
    [read.start, read.freed, read.shortened] = [last.reached, last.freed, last.shortened];
    read.open = last.open < last.reached ? last.open : -1;
    this.free(last.freed, last.shortened);
    if (this.active(read.shrink)) return "read on";
    // Forms fall one offer at a time, so this pass stops where the last one did (after its last decision, a taken
    // one, where it had offers left), or it stops before and decides there anew.
    const taken = past.at(-1);
    if (last.reached === last.offers.length || taken === undefined || taken.state === null) return false;
    this.characters += taken.freed;
    const activeBeforeIt = this.active(read.shrink);
    this.characters -= taken.freed;
    if (!activeBeforeIt) return false;
    this.closed.set(read.shrink, { offers, count: last.open });
    this.shrinkTrails.push({ ...last, offers });
    return true;
  }

  // Read a shrink's offers from `read.start` on, deciding each, until they run out or the shrink stops: how many it
  // read, or undefined where the pass must be made again without resuming.
  private readOffers(read: OfferReading): number | undefined {
    const { offered, index } = read;
    const { selection, offers } = offered;
    // A list is read by index; an iterator (a shrink of the application's) step by step.
    const iterator = Array.isArray(offers) ? undefined : offers[Symbol.iterator]();
    for (let at = read.start; ; at += 1) {
      const offer =
        iterator === undefined ? (offers as readonly (string | readonly [string, Form])[])[at] : nextOf(iterator);
      if (offer === undefined) {
        if (read.open < 0) read.open = at;
        return at;
      }
      const handle = typeof offer === "string" ? offer : offer[0];
      const form = typeof offer === "string" ? selection!.to : offer[1];
      const current = this.current().get(handle);
      // A state that a later shrink of the last pass gave: this pass would offer the result before it had it.
      if (this.resumes && current !== undefined && this.policy.shrink.indexOf(current.by) > index) return undefined;
      if (selection !== undefined && !selection.offers(current?.form ?? FULL)) continue;
      const decision = this.decision(read, handle, form, current);
      if (this.first) read.decided.push(decision);
      if (decision.state === null) {
        if (read.open < 0) read.open = at;
        continue;
      }
      this.take(read, handle, decision);
      if (!this.active(read.shrink)) {
        if (read.open < 0) read.open = at + 1;
        return at + 1;
      }
    }
  }

  // The decision of an offer: the last first pass's, where it was the same offer from the same state, or a new one.
  private decision(read: OfferReading, handle: string, form: Form, current: ResultState | undefined): OfferDecision {
    const { results } = this.visible;
    const same = this.earlier?.offers[read.index]?.[read.decided.length];
    const holds =
      same !== undefined &&
      same.handle === handle &&
      same.form === form &&
      same.current === current &&
      (same.result !== undefined || !results.has(handle)) &&
      (this.touched === undefined || same.result === undefined || !this.touched.has(same.result));
    if (holds) return same;
    const { draft, view, call } = this.input;
    return decide(draft, view, this.policy, { handle, form, current, place: results.place(handle) }, read.shrink, call);
  }

  // Set the state an offer decided.
  private take(read: OfferReading, handle: string, decision: OfferDecision): void {
    if (read.offered.lazy) read.offered.forms!.keep();
    this.states ??= this.grow();
    this.states.set(handle, decision.state!);
    this.changedHandles.push(handle);
    read.freed += decision.freed;
    read.shortened += decision.shortened;
    this.free(decision.freed, decision.shortened);
  }

  // Note the trail of a first pass, and give the forms: the call before's where the pass set none or gained less
  // than minGain though the call fits without it.
  private finish(): PlannedForms {
    const { before } = this.input;
    const { states, change, closed } = this;
    const kept: PlannedForms = { ...before, closed };
    const made: PlannedForms | undefined =
      states === undefined
        ? undefined
        : {
            states,
            sizeChange: change,
            closed,
            // A first pass made anew starts from forms made for it (planForms), which no layout was laid out in: a
            // walk back from a later pass's forms ends at it.
            startedFrom:
              !this.first || this.base !== before ? { before: this.base, changed: this.changedHandles } : undefined,
          };
    const gain = this.initial - this.tokens();
    const minGain = this.policy.minGain === null ? 0 : this.limits.tokens(this.policy.minGain);
    const fitsWithout = this.initial + this.policy.outputReserve.count <= this.limits.window.count;
    const tooSmall = gain > 0 && gain < minGain && fitsWithout;
    if (this.first) this.keepTrail(made === undefined ? kept : tooSmall ? { ...made, startedFrom: undefined } : made);
    if (made === undefined) return kept;
    return tooSmall ? before : made;
  }

  private keepTrail(forms: PlannedForms): void {
    const { draft, view } = this.input;
    const { events: shown, summary } = this.visible;
    const { policy, trail: offers, shrinkTrails: shrinks } = this;
    draft.cache.firstPass = { events: view.events, shown, summary, policy, offers, shrinks, forms };
  }
}

/** A shrink's offers at a pass: those of a built-in one's selection, or what the shrink gave, and its forms. */
interface ShrinkOffers {
  selection: ReturnType<typeof selectionOffers>;
  offers: Iterable<string | readonly [string, Form]>;
  /** The forms a shrink of the application's was asked with; `lazy` where it reads them as it yields its offers. */
  forms: FormsOf | undefined;
  lazy: boolean;
}

/** How far a pass read one shrink's offers, and what its decisions freed. */
interface OfferReading {
  index: number;
  shrink: Shrink;
  /** The decisions of a first pass, in order. */
  decided: OfferDecision[];
  offered: ShrinkOffers;
  start: number;
  /** The first offer left open (not taken, or not reached), or -1 while none is. */
  open: number;
  freed: number;
  shortened: number;
}

// The next value of an iterator of offers, or undefined once it is done (an offer is never undefined).
function nextOf<T>(iterator: Iterator<T>): T | undefined {
  const next = iterator.next();
  return next.done === true ? undefined : next.value;
}

// What an offer frees: nothing when it names a result the call does not show, or does not lower its form.
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
  const { result, kept } = place;
  // Floors that lift to FULL alone lift the same elements whatever the form: a state decided at this call (at this
  // view) has them already.
  const same = current !== undefined && current.call === call && policy.protect.every((floor) => floor.form === FULL);
  const floors = same
    ? current.floors
    : floorsOf(draft, draft.output(result, kept).elements, form, draft.toolOf(result, kept), view, policy);
  const key = same ? withForm(current.key, form) : keyOf(form, floors);
  const state: ResultState = { form, floors, by, call, key };
  const was = draft.result(result, current ?? FULL_SHAPE, kept);
  const is = draft.result(result, state, kept);
  const freed = was.length - is.length;
  if (freed <= 0) return { handle, form, current, result, state: null, freed: 0, shortened: 0 };
  return { handle, form, current, result, state, freed, shortened: Number(is.shortened) - Number(was.shortened) };
}

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
  // A copy of its length: a shrunk result keeps its floors as long as its thread.
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

  override forEach(each: (form: Form, id: string, map: ReadonlyMap<string, Form>) => void, self?: unknown): void {
    for (let at = 0; at < this.pairs.length; at += 2)
      each.call(self, this.pairs[at + 1] as Form, this.pairs[at] as string, this);
  }
}
