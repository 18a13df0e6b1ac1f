/**
 * ContextDraft and form planning: the parts of one build that every model call of the running turn shares
 * (numbers, handles, recordings, each event's messages made once), which lay out the context of any view
 * of the stream, and the forms of the results, worked out again at each build from the first call of the
 * running turn.
 */
import type { Element } from "../../domain/elements.js";
import {
  Compaction,
  type Event,
  type EventType,
  ModelOutput,
  Reopened,
  type ToolCall,
  ToolOutput,
} from "../../domain/events.js";
import { Numbering, THREAD_NUMBERING } from "../../domain/numbering.js";
import { appended, extendsList } from "../../domain/lists.js";
import type { Trace } from "../../domain/trace.js";
import { type Message, SystemMessage, type ToolDef, ToolResult, UserMessage } from "../../ports/messages.js";
import { ChatRequest, charactersOf } from "../../ports/request.js";
import type { Budget } from "../../runtime/budget.js";
import type { CitationStrategy, Show } from "../../runtime/contracts.js";
import type { KeptThreads } from "../../runtime/runner/work.js";
import { shownArguments } from "../../runtime/tools/arguments.js";
import { type Handles, ResultHandles, THREAD_HANDLES, handleNumber } from "../../runtime/tools/ids.js";
import type { RenderInput } from "../inputs/render.js";
import { type ContextPolicy, Reasoning } from "./context-policy.js";
import { FULL, type Form, STUBBED, type Shorten, asRecorded, shortened } from "./forms.js";
import type { MeasuredPrompt, ModelLimits } from "./limits.js";
import {
  type EventRendering,
  FULL_SHAPE,
  type RenderEvent,
  type ResultShape,
  type Shaping,
  type ShownResult,
  eventMessages,
  limitImages,
  shownResult,
} from "./render.js";
import { Recordings, reopenedOutput } from "./reopen.js";
import { measureOf, renderOf } from "./xml.js";
import {
  type EventKind,
  type FormsByHandle,
  RecentLists,
  type Shrink,
  cited,
  citedFrom,
  kindOf,
  knowHandles,
  selectionOffers,
  turnStartsOf,
} from "./shrink.js";

// ContextDraft: the parts of one build that every model call of the running turn shares. It lays out the
// context of any view of the stream (the trace before one call) with given result shapes, to measure it or
// to send it. What it renders it keeps in a ThreadCache, which the builder keeps for the next build.

/** How the summary of a Compaction follows the prompt in the system message; {summary} becomes it. */
export const SUMMARY_TEXT = "A summary of the earlier conversation, which the messages below continue:\n{summary}";

/** What a draft needs: the builder's settings with the turn's parts. */
export interface DraftSettings {
  renderInput: RenderInput;
  renderers: ReadonlyMap<EventType<any, any>, RenderEvent>;
  show: Show;
  select: ((trace: Trace) => readonly Event[]) | null;
  prompt: ((citation: string | null) => string) | null;
  citations: CitationStrategy | null;
  tools: readonly ToolDef[];
  budget: Budget | null;
  policy: ContextPolicy;
  limits: ModelLimits | null;
}

/** The events one call shows, and the summary that stands for the events before them. */
export interface Visible {
  events: readonly Event[];
  /**
   * The handle of each of `events` that is a result, by its place in `events`. Views that extend one another share
   * one list, which may run past `events`: read only its first `events.length`.
   */
  handles: readonly (string | undefined)[];
  summary: string | null;
  /** The shown results (with a handle), by handle. */
  results: ShownResults;
  /** The characters of the events with every result full, and the count of those shortened even so; absent where shapes cannot be summed. */
  base?: Sizes;
}

/**
 * The shown results of a view, by handle. Views that extend one another share one map of the place where
 * each result shows, and each reads only the places before its end: a view that extends another adds its
 * own results to the map and copies none.
 */
export class ShownResults {
  constructor(
    /** Each result, its place among the shown events, and its facts in the thread's cache. */
    readonly places: Map<string, ShownPlace>,
    /** How many events the view shows. */
    readonly end: number,
  ) {}

  /** The result that `handle` names, if the view shows it. */
  get(handle: string): ToolOutput | undefined {
    return this.place(handle)?.result;
  }

