/** The Trace: a thread's events (or one stream's), decoded, with their positions. */
import { type Event, type EventType, type LogEntry, type Stream, Input } from "./events.js";

/**
 * The events of a thread or of one stream, decoded, in log order. The context builder reads only this.
 * Immutable: its indexes (events, streams, events by type) are made once, on first use, and carried over
 * to the longer traces that `with` makes.
 */
export class Trace {
  /** The entries: each event with its position in the thread's log. */
  readonly entries: readonly LogEntry<Event>[];
  private readonly whole: Trace | undefined;
  private eventList: Event[] | undefined;
  private readonly streams = new Map<Stream, Trace>();
  private readonly typed = new Map<EventType<any, any>, readonly Event[]>();
  private readonly growing = new Map<GrowingIndex<any>, unknown>();

  /** `thread` is the whole thread's trace when this one is a view of it (one stream, or a prefix). */
  constructor(entries: readonly LogEntry<Event>[] = [], thread?: Trace) {
    this.entries = entries;
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

  /** Every event, in log order. */
  get events(): readonly Event[] {
    return (this.eventList ??= this.entries.map((entry) => entry.event));
  }

  /** The number of events. */
  get length(): number {
    return this.entries.length;
  }

  /** The position of the last event, or 0 for an empty trace. */
  get position(): number {
    return this.entries.at(-1)?.position ?? 0;
  }

  /** The events of a type, subtypes included, in log order. `byType(Event)` gives every event. */
  byType<T extends Event>(type: EventType<T, any>): T[] {
    let found = this.typed.get(type);
    if (!found) {
      found = this.events.filter((event) => type.is(event));
      this.typed.set(type, found);
    }
    return [...found] as T[];
  }

  /**
   * The thread's index of a kind (element numbers, result handles), made on first use from every event of
   * the thread. `with` hands it on to the longer trace, told of the new events alone; this trace then makes
   * its own again if asked. So use an index at once, not across the making of a longer trace.
   */
  index<T>(kind: GrowingIndex<T>): T {
    if (this.whole) return this.whole.index(kind);
    let index = this.growing.get(kind) as T | undefined;
    if (index === undefined) {
      index = kind.make();
      kind.append(index, this.events);
      this.growing.set(kind, index);
    }
    return index;
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
    const thread =
      cut === undefined ? this.thread : new Trace(this.thread.entries.filter((entry) => entry.position < cut));
    return new Trace(this.entries.slice(0, index), thread === this ? undefined : thread);
  }

  /**
   * A trace with more entries after these. The indexes made so far (events, streams, events by type, turn
   * starts) are carried over and grown by the new entries alone, so a cached trace topped up with a few
   * events costs what those events cost, not what the thread holds.
   */
  with(entries: readonly LogEntry<Event>[]): Trace {
    if (this.whole) return this.grown(entries, this.whole.with(entries));
    const next = this.grown(entries, undefined);
    const added = entries.map((entry) => entry.event);
    for (const [kind, index] of this.growing) {
      kind.append(index, added);
      next.growing.set(kind, index);
    }
    this.growing.clear();
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
    const next = new Trace(entries.length === 0 ? this.entries : [...this.entries, ...entries], thread);
    const added = entries.map((entry) => entry.event);
    if (this.eventList) {
      const events = (next.eventList = [...this.eventList, ...added]);
      const known = starts.get(this.eventList);
      const offset = this.eventList.length;
      if (known)
        starts.set(events, [...known, ...added.flatMap((event, index) => (Input.is(event) ? [offset + index] : []))]);
    }
    for (const [type, found] of this.typed)
      next.typed.set(type, [...found, ...added.filter((event) => type.is(event))]);
    return next;
  }
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
  if (!found) {
    found = events.flatMap((event, index) => (Input.is(event) ? [index] : []));
    starts.set(events, found);
  }
  return [...found];
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
  const sorted = [...markers].sort((a, b) => a[0] - b[0]);
  let result = "";
  let from = 0;
  for (const [at, text] of sorted) {
    result += content.slice(from, at) + text;
    from = at;
  }
  return result + content.slice(from);
}
