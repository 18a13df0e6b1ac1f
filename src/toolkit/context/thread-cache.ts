/**
 * ThreadCache: what one builder keeps of one thread between builds (the recordings, each event's facts and
 * renders, the shrink passes and the last layout), and the builder's bounded list of them.
 */
import type { Element } from "../../domain/elements.js";
import { type Event, ToolOutput } from "../../domain/events.js";
import { Numbering, THREAD_NUMBERING } from "../../domain/numbering.js";
import { extendsList } from "../../domain/lists.js";
import type { Trace } from "../../domain/trace.js";
import type { Message } from "../../ports/messages.js";
import type { Budget } from "../../runtime/budget.js";
import type { CitationStrategy } from "../../runtime/contracts.js";
import type { KeptThreads } from "../../runtime/runner/work.js";
import { type Handles, ResultHandles, THREAD_HANDLES } from "../../runtime/tools/ids.js";
import type { RenderInput } from "../inputs/render.js";
import type { Shorten } from "./forms.js";
import type { ModelLimits } from "./limits.js";
import type { ResultShape, ShownResult } from "./render.js";
import { Recordings } from "./reopen.js";
import type { Visible } from "./context-draft.js";
import type { PassTrail, ResultStates } from "./form-plan.js";
import { type EventKind, foldedOver, forEachCited, kindOf, knowHandles } from "./shrink.js";

/** An event's messages and the characters they count, as ChatRequest counts them. */
export interface Rendered {
  messages: readonly Message[];
  characters: number;
}

/**
 * The thread's numbering (the index its Trace keeps) as it was when a cache read the thread: numbers given later
 * (by a longer trace that took the index over) stay out. It notes a lookup that found nothing, when `noting`: its
 * answer may change once more events are numbered.
 */
class NumberingUpTo extends Numbering {
  missed = false;

  constructor(
    private all: Numbering,
    private count: number,
    private readonly noting: boolean,
  ) {
    super();
  }

  /** Read the numbering of a thread that extends the one read so far. */
  read(all: Numbering): void {
    this.all = all;
    this.count = all.size;
  }

  /** The number of an id, noting a miss unless `note` is false (for an answer that holds whatever is numbered later). */
  override numberOf(id: string, note = this.noting): number | undefined {
    const number = this.all.numberOf(id);
    if (number !== undefined && number <= this.count) return number;
    if (note) this.missed = true;
    return undefined;
  }

  override element(number: number): Element | undefined {
    const element = number <= this.count ? this.all.element(number) : undefined;
    if (element === undefined && this.noting) this.missed = true;
    return element;
  }

  override get size(): number {
    if (this.noting) this.missed = true;
    return this.count;
  }

  /** The numbers so far, as of now, for a context that outlives this build: it notes nothing. */
  upToNow(): Numbering {
    return new NumberingUpTo(this.all, this.count, false);
  }
}

/**
 * The thread's result handles (the index its Trace keeps), noting a lookup that found nothing: its answer may
 * change once more results are recorded.
 */
class NotingHandles implements Handles {
  missed = false;
  private all = new ResultHandles();

  /** Read the handles of a thread that extends the one read so far. */
  read(all: ResultHandles): void {
    this.all = all;
  }

  handleOf(callId: string): string | undefined {
    const handle = this.all.handleOf(callId);
    if (handle === undefined) this.missed = true;
    return handle;
  }

  callIdOf(handle: string): string | undefined {
    const callId = this.all.callIdOf(handle);
    if (callId === undefined) this.missed = true;
    return callId;
  }
}

/** The Sources that model outputs cite: flags by element number, and the ids that have no number. */
export interface CitedSources {
  numbers: Uint8Array;
  others: Set<string>;
}

/** Whether `sources` holds the element's id, as `cited` answers, its number read from `numbering`. */
export function citedAmong(sources: CitedSources, element: Element, numbering: Numbering): boolean {
  const number = numbering.numberOf(element.id);
  return (
    (number !== undefined && sources.numbers[number] === 1) ||
    (sources.others.size > 0 && sources.others.has(element.id))
  );
}

/**
 * What a build asks of an event again and again, found once: its kind and its handle in the thread, and
 * what it rendered to while the cache's renders hold (one record per event, not a map per render).
 */
