/** The Trace: a thread's events (or one stream's), decoded, with their positions. */
import { type Event, type EventType, type LogEntry, type Stream, Input } from "./events.js";
import { appended } from "./lists.js";

/**
 * The events of a thread or of one stream, decoded, in log order. The context builder reads only this.
 * Immutable: its lists (entries, events, streams, events by type) and indexes are made once, on first use.
 * A longer trace made by `with` makes its lists, when asked, from this one's and the entries added since
 * (a copy of each list asked, no scan of the thread), so a cached trace grown by a few events costs what
 * those events cost.
 */
export class Trace {
  private entryList: readonly LogEntry<Event>[] | undefined;
  private entriesFrom: Pending<LogEntry<Event>> | undefined;
  private count: number;
  private lastEntry: LogEntry<Event> | undefined;
  private readonly whole: Trace | undefined;
  private eventList: readonly Event[] | undefined;
  private eventsFrom: Pending<Event> | undefined;
  private turnList: readonly Event[] | undefined;
  private readonly streams = new Map<Stream, Trace>();
  private readonly typed = new Map<EventType<any, any>, readonly Event[]>();
  private readonly typedFrom = new Map<EventType<any, any>, Pending<Event>>();
  private readonly growing = new Map<GrowingIndex<any>, Carried<any>>();

  /** `thread` is the whole thread's trace when this one is a view of it (one stream, or a prefix). */
  constructor(entries: readonly LogEntry<Event>[] = [], thread?: Trace) {
    this.entryList = entries;
    this.count = entries.length;
    this.lastEntry = entries.at(-1);
    this.whole = thread;
  }

  /** The whole thread's trace, every stream: element numbers and handles are the thread's. */
  get thread(): Trace {
    return this.whole ?? this;
  }

  /** Make a trace of events that have no positions yet: they get 1, 2, 3, ... */
  static of(events: readonly Event[]): Trace {
    return new Trace(events.map((event, index) => ({ position: index + 1, event })));
  }

  /** The entries: each event with its position in the thread's log. */
  get entries(): readonly LogEntry<Event>[] {
    if (this.entryList === undefined) {
      this.entryList = made(this.entriesFrom!, (entry) => entry);
      this.entriesFrom = undefined;
    }
    return this.entryList;
  }

  /** Every event, in log order. */
  get events(): readonly Event[] {
    // A view that holds every event of its thread (the one stream, or a cut of a one-stream thread) is a
    // subsequence of its thread as long as it: it shares the thread's list.
    if (this.eventList === undefined && this.whole !== undefined && this.count === this.whole.count) {
      this.eventList = this.whole.events;
      this.eventsFrom = undefined;
    }
    if (this.eventList === undefined) {
      const from = this.eventsFrom;
      const events = from ? made(from, (entry) => entry.event) : this.entries.map((entry) => entry.event);
      // The turn starts of the shorter list, when known, grow by the added events alone.
      const known = from && starts.get(from.base);
      if (known) starts.set(events, [...known, ...startsOf(events, from!.base.length)]);
      this.eventList = events;
      this.eventsFrom = undefined;
    }
    return this.eventList;
  }

  /** The number of events. */
  get length(): number {
    return this.count;
  }

  /** The position of the last event, or 0 for an empty trace. */
  get position(): number {
    return this.lastEntry?.position ?? 0;
  }

  /** The last event, or undefined for an empty trace. */
  get last(): Event | undefined {
    return this.lastEntry?.event;
  }

  /**
   * The events of the running turn: from the last input that started a turn, that input first (every
   * event when none did), as `turnEvents(trace.events)`. Read from the end, so it costs what the turn holds.
   */
  get turn(): readonly Event[] {
    if (this.turnList === undefined) {
      this.turnList =
        this.eventList !== undefined || this.eventsFrom !== undefined
          ? turnOf(this.eventList ? { base: this.eventList, since: NO_ENTRIES } : this.eventsFrom!, (event) => event)
          : turnOf(
              this.entryList ? { base: this.entryList, since: NO_ENTRIES } : this.entriesFrom!,
              (entry) => entry.event,
            );
    }
    return this.turnList;
  }

  /** The events from the one at `index` on, as `trace.events.slice(index)`, read from there. */
  from(index: number): readonly Event[] {
    if (this.eventList !== undefined) return this.eventList.slice(index);
    if (this.eventsFrom !== undefined) return after(this.eventsFrom, index, (event) => event);
    if (this.entryList !== undefined) return this.entryList.slice(index).map((entry) => entry.event);
    return after(this.entriesFrom!, index, (entry) => entry.event);
  }