  /** The place of the result that `handle` names, if the view shows it. */
  place(handle: string): ShownPlace | undefined {
    const place = this.places.get(handle);
    return place !== undefined && place.at < this.end ? place : undefined;
  }

  /** Whether the view shows the result that `handle` names. */
  has(handle: string): boolean {
    return this.place(handle) !== undefined;
  }
}

/** A shown result, its place among the shown events, and its facts (read with it, so a plan looks up neither). */
interface ShownPlace {
  result: ToolOutput;
  at: number;
  facts: Facts;
}

/** Characters of shown events, and how many shown results show less than all of the result. */
interface Sizes {
  characters: number;
  shortened: number;
}

/** A laid-out context: its messages and tools, whether it shows a result shortened, and its characters as ChatRequest counts them. */
export interface Layout {
  messages: readonly Message[];
  tools: readonly ToolDef[];
  shortened: boolean;
  characters: number;
}

/** An event's messages and the characters they count, as ChatRequest counts them. */
interface Rendered {
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

  override numberOf(id: string): number | undefined {
    const number = this.all.numberOf(id);
    if (number !== undefined && number <= this.count) return number;
    if (this.noting) this.missed = true;
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

/**
 * What a build asks of an event again and again, found once: its kind and its handle in the thread, and
 * what it rendered to while the cache's renders hold (one record per event, not a map per render).
 */
interface Facts {
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
class Few<K, V> {
  // Made anew at each set, of its length: a list grown by push keeps room for 17.
  private entries: readonly (K | V)[] = [];

  get(key: K): V | undefined {
    for (let index = 0; index < this.entries.length; index += 2)
      if (this.entries[index] === key) return this.entries[index + 1] as V;
    return undefined;
  }

  set(key: K, value: V): void {
    this.entries = this.entries.concat([key, value]);
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
interface LaidOut {
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

/** The shared parts of one build. */
export class ContextDraft {
  private readonly rendering: EventRendering;
  private readonly shaping: Shaping;
  private readonly running: ReadonlySet<Event>;
  private readonly visibleByView = new WeakMap<Trace, Visible>();
  private promptText: string | null | undefined;
  private readonly withReopen: readonly ToolDef[];

  /** `trace` is the stream's trace of the call to build: its running turn decides which reasoning is current. */
  constructor(
    private readonly settings: DraftSettings,
    trace: Trace,
    /** What the builder keeps of the trace's thread: it has read every event of the thread. */
    readonly cache: ThreadCache,
  ) {
    this.numbering = cache.numbering.upToNow();
    this.running = new Set(trace.events.slice(turnStartsOf(trace.events).at(-1) ?? 0));
    const reopen = settings.policy.reopen?.def() ?? null;
    // The tools with reopen, made once per build: each call of the turn that shortens something offers them.
    this.withReopen = reopen === null ? settings.tools : [...settings.tools, reopen];
    const defs = new Map([...(reopen === null ? [] : [reopen]), ...settings.tools].map((def) => [def.name, def]));
    // The xml layout shows textless elements (dropText's) without copying them; `textless` comes only where it
    // measures.
    const render = renderOf(settings.show) ?? settings.show;
    const show = (elements: readonly Element[], tool: string | null, textless?: readonly boolean[]) =>
      render(elements, cache.numbering, tool, settings.citations, textless);
    // A result is made smaller by each Shorten once while the cache keeps it, whichever shapes show it.
    const formed = (shorten: Shorten, output: ToolOutput, limits: ModelLimits, tool: string | null) => {
      // The default full form is the result itself: nothing to make or keep.
      if (shorten === asRecorded) return output;
      let byShorten = cache.formed.get(output);
      if (byShorten === undefined) cache.formed.set(output, (byShorten = new Few()));
      let made = byShorten.get(shorten);
      if (made === undefined) byShorten.set(shorten, (made = shortened(shorten, output, limits, tool)));
      return made;
    };
    const measureShow = measureOf(settings.show);
    const measure =
      measureShow === undefined
        ? undefined
        : (elements: readonly Element[], tool: string | null, textless?: readonly boolean[]) =>
            measureShow(elements, cache.numbering, tool, settings.citations, textless);
    this.shaping = { policy: settings.policy, limits: settings.limits, show, measure, formed };
    this.rendering = {
      renderInput: settings.renderInput,
      renderers: settings.renderers,
      show,
      toolOf: (callId) => this.cache.recordings.toolOf(callId),
      // A call of a tool this turn does not offer shows as recorded: without its definition its ids are unknown.
      shownCall: (call: ToolCall) => {
        const def = defs.get(call.name);
        return def === undefined ? call : shownArguments(call, def, cache.numbering, cache.handles);
      },
    };
    cache.renderWith(
      {
        renderInput: settings.renderInput,
        citations: settings.citations,
        limits: valuesOf(settings.limits),
        calls: JSON.stringify([...defs.values()].map((def) => [def.name, def.elements, def.results])),
      },
      (event) => eventMessages(event, this.rendering),
    );
  }

  /** The numbers of the thread's elements, as they are at this build. */
  readonly numbering: Numbering;

  /** The events a call at `view` shows: the selection, without the events a Compaction replaced. */
  visible(view: Trace): Visible {
    let visible = this.visibleByView.get(view);
    if (visible !== undefined) return visible;
    const last = this.cache.lastVisible;
    const extended =
      this.settings.select === null && last !== undefined && extendsList(last.view, view.events)
        ? view.events.slice(last.view.length)
        : null;
    const viewFacts = extended === null ? undefined : this.cache.factsIn(view.events);
    const added = extended?.map((_event, offset) =>
      this.cache.factsAt(view.events, viewFacts, last!.view.length + offset),
    );
    // Events appended after the last view show after its events, unless one of them is a summary.
    if (extended !== null && added !== undefined && !added.some((facts) => facts.kind.compaction)) {
      // Each appended event shows: the lists are made at their length at once.
      const shownBefore = last!.visible.events.length;
      // Where every event of the last view showed, every event of this one does: its list is the view's own.
      const events = last!.visible.events === last!.view ? view.events : appended(last!.visible.events, extended);
      // The last view's handles grow in place unless a view extended it already: each view reads only its own length.
      const lastHandles = last!.visible.handles as (string | undefined)[];
      const handles = lastHandles.length === shownBefore ? lastHandles : lastHandles.slice(0, shownBefore);
      for (const facts of added) handles.push(facts.handle);
      // A handle that names a second result (a call id recorded twice) would change what the shorter views read.
      const shared = last!.visible.results.places;
      const again = added.some((facts) => shared.has(facts.handle ?? ""));
      const places = again ? new Map(shared) : shared;
      added.forEach((facts, offset) => {
        if (facts.handle !== undefined)
          places.set(facts.handle, { result: extended[offset] as ToolOutput, at: shownBefore + offset, facts });
      });
      visible = { events, handles, summary: last!.visible.summary, results: new ShownResults(places, events.length) };
      const base = last!.visible.base;
      if (base !== undefined) visible.base = this.sizes(events, handles, shownBefore, base);
    } else {
      const byPlace = this.cache.factsIn(view.events);
      let last = view.events.length - 1;
      while (last >= 0 && !this.cache.factsAt(view.events, byPlace, last).kind.compaction) last -= 1;
      const compaction = last < 0 ? undefined : (view.events[last] as Compaction);
      const replaced = new Set(view.events.slice(0, compaction === undefined ? 0 : compaction.keptFrom));
      const selected = this.settings.select === null ? view.events : this.settings.select(view);
      const handles: (string | undefined)[] = [];
      const places = new Map<string, ShownPlace>();
      // A view that shows every event shows its own list: the next view's list extends it (extendsList).
      const events = this.show(selected, selected === view.events ? byPlace : undefined, replaced, handles, places);
      visible = {
        events,
        handles,
        summary: compaction?.summary ?? null,
        results: new ShownResults(places, events.length),
      };
    }
    if (visible.base === undefined && this.summable(visible))
      visible.base = this.sizes(visible.events, visible.handles, 0);
    this.visibleByView.set(view, visible);
    if (this.settings.select === null) this.cache.lastVisible = { view: view.events, visible };
    return visible;
  }

  // Shapes are summed, not laid out, where every result of the turn's views stays shown and each event's
  // size holds from build to build: no selection, no summary, no image left out, no reasoning by turn.
  private summable(visible: Visible): boolean {
    const { select, policy } = this.settings;
    return (
      select === null &&
      visible.summary === null &&
      policy.maxImages === null &&
      policy.reasoning !== Reasoning.CURRENT_TURN
    );
  }

  // The sizes of the events from `from` on, every result full, added to `sizes`.
  private sizes(
    events: readonly Event[],
    handles: readonly (string | undefined)[],
    from: number,
    sizes: Sizes = { characters: 0, shortened: 0 },
  ): Sizes {
    let { characters, shortened } = sizes;
    const byPlace = this.cache.factsIn(events);
    for (let index = from; index < events.length; index += 1) {
      const facts = this.cache.factsAt(events, byPlace, index);
      if (handles[index] === undefined) {
        characters += this.messagesOf(events[index]!, facts).characters;
        continue;
      }
      const made = this.result(events[index] as ToolOutput, FULL_SHAPE, facts);
      characters += made.length;
      if (made.shortened) shortened += 1;
    }
    return { characters, shortened };
  }

  // The events that show: `selected` itself where every event does. Add each one's handle, and each result's
  // place by its handle.
  private show(
    selected: readonly Event[],
    byPlace: readonly Facts[] | undefined,
    replaced: ReadonlySet<Event>,
    handles: (string | undefined)[],
    places: Map<string, ShownPlace>,
  ): readonly Event[] {
    // A list of its own from the first event left out: most views show every event.
    let events: Event[] | undefined;
    for (let index = 0; index < selected.length; index += 1) {
      const event = selected[index]!;
      const facts = this.cache.factsAt(selected, byPlace, index);
      if (facts.kind.compaction || (replaced.size > 0 && replaced.has(event))) {
        events ??= selected.slice(0, index);
        continue;
      }
      const handle = facts.handle;
      if (handle !== undefined) places.set(handle, { result: event as ToolOutput, at: handles.length, facts });
      events?.push(event);
      handles.push(handle);
    }
    return events ?? selected;
  }

  /** The trace before the event at `index`, as Trace.before makes it; the shrinks read its thread's handles from the cache. */
  before(trace: Trace, index: number): Trace {
    const view = trace.before(index);
    // A cut of the thread gives each of its results the handle the whole thread gives it.
    knowHandles(view.thread.events, this.cache.handles);
    return view;
  }

  /** The result to shape: a reopen result with its content drawn in, any other result as recorded. */
  output(event: ToolOutput, facts: Facts = this.cache.factsOf(event)): ToolOutput {
    if (!facts.kind.reopened) return event;
    let drawn = facts.drawn;
    if (drawn === undefined) {
      const wholeResult = (output: ToolOutput) => this.result(output, FULL_SHAPE).content;
      const fullElements = (output: ToolOutput) => this.fullOutput(output).elements;
      drawn = reopenedOutput(event as Reopened, {
        recordings: this.cache.recordings,
        numbering: this.cache.numbering,
        handles: this.cache.handles,
        wholeResult,
        fullElements,
      });
      facts.drawn = drawn;
    }
    return drawn;
  }

  // A recorded result as the full form of its tool makes it (as recorded without limits); the drawn reopen
  // result that needs it is kept with the thread, so it is made once.
  private fullOutput(output: ToolOutput): ToolOutput {
    const { limits, policy } = this.settings;
    if (limits === null) return output;
    const tool = this.toolOf(output);
    return this.shaping.formed!(policy.shortenFor(tool ?? "", FULL), output, limits, tool);
  }

  /** The name of the tool whose result this is: the reopen tool for a reopen result. */
  toolOf(event: ToolOutput, facts?: Facts): string | null {
    if ((facts === undefined ? Reopened.is(event) : facts.kind.reopened) && this.settings.policy.reopen !== null)
      return this.settings.policy.reopen.name;
    if (facts === undefined) return this.cache.recordings.toolOf(event.callId);
    // The recorded call's tool, looked up once: a result is shaped in several shapes.
    if (facts.tool === undefined) facts.tool = this.cache.recordings.toolOf(event.callId);
    return facts.tool;
  }

  /** A result in a shape, made once per shape (by its form and floors) for as long as the builder keeps the thread. */
  result(event: ToolOutput, shape: ResultShape, facts: Facts = this.cache.factsOf(event)): ShownResult {
    const byShape = (facts.shown ??= new Few());
    const key = shapeKey(shape);
    let made = byShape.get(key);
    if (made === undefined) {
      made = shownResult(this.output(event, facts), this.toolOf(event, facts), facts.handle ?? "", shape, this.shaping);
      byShape.set(key, made);
    }
    return made;
  }

  /** Lay out the context of a call at `view`, each shown result in its shape (full when `shapes` has none). */
  layout(view: Trace, shapes: ReadonlyMap<string, ResultShape>): Layout {
    const visible = this.visible(view);
    const delta = changes.get(shapes);
    if (visible.base !== undefined && delta !== undefined) return this.layoutOn(view, visible, shapes, delta);
    const messages: Message[] = [];
    let characters = 0;
    const shortened = this.walk(
      view,
      shapes,
      (system) => {
        messages.push(SystemMessage(system));
        characters += system.length;
      },
      (rendered) => {
        for (const message of rendered.messages) messages.push(message);
        characters += rendered.characters;
      },
      (result, made) => {
        messages.push(this.resultMessage(result, made));
        characters += made.length;
      },
    );
    const tools = this.offered(view, shortened);
    const limited = limitImages(messages, this.settings.policy.maxImages);
    // Images left out change the count: then the laid-out messages are counted again.
    const counted =
      this.settings.policy.maxImages === null
        ? characters + new ChatRequest([], tools).characters
        : new ChatRequest(limited, tools).characters;
    return { messages: limited, tools, shortened, characters: counted };
  }

  // Where shapes are summed (see summable), each event's messages hold from build to build: the messages
  // laid out last are kept up to the first event that is not the same or a result in another shape.
  private layoutOn(view: Trace, visible: Visible, shapes: ReadonlyMap<string, ResultShape>, delta: Sizes): Layout {
    const { events, handles, base } = visible;
    const last = this.cache.lastLayout;
    let from = 0;
    let kept = 0;
    if (last !== undefined && extendsList(last.events, events)) {
      from = last.events.length;
      // The same states show each result laid out last as it was; states that passes made from them, each result
      // but those the passes changed.
      const changed = last.shapes === shapes ? [] : last.rising ? changedSince(last.shapes, shapes) : undefined;
      if (changed !== undefined) kept = firstChanged(last.results, changed, shapes);
      // From the first result in another shape on, each is compared.
      for (; kept < last.results.length; kept += 1) {
        const laidOut = last.results[kept]!;
        const shape = shapes.get(laidOut.handle) ?? FULL_SHAPE;
        if (shape === laidOut.shape) continue;
        // A shape of the same key shows the result as the same kept message (a turn's first pass makes new shapes).
        if (shapeKey(shape) !== shapeKey(laidOut.shape)) {
          from = laidOut.at;
          break;
        }
        laidOut.shape = shape;
      }
    }
    // The last layout is this cache's alone: it is cut back to what still holds and goes on from there.
    const laid: LaidOut = last ?? { events, shapes, messages: [], starts: [], results: [], rising: true };
    laid.messages.length = from === 0 ? 0 : laid.starts[from]!;
    const keptMessages = laid.messages.length;
    laid.starts.length = from;
    laid.results.length = from === 0 ? 0 : kept;
    if (laid.results.length === 0) laid.rising = true;
    laid.events = events;
    laid.shapes = shapes;
    const { messages, starts, results } = laid;
    const byPlace = this.cache.factsIn(events);
    let previous = results.length === 0 ? 0 : handleNumber(results.at(-1)!.handle);
    for (let index = from; index < events.length; index += 1) {
      starts.push(messages.length);
      const handle = handles[index];
      const facts = this.cache.factsAt(events, byPlace, index);
      if (handle === undefined) {
        // By index: an iterator for each event's few messages is an object each time.
        const own = this.messagesOf(events[index]!, facts).messages;
        for (let at = 0; at < own.length; at += 1) messages.push(own[at]!);
        continue;
      }
      const shape = shapes.get(handle) ?? FULL_SHAPE;
      const result = events[index] as ToolOutput;
      messages.push(this.resultMessage(result, this.result(result, shape, facts)));
      const number = handleNumber(handle);
      laid.rising &&= number > previous;
      previous = number;
      results.push({ at: index, handle, shape });
    }
    starts.push(messages.length);
    this.cache.lastLayout = laid;
    const system = this.systemText(visible.summary);
    const { shortened, tools, characters } = this.summed(view, visible.summary, base!, delta);
    // The messages handed out keep the last ones up to the first change, in a list known to share them with the
    // last (ChatRequest.hash goes on from it without comparing them); the same system message is the same object.
    const sent = laid.sent;
    const lastSystem = sent?.[0]?.role === "system" ? sent[0] : undefined;
    const sameSystem = (lastSystem?.content ?? null) === system;
    const offset = lastSystem === undefined ? 0 : 1;
    if (sent !== undefined && sameSystem)
      laid.sent = appended(sent, messages.slice(keptMessages), offset + keptMessages);
    else if (system === null) laid.sent = messages.slice();
    else laid.sent = ([SystemMessage(system)] as Message[]).concat(messages);
    return { messages: laid.sent, tools, shortened, characters };
  }

  // The size of a context whose shapes are summed: the system text, the events with every result full, what
  // the shapes change, and the tools offered (reopen once something is shortened).
  private summed(view: Trace, summary: string | null, base: Sizes, delta: Sizes) {
    const system = this.systemText(summary);
    const shortened = base.shortened + delta.shortened > 0 || summary !== null;
    const tools = this.offered(view, shortened);
    const characters =
      (system === null ? 0 : system.length) +
      base.characters +
      delta.characters +
      new ChatRequest([], tools).characters;
    return { shortened, tools, characters };
  }

  /**
   * The characters of the context of a call at `view` in these shapes, as ChatRequest counts them: the sum
   * of each event's counted characters, without laying the context out (unless images may be left out).
   */
  characters(view: Trace, shapes: ReadonlyMap<string, ResultShape>): number {
    if (this.settings.policy.maxImages !== null) return this.layout(view, shapes).characters;
    const { base, summary } = this.visible(view);
    const delta = changes.get(shapes);
    if (base !== undefined && delta !== undefined) return this.summed(view, summary, base, delta).characters;
    let characters = 0;
    const shortened = this.walk(
      view,
      shapes,
      (system) => (characters += system.length),
      (rendered) => (characters += rendered.characters),
      (_result, made) => (characters += made.length),
    );
    return characters + new ChatRequest([], this.offered(view, shortened)).characters;
  }

  /** Visit the system text, then each shown event's messages or shown result, in order; whether a result or the history is shortened. */
  private walk(
    view: Trace,
    shapes: ReadonlyMap<string, ResultShape>,
    onSystem: (text: string) => void,
    onEvent: (rendered: Rendered) => void,
    onResult: (result: ToolOutput, made: ShownResult) => void,
  ): boolean {
    const { events, handles, summary } = this.visible(view);
    const system = this.systemText(summary);
    if (system !== null) onSystem(system);
    let shortened = summary !== null;
    events.forEach((event, index) => {
      const handle = handles[index];
      if (handle === undefined) return onEvent(this.messagesOf(event));
      const made = this.result(event as ToolOutput, shapes.get(handle) ?? FULL_SHAPE);
      shortened ||= made.shortened;
      onResult(event as ToolOutput, made);
    });
    return shortened;
  }

  // A result's message is made once for each way it is shown.
  private resultMessage(result: ToolOutput, made: ShownResult): Message {
    made.message ??= result.callId === null ? UserMessage(made.content) : ToolResult(result.callId, made.content);
    return made.message;
  }

  /** The tools a call at `view` offers: none once the budget withdraws them; reopen after the others once something is shortened. */
  private offered(view: Trace, shortened: boolean): readonly ToolDef[] {
    const { budget, tools } = this.settings;
    if (budget !== null && budget.withdrawsTools(view)) return [];
    return shortened ? this.withReopen : tools;
  }

  /** What the passes of a build depend on besides the renders: the prompt, the model, the tools offered and the budget. */
  planningParts(model: string): readonly unknown[] {
    const { tools, budget } = this.settings;
    return [this.systemText(null), model, JSON.stringify(tools), ...valuesOf(budget)];
  }

  private systemText(summary: string | null): string | null {
    const { prompt, citations } = this.settings;
    // The prompt is written once per build, however many calls of the turn the policy lays out.
    if (this.promptText === undefined)
      this.promptText = prompt === null ? null : prompt(citations === null ? null : citations.write(1));
    const text = this.promptText;
    if (summary === null) return text;
    const shown = SUMMARY_TEXT.replaceAll("{summary}", summary);
    return text === null ? shown : `${text}\n\n${shown}`;
  }

  // Each event renders once while the builder keeps its thread; the reasoning of a model output follows the policy.
  private messagesOf(event: Event, facts: Facts = this.cache.factsOf(event)): Rendered {
    let made = facts.messages;
    if (made === undefined) {
      const messages = eventMessages(event, this.rendering);
      made = facts.messages = { messages, characters: charactersOf(messages) };
    }
    const reasoning = facts.kind.modelOutput ? this.reasoningOf(event as ModelOutput) : null;
    if (reasoning === null) return made;
    if (facts.reasoned === undefined) {
      const messages = made.messages.map((message) =>
        message.role === "assistant" ? { ...message, reasoning } : message,
      );
      facts.reasoned = { messages, characters: charactersOf(messages) };
    }
    return facts.reasoned;
  }

  private reasoningOf(output: ModelOutput): string | null {
    const setting = this.settings.policy.reasoning;
    if (setting === Reasoning.ALWAYS || (setting === Reasoning.CURRENT_TURN && this.running.has(output)))
      return output.reasoning;
    return null;
  }
}

/** A shape as a key: two shapes with the same form and floors show a result the same. */
function shapeKey(shape: ResultShape): string {
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

// The forms of the results, worked out again at each build from the first model call of the running turn:
// at each call of the turn the shrinks run on the forms of the call before, so a form never rises within
// a turn, and a shrunk result keeps what floors kept when it shrank. Nothing is stored.

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
 * Result states made from others and the states set since, without copying the others: a long thread's first
 * pass goes on from the last one's thousands of states and sets a few. The states it is made from are never
 * changed (a pass's states are final once it returns); once those set since grow to a quarter of them, they are
 * copied into one map.
 */
class GrownStates implements ResultStates {
  private readonly base: ResultStates;
  private readonly own = new Map<string, ResultState>();

  constructor(from: ResultStates) {
    if (!(from instanceof GrownStates)) this.base = from;
    // States grown from none are their own: final, like every pass's states once it returns.
    else if (from.base.size === 0) this.base = from.own;
    else if (from.own.size * 4 > from.base.size) this.base = new Map(from);
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

  has(handle: string): boolean {
    return this.own.has(handle) || this.base.has(handle);
  }

  set(handle: string, state: ResultState): this {
    this.own.set(handle, state);
    return this;
  }

  *entries(): MapIterator<[string, ResultState]> {
    for (const [handle, state] of this.base) yield [handle, this.own.get(handle) ?? state];
    for (const entry of this.own) if (!this.base.has(entry[0])) yield entry;
  }

  *keys(): MapIterator<string> {
    for (const [handle] of this.entries()) yield handle;
  }

  *values(): MapIterator<ResultState> {
    for (const [, state] of this.entries()) yield state;
  }

  forEach(each: (state: ResultState, handle: string, map: ResultStates) => void): void {
    for (const [handle, state] of this.entries()) each(state, handle, this);
  }

  [Symbol.iterator](): MapIterator<[string, ResultState]> {
    return this.entries();
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
  changes.set(states, { characters: 0, shortened: 0 });
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
  let change = changes.get(before);
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
  if (change !== undefined) changes.set(states, change);
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
function changedSince(
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
function firstChanged(
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
    : floorsOf(draft.output(result, facts).elements, form, draft.toolOf(result, facts), view, policy);
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
  changes.set(states, { characters: 0, shortened: 0 });
  return states;
}

/** What the states change from every result full: characters, and results shown shortened; kept with each pass's states. */
const changes = new WeakMap<ReadonlyMap<string, ResultShape>, Sizes>();

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
  elements: readonly Element[],
  form: Form,
  tool: string | null,
  view: Trace,
  policy: ContextPolicy,
): ReadonlyMap<string, Form> {
  let floors: Map<string, Form> | undefined;
  const protect = policy.protect;
  // Indexed loops: a pass asks this of every result it shrinks, and an iterator is an object each time.
  for (let index = 0; index < elements.length; index += 1) {
    const element = elements[index]!;
    let lifted: Form = STUBBED;
    for (let at = 0; at < protect.length; at += 1) {
      const floor = protect[at]!;
      if (floor.form > lifted && floor.applies(element, tool, view)) lifted = floor.form;
    }
    if (lifted > form) (floors ??= new Map()).set(element.id, lifted);
  }
  return floors ?? FULL_SHAPE.floors;
}
