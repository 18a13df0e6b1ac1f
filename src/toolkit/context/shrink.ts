/**
 * Which results shrink: the units a trace's results are counted in (turns, rounds, results), the Selection
 * of some of them, the shrinks that offer selected results to a smaller form (Compress, Stub), the floors
 * that keep some elements higher (Floor, cited), and Shrunk, which says why a result has its form.
 */
import type { Element } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import { Compaction, type Event, Input, ModelOutput, Reopened, ToolOutput } from "../../domain/events.js";
import { appended, extendsList, lineageOf, sharedLength } from "../../domain/lists.js";
import type { GrowingIndex, Trace } from "../../domain/trace.js";
import type { Stream } from "../../domain/events.js";
import { type Handles, THREAD_HANDLES } from "../../runtime/tools/ids.js";
import { COMPRESSED, FULL, type Form, STUBBED, isForm } from "./forms.js";
import { Share, type Threshold, Tokens } from "./limits.js";

// Units: the turns, rounds or results of a stream's events, which context management counts the age of results in.

/**
 * What context management counts the age of results in. A turn starts at a fresh input, a round at a model
 * output that calls tools, and a result is one result.
 */
export type Unit = "turns" | "rounds" | "results";

/** One unit of a stream: the index of its first event, and the call ids of its results in recorded order. */
export interface UnitSpan {
  start: number;
  results: string[];
}

/** What the context code asks of an event's type, again and again: found once per type. */
export interface EventKind {
  readonly input: boolean;
  readonly modelOutput: boolean;
  readonly compaction: boolean;
  readonly reopened: boolean;
  /** Whether the event is a tool's result (a ToolOutput). */
  readonly result: boolean;
}

// Every kind, by its flags as bits (input 1, model output 2, compaction 4, reopened 8, result 16): the events of a
// thread share these few frozen records rather than keep one each.
const KINDS: readonly EventKind[] = Object.freeze(
  Array.from({ length: 32 }, (_, bits) =>
    Object.freeze({
      input: (bits & 1) !== 0,
      modelOutput: (bits & 2) !== 0,
      compaction: (bits & 4) !== 0,
      reopened: (bits & 8) !== 0,
      result: (bits & 16) !== 0,
    }),
  ),
);

/** The kind of an event, as the `is` of its types answers (subtypes declared later included). */
export function kindOf(event: Event): EventKind {
  const type = (event as { type?: unknown }).type as string;
  // The built-in types' own names, which no later declaration changes the kind of, need no lookup.
  switch (type) {
    case "input":
      return KINDS[1]!;
    case "model-output":
      return KINDS[2]!;
    case "tool-output":
      return KINDS[16]!;
  }
  const bits =
    (Input.names.has(type) ? 1 : 0) |
    (ModelOutput.names.has(type) ? 2 : 0) |
    (Compaction.names.has(type) ? 4 : 0) |
    (Reopened.names.has(type) ? 8 : 0) |
    (ToolOutput.names.has(type) ? 16 : 0);
  return KINDS[bits]!;
}

/** The call id of a result, or null for a result without one and for any other event. */
export function resultOf(event: Event): string | null {
  return kindOf(event).result ? (event as ToolOutput).callId : null;
}

/**
 * What was found of the last few lists of events asked about, most recent first. A builder asks about the
 * lists of a few traces in turn (a thread's, a cut of it, an input checked alone), each of which usually
 * extends one asked about before: the answer goes on from the longest such list's.
 */
export class RecentLists<T> {
  private recent: { events: readonly Event[]; value: T }[] = [];
  // The longest list asked about on each lineage (domain/lists.ts), with what was found of it: the lists of the
  // threads a worker serves in turn each keep theirs, however many threads take turns.
  private readonly longest = new WeakMap<object, { events: readonly Event[]; value: T }>();