  /** The events of a type, subtypes included, in log order. `byType(Event)` gives every event. */
  byType<T extends Event>(type: EventType<T, any>): T[] {
    return [...this.typedList(type)] as T[];
  }

  /** The last event of a type (subtypes included), or undefined: `byType(type).at(-1)` without the list. */
  lastOf<T extends Event>(type: EventType<T, any>): T | undefined {
    const found = this.typed.get(type);
    if (found) return found.at(-1) as T | undefined;
    const from = this.typedFrom.get(type);
    if (!from) return this.typedList(type).at(-1) as T | undefined;
    const added = from.since.findLast((entry) => type.is(entry.event));
    return (added?.event ?? from.base.at(-1)) as T | undefined;
  }

  private typedList(type: EventType<any, any>): readonly Event[] {
    let found = this.typed.get(type);
    if (!found) {
      const from = this.typedFrom.get(type);
      found = from
        ? made({ base: from.base, since: from.since.filter((entry) => type.is(entry.event)) }, (entry) => entry.event)
        : this.events.filter((event) => type.is(event));
      this.typed.set(type, found);
      this.typedFrom.delete(type);
    }
    return found;
  }

  /**
   * The thread's index of a kind (element numbers, result handles), made on first use from every event of
   * the thread. A longer trace that `with` made takes it over when it first asks, told of the new events
   * alone; this trace then makes its own again if asked. So use an index at once, not across the use of
   * a longer trace's.
   */
  index<T>(kind: GrowingIndex<T>): T {
    if (this.whole) return this.whole.index(kind);
    const carried = this.growing.get(kind) as Carried<T> | undefined;
    // The index is this trace's when no longer trace took it over: it was told of the events before `since`.
    if (carried && carried.held.told === this.count - carried.since.length) {
      if (carried.since.length > 0) {
        kind.append(
          carried.held.index,
          carried.since.map((entry) => entry.event),
        );
        carried.held.told = this.count;
        this.growing.set(kind, { held: carried.held, since: [] });
      }
      return carried.held.index;
    }
    const held = { index: kind.make(), told: this.count };
    kind.append(held.index, this.events);
    this.growing.set(kind, { held, since: [] });
    return held.index;
  }

  /** The trace of one stream. */
  stream(name: Stream): Trace {
    let stream = this.streams.get(name);
    if (!stream) {
      stream = new Trace(
        this.entries.filter((entry) => entry.event.stream === name),
        this.thread,
      );
      this.streams.set(name, stream);
    }
    return stream;
  }

  /** The trace up to (not including) the event at `index`; its thread is cut at the same position. */
  before(index: number): Trace {
    const cut = this.entries[index]?.position;
    // A cut of a thread is the thread cut there: one trace, its events a slice of the thread's where it has them.
    if (this.whole === undefined && cut !== undefined) {
      const view = new Trace(this.entries.slice(0, index));
      if (this.eventList !== undefined) view.eventList = this.eventList.slice(0, index);
      return view;
    }
    const thread = cut === undefined ? this.thread : new Trace(this.thread.entries.slice(0, placeOf(this.thread, cut)));
    return new Trace(this.entries.slice(0, index), thread === this ? undefined : thread);
  }

  /**
   * A trace with more entries after these. It makes its lists when asked, from those this trace made and
   * the new entries (its streams and indexes too), so it costs what the new entries cost, not what the
   * thread holds.
   */
  with(entries: readonly LogEntry<Event>[]): Trace {
    if (this.whole) return this.grown(entries, this.whole.with(entries));
    const next = this.grown(entries, undefined);
    for (const [kind, carried] of this.growing)
      if (carried.since.length + entries.length <= MAX_PENDING)
        next.growing.set(kind, { held: carried.held, since: [...carried.since, ...entries] });
    for (const [name, stream] of this.streams)
      next.streams.set(
        name,
        stream.grown(
          entries.filter((entry) => entry.event.stream === name),
          next,
        ),
      );
    return next;
  }

  private grown(entries: readonly LogEntry<Event>[], thread: Trace | undefined): Trace {
    const next = new Trace(NO_ENTRIES, thread);
    next.count = this.count + entries.length;
    next.lastEntry = entries.at(-1) ?? this.lastEntry;
    next.entryList = undefined;
    next.entriesFrom = pending(this.entryList, this.entriesFrom, entries);
    // Entries too many to keep waiting are made now; the other lists are made again from them when asked.
    if (next.entriesFrom!.since.length > MAX_PENDING) next.entryList = next.entries;
    const events = pending(this.eventList, this.eventsFrom, entries);
    if (events && events.since.length <= MAX_PENDING) next.eventsFrom = events;
    for (const [type, found] of this.typed) next.typedFrom.set(type, { base: found, since: entries });
    for (const [type, from] of this.typedFrom) {
      if (this.typed.has(type) || from.since.length + entries.length > MAX_PENDING) continue;
      next.typedFrom.set(type, { base: from.base, since: [...from.since, ...entries] });
    }
    return next;
  }
}

