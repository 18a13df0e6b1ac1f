/**
 * ThreadCache: what one builder keeps of one thread between builds (the recordings, what it keeps of each event and
 * renders, the shrink passes and the last layout), and the builder's bounded list of them.
 */
import type { Element } from "../../domain/elements.js";
import type { Event, ModelOutput, ToolOutput } from "../../domain/events.js";
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
import type { MeasuredPrompt, ModelLimits } from "./limits.js";
import { Recordings } from "./reopen.js";
import type { KeptEvent, LaidOut, PairList, PassTrail, PlannedForms, Visible } from "./draft-types.js";
import { type EventKind, RecentLists, UnitIndex, foldedOver, forEachCited, kindOf } from "./shrink.js";

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
  readonly formed = new Map<ToolOutput, PairList<Shorten, ToolOutput>>();
  /**
   * The Sources that the model outputs of a list of the thread's events cite, flagged by element number (the
   * `cited` floor asks about each element of each result a pass shrinks); ids with no number are kept apart.
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
  /** The forms the shrink pass at a view planned, by the view's last event and its length. */
  passes = new Map<Event, Map<number, PlannedForms>>();
  /** What the last first pass of a turn decided: the next turn's first pass takes each decision that still holds. */
  firstPass: PassTrail | undefined;
  /** The units of the thread's views, and their turn starts, for the built-in shrinks' selections. */
  readonly units = new UnitIndex();

  // The prompt measured last of each list of events asked about, by model; and the lists asked about recently, by
  // model, which a longer list goes on from (measuredPrompt).
  private readonly measuredByEvents = new WeakMap<readonly Event[], Map<string, MeasuredPrompt | null>>();
  private readonly recentMeasured = new Map<string, RecentLists<MeasuredPrompt | null>>();

  private readonly keptByEvent = new Map<Event, KeptEvent>();
  // What it keeps of `events` by place: a pass over a thread's events reads this list in order instead of looking
  // each event up (which reads the event itself, far apart in memory on a long thread).
  private readonly keptByPlace: KeptEvent[] = [];
  // The results that hold each element id, and the reopen results, for the first `indexed` events read (resultsHolding).
  private byElement: Map<string, ToolOutput[]> | undefined;
  private readonly reopened: ToolOutput[] = [];
  private indexed = 0;
  // How many of keptByPlace are in `kept` (keptOf).
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
      for (const kept of this.allKept().values())
        kept.messages = kept.reasoned = kept.shown = kept.reopenedOutput = undefined;
      this.formed.clear();
      changed = true;
    } else if (was.renderInput !== now.renderInput || was.calls !== now.calls) {
      const calls = was.calls !== now.calls;
      for (const [event, kept] of this.allKept()) {
        if (kept.messages === undefined) continue;
        const stale = kept.kind.modelOutput
          ? calls
          : kept.kind.input &&
            was.renderInput !== now.renderInput &&
            JSON.stringify(inputMessages(event)) !== JSON.stringify(kept.messages.messages);
        if (stale) kept.messages = kept.reasoned = undefined;
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
  passesFor(now: readonly unknown[]): Map<Event, Map<number, PlannedForms>> {
    if (this.plannedWith === undefined || !sameValues(this.plannedWith, now)) {
      this.passes = new Map();
      this.firstPass = undefined;
    }
    this.plannedWith = now;
    return this.passes;
  }

  /** What it keeps of an event of the thread, or of one that a selection made up. */
  keptOf(event: Event): KeptEvent {
    let kept = this.keptByEvent.get(event);
    if (kept === undefined && this.mapped < this.keptByPlace.length) kept = this.allKept().get(event);
    if (kept === undefined) this.keptByEvent.set(event, (kept = this.newKept(event)));
    return kept;
  }

  // What it keeps of every event read, by event. The thread's events are put in the map only once one is asked about
  // alone (or every render is reset): a build reads them by place.
  private allKept(): Map<Event, KeptEvent> {
    for (; this.mapped < this.keptByPlace.length; this.mapped += 1) {
      const read = this.events[this.mapped]!;
      if (!this.keptByEvent.has(read)) this.keptByEvent.set(read, this.keptByPlace[this.mapped]!);
    }
    return this.keptByEvent;
  }

  /** What it keeps of events[index], from `byPlace` (keptIn) where there is one. */
  keptAt(events: readonly Event[], byPlace: readonly KeptEvent[] | undefined, index: number): KeptEvent {
    return byPlace?.[index] ?? this.keptOf(events[index]!);
  }

  private newKept(event: Event, kind: EventKind = kindOf(event)): KeptEvent {
    const callId = kind.result ? (event as ToolOutput).callId : null;
    return {
      kind,
      handle: callId === null ? undefined : this.handles.handleOf(callId),
      messages: undefined,
      reasoned: undefined,
      shown: undefined,
      reopenedOutput: undefined,
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
      const kept = this.keptByPlace[this.indexed]!;
      if (kept.kind.reopened) this.reopened.push(event as ToolOutput);
      if (!kept.kind.result || kept.kind.reopened) continue;
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

  /**
   * The real prompt tokens of the last call to `model` among `events` that recorded them, with the characters its
   * prompt had, or null: from then on only the characters added are estimated. Each list is searched once per
   * model, from where a list it extends was searched.
   */
  measuredPrompt(events: readonly Event[], model: string): MeasuredPrompt | null {
    let byModel = this.measuredByEvents.get(events);
    if (byModel === undefined) this.measuredByEvents.set(events, (byModel = new Map()));
    let measured = byModel.get(model);
    if (measured !== undefined) return measured;
    let recent = this.recentMeasured.get(model);
    if (recent === undefined) this.recentMeasured.set(model, (recent = new RecentLists()));
    const last = recent.extended(events);
    const output = this.lastMeasured(events, model, last?.events.length ?? 0);
    measured =
      output !== undefined
        ? { tokens: output.usage!.promptTokens, characters: output.promptCharacters! }
        : (last?.value ?? null);
    byModel.set(model, measured);
    recent.remember(events, measured);
    return measured;
  }

  // The last model output to `model` from the event at `from` on that recorded its prompt's tokens and characters.
  private lastMeasured(events: readonly Event[], model: string, from: number): ModelOutput | undefined {
    const byPlace = this.keptIn(events);
    for (let index = events.length - 1; index >= from; index -= 1) {
      const event = events[index]!;
      const kind = byPlace !== undefined ? byPlace[index]!.kind : this.keptOf(event).kind;
      if (!kind.modelOutput) continue;
      const output = event as ModelOutput;
      if (output.model === model && output.usage !== null && output.promptCharacters !== null) return output;
    }
    return undefined;
  }

  /** Whether something rendered looked up what was not recorded yet. */
  get missed(): boolean {
    return this.numbering.missed || this.handles.missed || this.recordings.missed;
  }

  /** Whether `events` start with every event this cache has read, the same objects in the same order. */
  extendedBy(events: readonly Event[]): boolean {
    return extendsList(this.events, events);
  }

  /** What it keeps of each of `events` by place, when `events` is a prefix of the thread's list read so far; else undefined. */
  keptIn(events: readonly Event[]): readonly KeptEvent[] | undefined {
    return extendsList(events, this.events) ? this.keptByPlace : undefined;
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
    // One pass for the recordings and the kept: the kind is read once, and the recordings are handed one event at
    // a time, in one list they do not keep.
    const one: Event[] = [];
    for (let index = from; index < events.length; index += 1) {
      const event = events[index]!;
      one[0] = event;
      const kind = kindOf(event);
      // Only results and model outputs record.
      if (kind.result || kind.modelOutput) this.recordings.append(one);
      // An event asked about alone before it was read keeps what was kept of it.
      this.keptByPlace.push(
        (this.keptByEvent.size === 0 ? undefined : this.keptByEvent.get(event)) ?? this.newKept(event, kind),
      );
    }
  }
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