export interface Facts {
  /** What the event is, one record for each type (shrink.ts kindOf). */
  kind: EventKind;
  /** The handle of a result with a call id, or undefined for any other event. */
  handle: string | undefined;
  /** The event's messages without reasoning, and with it. */
  messages: Rendered | undefined;
  reasoned: Rendered | undefined;
  /** A result as shown, by the key of its shape. */
  shown: Few<string, ShownResult> | undefined;
  /** A reopen result with its content drawn in. */
  drawn: ToolOutput | undefined;
  /** The name of the tool of the call whose result this is, once asked (toolOf); undefined until then. */
  tool: string | null | undefined;
}

/**
 * A few entries by key, in one list: a result is shown in one to three shapes and made smaller by one or two
 * Shorten functions, and a Map for each would hold more memory than the rest of what the result keeps.
 */
export class Few<K, V> {
  // Made anew at each set, of its length: a list grown by push keeps room for 17.
  private entries: readonly (K | V)[] = [];

  get(key: K): V | undefined {
    for (let index = 0; index < this.entries.length; index += 2)
      if (this.entries[index] === key) return this.entries[index + 1] as V;
    return undefined;
  }

  set(key: K, value: V): void {
    const entries = new Array<K | V>(this.entries.length + 2);
    for (let index = 0; index < this.entries.length; index += 1) entries[index] = this.entries[index]!;
    entries[this.entries.length] = key;
    entries[this.entries.length + 1] = value;
    this.entries = entries;
  }
}

/**
 * What one builder keeps of one thread between builds: the recordings, read as events are appended, and what
 * each event renders to; its numbers and handles are the indexes the thread's trace keeps. An event renders the
 * same in every later build, since it reads only what came before it; a lookup that found nothing (an id recorded
 * later, or never) could read differently once more events come, so a cache that noted one is not carried to a
 * longer thread.
 */
export class ThreadCache {
  /** The events read so far: the list of the thread last read. */
  events: readonly Event[] = [];
  /** The thread's numbering, the index its trace keeps (not made again for each builder), as of the events read. */
  readonly numbering = new NumberingUpTo(new Numbering(), 0, true);
  /** The thread's result handles, the index its trace keeps, as of the events read. */
  readonly handles = new NotingHandles();
  readonly recordings = new Recordings();
  /** Each result as each Shorten function made it, checked. */
  readonly formed = new Map<ToolOutput, Few<Shorten, ToolOutput>>();
  /**
   * The Sources that the model outputs of a list of the thread's events cite, flagged by element number: the
   * `cited` floor asks of each element of each result a pass shrinks, in order, and a set of ids as large as a long
   * thread's citations is a lookup that misses the processor's caches. Ids with no number are kept apart.
   */
  readonly citedIn = foldedOver<CitedSources>(
    () => ({ numbers: new Uint8Array(64), others: new Set() }),
    ({ numbers, others }) => ({ numbers: numbers.slice(), others: new Set(others) }),
    (sources, event) => {
      forEachCited(event, (source) => {
        // An id with no number is kept apart, which answers the same once it has one: no miss to note.
        const number = this.numbering.numberOf(source, false);
        if (number === undefined) sources.others.add(source);
        else {
          if (number >= sources.numbers.length) {
            const grown = new Uint8Array(Math.max(number + 1, sources.numbers.length * 2));
            grown.set(sources.numbers);
            sources.numbers = grown;
          }
          sources.numbers[number] = 1;
        }
      });
      return sources;
    },
  );
  /** The events shown at the view asked about last (without a selection): the next view usually extends it. */
  lastVisible: { view: readonly Event[]; visible: Visible } | undefined;
  /** The messages laid out last (where shapes are summed): the next build lays out only what follows the first change. */
  lastLayout: LaidOut | undefined;
  /** The result states after the shrink pass at a view, by the view's last event and its length. */
  passes = new Map<Event, Map<number, ResultStates>>();
  /** What the last first pass of a turn decided: the next turn's first pass takes each decision that still holds. */
  firstPass: PassTrail | undefined;

  private readonly facts = new Map<Event, Facts>();
  // The facts of `events` by place: a pass over a thread's events reads this list in order instead of looking
  // each event up (which reads the event itself, far apart in memory on a long thread).
  private readonly factsByPlace: Facts[] = [];
  // The results that hold each element id, and the reopen results, for the first `indexed` events read (resultsHolding).
  private byElement: Map<string, ToolOutput[]> | undefined;
  private readonly reopened: ToolOutput[] = [];
  private indexed = 0;
  // How many of factsByPlace are in `facts` (factsOf).
  private mapped = 0;
  // The turn's parts that the kept renders and passes were made with: builders of other turns share the cache.
  private renderedWith: RenderedWith | undefined;
  private plannedWith: readonly unknown[] | undefined;