/** How many of a thread's entries come before `position`: positions grow along the log, so it is searched by halves. */
function placeOf(thread: Trace, position: number): number {
  const entries = thread.entries;
  let [low, high] = [0, entries.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (entries[middle]!.position < position) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A list made when asked: a shorter trace's list, and the entries added after it (not yet filtered). */
interface Pending<T> {
  readonly base: readonly T[];
  readonly since: readonly LogEntry<Event>[];
}

/** An index that traces hand on: the traces that share it agree on how many events it was told of. */
interface Carried<T> {
  readonly held: { readonly index: T; told: number };
  /** The entries after those the index was told of, up to this trace's last. */
  readonly since: readonly LogEntry<Event>[];
}

const NO_ENTRIES: readonly LogEntry<Event>[] = [];
/** How many added entries a list waits with before a longer trace makes it again from its entries. */
const MAX_PENDING = 1_024;

function pending<T>(
  list: readonly T[] | undefined,
  from: Pending<T> | undefined,
  entries: readonly LogEntry<Event>[],
): Pending<T> | undefined {
  if (list !== undefined) return { base: list, since: entries };
  return from && { base: from.base, since: [...from.since, ...entries] };
}

/** The running turn's events of a pending list, read from its end: from the last input on (all when none). */
function turnOf<T>(from: Pending<T>, event: (item: T) => Event): Event[] {
  const at = from.since.findLastIndex((entry) => Input.is(entry.event));
  const since = from.since.slice(Math.max(at, 0)).map((entry) => entry.event);
  if (at >= 0) return since;
  let start = from.base.length - 1;
  while (start > 0 && !Input.is(event(from.base[start]!))) start--;
  return [...from.base.slice(Math.max(start, 0)).map(event), ...since];
}

/** The events of a pending list from the one at `index` on. */
function after<T>(from: Pending<T>, index: number, event: (item: T) => Event): Event[] {
  const added = from.since.slice(Math.max(index - from.base.length, 0)).map((entry) => entry.event);
  return index >= from.base.length ? added : [...from.base.slice(index).map(event), ...added];
}

function made<T>(from: Pending<T>, item: (entry: LogEntry<Event>) => T): readonly T[] {
  return appended(from.base, from.since.map(item));
}

/** A kind of index of a thread's events that grows as events are appended: how to make one, and to tell it of more. */
export interface GrowingIndex<T> {
  /** An index of no events. */
  make(): T;
  /** Tell the index of events that follow those it was told of. */
  append(index: T, events: readonly Event[]): void;
}

const starts = new WeakMap<readonly Event[], readonly number[]>();

/**
 * The index of each input that starts a turn, in order: a turn runs from one to the next. Kept for the
 * list it was asked of, so a trace's `events` (made once) are scanned once.
 */
export function turnStarts(events: readonly Event[]): number[] {
  let found = starts.get(events);
  if (!found) starts.set(events, (found = startsOf(events, 0)));
  return [...found];
}

function startsOf(events: readonly Event[], from: number): number[] {
  const found: number[] = [];
  for (let index = from; index < events.length; index++) if (Input.is(events[index]!)) found.push(index);
  return found;
}

/** The events of the running turn: from the last input that started a turn, that input first. */
export function turnEvents(events: readonly Event[]): readonly Event[] {
  return events.slice(lastTurnStart(events));
}

/** The index of the input that starts the running turn, or 0 when no input has. */
export function lastTurnStart(events: readonly Event[]): number {
  if (!starts.has(events)) turnStarts(events);
  return starts.get(events)!.at(-1) ?? 0;
}

/** The trace of a step's stream; its `thread` is the whole thread. */
export function streamTrace(context: { readonly trace: Trace; readonly stream: Stream }): Trace {
  return context.trace.stream(context.stream);
}

/** Put texts back into a content at their positions: the markers of a model output, for printing. */
export function inserted(content: string, markers: readonly (readonly [number, string])[]): string {
  // A model output's markers come in order: they are copied to sort only when they do not.
  let ordered = true;
  for (let index = 1; index < markers.length && ordered; index += 1)
    ordered = markers[index - 1]![0] <= markers[index]![0];
  const sorted = ordered ? markers : [...markers].sort((a, b) => a[0] - b[0]);
  let result = "";
  let from = 0;
  for (let index = 0; index < sorted.length; index += 1) {
    const [at, text] = sorted[index]!;
    result += content.slice(from, at) + text;
    from = at;
  }
  return result + content.slice(from);
}