  /** The longest recent list that `events` extends, with what was found of it. */
  extended(events: readonly Event[]): { events: readonly Event[]; value: T } | undefined {
    const lineage = lineageOf(events);
    const onLineage = lineage === undefined ? undefined : this.longest.get(lineage);
    let found = onLineage !== undefined && extendsList(onLineage.events, events) ? onLineage : undefined;
    for (const entry of this.recent)
      if ((found === undefined || entry.events.length > found.events.length) && extendsList(entry.events, events))
        found = entry;
    return found;
  }

  /** Keep what was found of `events`, as the most recent. */
  remember(events: readonly Event[], value: T): void {
    const lineage = lineageOf(events);
    const longest = lineage === undefined ? undefined : this.longest.get(lineage);
    if (lineage !== undefined && (longest === undefined || longest.events.length <= events.length))
      this.longest.set(lineage, { events, value });
    // A list asked about again and again (a floor asks once per element) is the most recent already.
    if (this.recent[0]?.events === events) return;
    this.recent = [{ events, value }, ...this.recent.filter((entry) => entry.events !== events)].slice(0, 4);
  }
}

/**
 * A value folded over a list of events, made once for each list. A list usually extends one asked about
 * before by the events appended since: then the fold goes on from its value (a copy, by `carry`).
 */
export function foldedOver<T>(
  initial: () => T,
  carry: (value: T) => T,
  add: (value: T, event: Event, index: number) => T,
): (events: readonly Event[]) => T {
  const byEvents = new WeakMap<readonly Event[], T>();
  const recent = new RecentLists<T>();
  // A floor asks once per element of a view: the list asked about last is answered without a lookup.
  let last: { events: readonly Event[]; value: T } | undefined;
  return (events) => {
    if (last?.events === events) return last.value;
    let value = byEvents.get(events);
    if (value === undefined) {
      const earlier = recent.extended(events);
      const from = earlier?.events.length ?? 0;
      value = earlier === undefined ? initial() : carry(earlier.value);
      for (let index = from; index < events.length; index += 1) value = add(value, events[index]!, index);
      byEvents.set(events, value);
    }
    recent.remember(events, value);
    last = { events, value };
    return value;
  };
}

/** The index of each input that starts a turn, in order. */
export function turnStartsIn(events: readonly Event[]): number[] {
  const starts: number[] = [];
  for (let index = 0; index < events.length; index += 1) if (kindOf(events[index]!).input) starts.push(index);
  return starts;
}

/** A function that finds turnStartsIn once for each list of events, going on from a list it extends. */
export function turnStartsFold(): (events: readonly Event[]) => readonly number[] {
  return foldedOver<number[]>(
    () => [],
    (starts) => [...starts],
    (starts, event, index) => {
      if (kindOf(event).input) starts.push(index);
      return starts;
    },
  );
}

/** How many model outputs a list of events holds. */
export function modelOutputsIn(events: readonly Event[]): number {
  let count = 0;
  for (const event of events) if (kindOf(event).modelOutput) count += 1;
  return count;
}

/** The units of a stream's events, oldest first, the current one last. Events before the first of each unit belong to none. */
export function unitsOf(events: readonly Event[], unit: Unit): readonly UnitSpan[] {
  return findUnits(events, unit, turnStartsIn);
}

/**
 * The units of the lists of events asked about, found once for each list and unit: the shrinks of one build ask
 * about the same views many times, and each view usually extends one asked about before. Its owner (a thread's
 * cache, or a Selection) bounds it: lists are held weakly, and a few recent ones per unit.
 */
export class UnitIndex {
  private readonly byEvents = new WeakMap<readonly Event[], Map<Unit, readonly UnitSpan[]>>();
  private readonly recent: Record<Unit, RecentLists<readonly UnitSpan[]>> = {
    turns: new RecentLists(),
    rounds: new RecentLists(),
    results: new RecentLists(),
  };
  /** The turn starts of each list asked about. */
  readonly turnStarts = turnStartsFold();