  /**
   * Keep only what was rendered with the same parts as `now`: other citations or limits change every
   * render, other tool definitions the calls' arguments. Another renderInput (each turn makes its own) may
   * render the same: each input is rendered again by `inputMessages`, and what changed is dropped.
   */
  renderWith(now: RenderedWith, inputMessages: (event: Event) => readonly Message[]): void {
    const was = this.renderedWith;
    this.renderedWith = now;
    if (was === undefined) return;
    let changed = false;
    if (was.citations !== now.citations || !sameValues(was.limits, now.limits)) {
      for (const facts of this.allFacts().values())
        facts.messages = facts.reasoned = facts.shown = facts.drawn = undefined;
      this.formed.clear();
      changed = true;
    } else if (was.renderInput !== now.renderInput || was.calls !== now.calls) {
      const calls = was.calls !== now.calls;
      for (const [event, facts] of this.allFacts()) {
        if (facts.messages === undefined) continue;
        const stale = facts.kind.modelOutput
          ? calls
          : facts.kind.input &&
            was.renderInput !== now.renderInput &&
            JSON.stringify(inputMessages(event)) !== JSON.stringify(facts.messages.messages);
        if (stale) facts.messages = facts.reasoned = undefined;
        changed ||= stale;
      }
    }
    if (!changed) return;
    this.lastVisible = undefined;
    this.lastLayout = undefined;
    this.passes = new Map();
    this.firstPass = undefined;
  }

  /** The passes planned so far, if they were planned with the same parts as `now` (prompt, model, tools, budget); else none. */
  passesFor(now: readonly unknown[]): Map<Event, Map<number, ResultStates>> {
    if (this.plannedWith === undefined || !sameValues(this.plannedWith, now)) {
      this.passes = new Map();
      this.firstPass = undefined;
    }
    this.plannedWith = now;
    return this.passes;
  }

  /** The facts of an event of the thread, or of one that a selection made up. */
  factsOf(event: Event): Facts {
    let facts = this.facts.get(event);
    if (facts === undefined && this.mapped < this.factsByPlace.length) facts = this.allFacts().get(event);
    if (facts === undefined) this.facts.set(event, (facts = this.newFacts(event)));
    return facts;
  }

  // The facts of every event read, by event. The thread's events are put in the map only once one is asked about
  // alone (or every render is reset): a build reads them by place.
  private allFacts(): Map<Event, Facts> {
    for (; this.mapped < this.factsByPlace.length; this.mapped += 1) {
      const read = this.events[this.mapped]!;
      if (!this.facts.has(read)) this.facts.set(read, this.factsByPlace[this.mapped]!);
    }
    return this.facts;
  }

  /** The facts of events[index], from `byPlace` (factsIn) where there is one. */
  factsAt(events: readonly Event[], byPlace: readonly Facts[] | undefined, index: number): Facts {
    return byPlace?.[index] ?? this.factsOf(events[index]!);
  }

  private newFacts(event: Event, kind: EventKind = kindOf(event)): Facts {
    const callId = kind.result ? (event as ToolOutput).callId : null;
    // Every field at once: one shape for every record, and no property storage added to each later.
    return {
      kind,
      handle: callId === null ? undefined : this.handles.handleOf(callId),
      messages: undefined,
      reasoned: undefined,
      shown: undefined,
      drawn: undefined,
      tool: undefined,
    };
  }

  /**
   * The results read so far that hold any of `ids`, and every reopen result read so far (it holds no elements of
   * its own, and may draw in any): the results whose form a citation of `ids` may change.
   */
  resultsHolding(ids: ReadonlySet<string>): Set<ToolOutput> {
    // Indexed when first asked, and then for the events read since: most builds never ask.
    const index = (this.byElement ??= new Map());
    for (; this.indexed < this.events.length; this.indexed += 1) {
      const event = this.events[this.indexed]!;
      const facts = this.factsByPlace[this.indexed]!;
      if (facts.kind.reopened) this.reopened.push(event as ToolOutput);
      if (!facts.kind.result || facts.kind.reopened) continue;
      for (const element of (event as ToolOutput).elements) {
        const holding = index.get(element.id);
        if (holding === undefined) index.set(element.id, [event as ToolOutput]);
        else holding.push(event as ToolOutput);
      }
    }
    const found = new Set<ToolOutput>(this.reopened);
    for (const id of ids) for (const result of index.get(id) ?? []) found.add(result);
    return found;
  }

  /** Whether something rendered looked up what was not recorded yet. */
  get missed(): boolean {
    return this.numbering.missed || this.handles.missed || this.recordings.missed;
  }