  /** The units of `events`, as unitsOf finds them. */
  unitsOf(events: readonly Event[], unit: Unit): readonly UnitSpan[] {
    let byUnit = this.byEvents.get(events);
    if (byUnit === undefined) this.byEvents.set(events, (byUnit = new Map()));
    let units = byUnit.get(unit);
    if (units === undefined) {
      const recent = this.recent[unit];
      const extended = unit === "rounds" ? undefined : recent.extended(events);
      const earlier = extended && { events: extended.events, units: extended.value };
      byUnit.set(unit, (units = findUnits(events, unit, this.turnStarts, earlier)));
      recent.remember(events, units);
    }
    return units;
  }
}

// The units of `events`; of turns and results, those of an earlier list that `events` extends are kept, but its last
// turn. The list is appended to the earlier one (domain/lists.ts): the selections' handles tell they extend theirs.
function findUnits(
  events: readonly Event[],
  unit: Unit,
  turnStarts: (events: readonly Event[]) => readonly number[],
  earlier?: { events: readonly Event[]; units: readonly UnitSpan[] },
): readonly UnitSpan[] {
  const added: UnitSpan[] = [];
  if (unit === "results") {
    for (let index = earlier?.events.length ?? 0; index < events.length; index += 1) {
      const callId = resultOf(events[index]!);
      if (callId !== null) added.push({ start: index, results: [callId] });
    }
    return earlier === undefined ? added : appended(earlier.units, added);
  }
  if (unit === "turns") {
    const starts = turnStarts(events);
    const kept = earlier === undefined ? 0 : Math.max(0, earlier.units.length - 1);
    for (let at = kept; at < starts.length; at += 1)
      added.push({ start: starts[at]!, results: resultsIn(events, starts[at]!, starts[at + 1] ?? events.length) });
    return earlier === undefined ? added : appended(earlier.units, added, kept);
  }
  const rounds: UnitSpan[] = [];
  const roundOf = new Map<string, UnitSpan>();
  events.forEach((event, index) => {
    const kind = kindOf(event);
    if (kind.modelOutput && (event as ModelOutput).toolCalls.length > 0) {
      const round: UnitSpan = { start: index, results: [] };
      rounds.push(round);
      for (const call of (event as ModelOutput).toolCalls) roundOf.set(call.id, round);
    } else {
      const callId = resultOf(event);
      if (callId !== null) roundOf.get(callId)?.results.push(callId);
    }
  });
  return rounds;
}

function resultsIn(events: readonly Event[], from: number, to: number): string[] {
  const found: string[] = [];
  for (let index = from; index < to; index += 1) {
    const callId = resultOf(events[index]!);
    if (callId !== null) found.push(callId);
  }
  // A copy of its length: a turn's results are kept with its thread.
  return found.slice();
}