  /** Whether `events` start with every event this cache has read, the same objects in the same order. */
  extendedBy(events: readonly Event[]): boolean {
    return extendsList(this.events, events);
  }

  /** The facts of each of `events` by place, when `events` is a prefix of the thread's list read so far; else undefined. */
  factsIn(events: readonly Event[]): readonly Facts[] | undefined {
    return extendsList(events, this.events) ? this.factsByPlace : undefined;
  }

  /** Read the events of `thread` after those read so far; its events start with them. */
  extend(thread: Trace): void {
    const { events } = thread;
    const from = this.events.length;
    // Numbers and handles are the indexes the trace keeps, made once for it (the tool checks read them too), not
    // again by each builder that reads it.
    this.numbering.read(thread.index(THREAD_NUMBERING));
    this.handles.read(thread.index(THREAD_HANDLES));
    // The thread's list is kept, not copied: the next one made from it is known to extend it (extendsList).
    this.events = events;
    // One pass for the recordings and the facts: the kind is read once, and the recordings are handed one event at
    // a time, in one list they do not keep.
    const one: Event[] = [];
    for (let index = from; index < events.length; index += 1) {
      const event = events[index]!;
      one[0] = event;
      const kind = kindOf(event);
      // Only results and model outputs record.
      if (kind.result || kind.modelOutput) this.recordings.append(one);
      // An event asked about alone before it was read keeps its facts.
      this.factsByPlace.push((this.facts.size === 0 ? undefined : this.facts.get(event)) ?? this.newFacts(event, kind));
    }
  }
}

/**
 * The messages of the shown events of a layout, without the system message: where each event's messages
 * start, and the shape each result was laid out in, so a later layout keeps them up to its first change.
 */
export interface LaidOut {
  events: readonly Event[];
  /** The shapes the results were laid out in. */
  shapes: ReadonlyMap<string, ResultShape>;
  messages: Message[];
  /** The index in `messages` of each event's first message, and the length of `messages` after the last. */
  starts: number[];
  /** The index in `events` of each result, its handle and the shape it was laid out in. */
  results: { at: number; handle: string; shape: ResultShape }[];
  /** Whether the numbers of the results' handles rise: then a result is found by its handle's number. */
  rising: boolean;
  /** The messages last handed out, the system message first if there was one. */
  sent?: readonly Message[];
}

/** The parts of a turn that a ThreadCache's renders depend on, compared at each build. */
export interface RenderedWith {
  renderInput: RenderInput;
  citations: CitationStrategy | null;
  /** The limits as values (their class and settings), or null. */
  limits: readonly unknown[];
  /** What the definitions of the offered tools say of their arguments' ids and handles. */
  calls: string;
}

/** The values of limits and budget that renders and passes depend on: their class and settings. */
export function valuesOf(value: ModelLimits | Budget | null): readonly unknown[] {
  if (value === null) return [null];
  if ("window" in value) return [value.constructor, value.window.count, value.charactersPerToken];
  return [value.constructor, value.passes, value.toolRoundsAfterCap, value.resetsOnAnswer];
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/**
 * The cache of `thread` among a builder's caches, most recent first: one it extends, or a new one (kept unless it
 * is a cut of one). The least recently built go past `keep`; the thread built now stays, however long it is.
 */
export function cacheFor(caches: ThreadCache[], thread: Trace, keep: KeptThreads): ThreadCache {
  const cache = findCache(caches, thread);
  knowHandles(thread.events, cache.handles);
  let events = 0;
  let kept = 0;
  while (kept < caches.length && kept < keep.threads) {
    events += caches[kept]!.events.length;
    if (kept > 0 && events > keep.events) break;
    kept += 1;
  }
  caches.length = kept;
  return cache;
}

function findCache(caches: ThreadCache[], thread: Trace): ThreadCache {
  const events = thread.events;
  const at = caches.findIndex((cache) => cache.extendedBy(events));
  if (at >= 0 && !(caches[at]!.missed && events.length > caches[at]!.events.length)) {
    const [cache] = caches.splice(at, 1);
    caches.unshift(cache!);
    cache!.extend(thread);
    return cache!;
  }
  if (at >= 0) caches.splice(at, 1);
  const cache = new ThreadCache();
  cache.extend(thread);
  // A cut of a thread a cache holds (a replay of an earlier call) is built apart, so the longer cache stays.
  const cut = caches.some(
    (kept) => kept.events.length > events.length && events.every((event, index) => kept.events[index] === event),
  );
  if (!cut) caches.unshift(cache);
  return cache;
}