// Selection: some results of a trace, picked by an index or a slice of its turns, rounds or results, as
// `turns.slice(0, -2)` (every turn but the last two) or `turns.at(-1)` (the current turn).

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
    const [from, to] = this.range(count);
    const picked: number[] = [];
    for (let index = from; index < to; index += 1) picked.push(index);
    return picked;
  }

  // The units picked of `count`, from `from` up to (not including) `to`: an index or a slice picks a run.
  private range(count: number): [number, number] {
    if (typeof this.key !== "number") return [bound(this.key.start, count, 0), bound(this.key.end, count, count)];
    const index = this.key < 0 ? count + this.key : this.key;
    return index >= 0 && index < count ? [index, index + 1] : [0, 0];
  }

  // The handles found at the last view: the next view's units usually keep those picked then, and add some.
  private lastFound: { units: readonly UnitSpan[]; from: number; to: number; handles: readonly string[] } | undefined;
  // The units of the views asked about without a thread's index (a shrink called on its own).
  private readonly ownUnits = new UnitIndex();

  /**
   * The handles, such as "r1", of each result in a selected unit of `view`, oldest first. A builder gives the
   * indexes it keeps of the view's thread; without them the thread's own handles and this selection's units serve.
   */
  handles(view: Trace, indexes?: ThreadIndexes): readonly string[] {
    const units = (indexes?.units ?? this.ownUnits).unitsOf(view.events, this.unit);
    const handles = indexes?.handles ?? view.thread.index(THREAD_HANDLES);
    const [from, to] = this.range(units.length);
    const last = this.lastFound;
    // The same unit objects hold the same results: only the units picked since are looked up. Units appended to the
    // last ones are known to start with them; others are compared.
    let kept = last !== undefined && last.from === from && last.to <= to ? last.to : from;
    if (kept > from && sharedLength(last!.units, units) < kept)
      for (let index = from; index < kept; index += 1) if (units[index] !== last!.units[index]) kept = from;
    // A list once answered is never changed: one that gains handles is a copy.
    if (kept === to && kept !== from) {
      this.lastFound = { units, from, to, handles: last!.handles };
      return last!.handles;
    }
    const added: string[] = [];
    for (let index = kept; index < to; index += 1)
      for (const callId of units[index]!.results) {
        const handle = handles.handleOf(callId);
        if (handle !== undefined) added.push(handle);
      }
    // Appended to the last handles: a pass tells its offers extend the last pass's without comparing them.
    const found = kept === from ? added : appended(last!.handles, added);
    this.lastFound = { units, from, to, handles: found };
    return found;
  }

  /** The selection as code writes it, such as "turns.slice(0, -2)". */
  toString(): string {
    if (typeof this.key === "number") return `${this.unit}.at(${this.key})`;
    const { start, end } = this.key;
    const parts = end === null ? [start ?? 0] : [start ?? 0, end];
    return `${this.unit}.slice(${parts.join(", ")})`;
  }
}

/** What a builder keeps of a thread that a selection reads: its result handles, and the units of its views. */
export interface ThreadIndexes {
  handles: Handles;
  units: UnitIndex;
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

// Shrinks: functions that offer results to lower to a smaller form, oldest first. The builder asks its
// shrinks while the context is too big and applies their offers one at a time, so a shrink never decides
// when to stop.

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

// `shrink instanceof Compress` (or Stub) answers as for the reference's classes: true for what the factory made.
Object.defineProperty(Compress, Symbol.hasInstance, {
  value: (value: unknown) => typeof value === "function" && selectionOffers(value as Shrink)?.to === COMPRESSED,
});
Object.defineProperty(Stub, Symbol.hasInstance, {
  value: (value: unknown) => typeof value === "function" && selectionOffers(value as Shrink)?.to === STUBBED,
});

// The key under which a built-in shrink carries what it offers.
const SELECTION_OFFERS = Symbol("selectionOffers");

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
  const shrink = (view: Trace, forms: FormsByHandle): [string, Form][] => {
    const offered: [string, Form][] = [];
    for (const handle of where.handles(view)) if (offers(forms.get(handle) ?? FULL)) offered.push([handle, to]);
    return offered;
  };
  const label = `${kind}(${where.toString()}${when === null ? "" : `, { when: ${String(when)} }`})`;
  Object.defineProperty(shrink, "name", { value: label });
  const made = Object.assign(shrink, { where, when, toString: () => label });
  Object.defineProperty(made, SELECTION_OFFERS, { value: { where, to, offers } satisfies SelectionOffers });
  return made;
}

/** What a built-in shrink offers: each result `where` selects whose form `offers` takes, to the form `to`. */
export interface SelectionOffers {
  where: Selection;
  to: Form;
  offers: (form: Form) => boolean;
}

/** What `shrink` offers, if it is a built-in one (Compress or Stub): a pass can read its offers itself. */
export function selectionOffers(shrink: Shrink): SelectionOffers | undefined {
  return (shrink as Shrink & { [SELECTION_OFFERS]?: SelectionOffers })[SELECTION_OFFERS];
}

/** @throws ValueError when a value is not a Threshold (or null, where allowed). */
export function checkThreshold(value: unknown, name: string, nullable: boolean): void {
  if (value instanceof Share || value instanceof Tokens || (nullable && value === null)) return;
  throw new ValueError(`${name} must be a Share or Tokens, such as new Share(0.6)${nullable ? ", or null" : ""}.`);
}

// Shrunk: why a result has its form, as MessageBuilder.explain tells it.

/** Why a result has its form: the shrink that gave it, and the model call at which it did. */
export class Shrunk {
  constructor(
    /** The handle, such as "r1". */
    readonly result: string,
    /** The form the shrink gave the result. */
    readonly form: Form,
    /** The shrink that gave the form. */
    readonly by: Shrink,
    /** The number of model calls before the model call at which the shrink gave the form. */
    readonly at: number,
  ) {}
}

// Floors: keep some elements in a higher form than their result; `cited` keeps what the model relied on.

/**
 * A predicate that says whether a floor applies to an element: the element, the name of the tool that
 * recorded it (null if none), and the trace before the model call at which its result shrank. It reads
 * only that trace, so what happens later never changes a message the model was sent already.
 */
export type Protects = (element: Element, tool: string | null, before: Trace) => boolean;

/**
 * The lowest form that some elements can reach, whatever their result has. An element's form is its
 * result's, lifted to the highest floor that applies to it. A floor only shows more of a result.
 */
export class Floor {
  /** @throws ValueError when applies is not a function or form is not a Form. */
  constructor(
    /** The predicate that says to which elements the floor applies. */
    readonly applies: Protects,
    /** The lowest form of those elements. */
    readonly form: Form,
  ) {
    if (typeof applies !== "function")
      throw new ValueError("A Floor needs a predicate of (element, tool, before), such as cited.");
    if (!isForm(form)) throw new ValueError("A Floor needs a Form: FULL, COMPRESSED or STUBBED.");
  }
}

/**
 * Whether an earlier model output cited the element: true when a marker of a model output in `before`
 * cites its id. So a passage that the model relied on keeps its text after its result shrinks.
 */
export const cited: Protects = (element, _tool, before) => {
  const { all, byStream } = before.thread.index(CITED_IDS);
  if (before.thread === before) return all.has(element.id);
  const stream = before.events[0]?.stream;
  return stream !== undefined && byStream.get(stream)?.has(element.id) === true;
};

/** The ids of the Sources that the model outputs of a thread cite, in all and by stream. */
interface CitedIds {
  all: Set<string>;
  byStream: Map<Stream, Set<string>>;
}

/** The cited ids as an index the thread's trace keeps and grows: a floor asks about each element of a view. */
const CITED_IDS: GrowingIndex<CitedIds> = {
  make: () => ({ all: new Set(), byStream: new Map() }),
  append: ({ all, byStream }, events) => {
    for (const event of events)
      forEachCited(event, (source) => {
        all.add(source);
        let ids = byStream.get(event.stream);
        if (ids === undefined) byStream.set(event.stream, (ids = new Set()));
        ids.add(source);
      });
  },
};

// Add the ids of the Sources that an event cites, if it is a model output.
function addCited(ids: Set<string>, event: Event): Set<string> {
  forEachCited(event, (source) => ids.add(source));
  return ids;
}

/** Call `each` with the id of each Source that an event cites, if it is a model output. */
export function forEachCited(event: Event, each: (source: string) => void): void {
  if (kindOf(event).modelOutput)
    for (const marker of (event as ModelOutput).markers)
      for (const number of marker.cited) if (number.source !== null) each(number.source);
}

/** The ids of the Sources that the model outputs of `events` cite, from the event at `from` on. */
export function citedFrom(events: readonly Event[], from: number): Set<string> {
  const ids = new Set<string>();
  for (let index = from; index < events.length; index += 1) addCited(ids, events[index]!);
  return ids;
}
