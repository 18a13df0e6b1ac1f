/**
 * The runner's reads and writes of the store. One unit of work, exactly once in the trace: read, skip what
 * is recorded, run, and append with the stream's expected length. When another writer moved the stream,
 * read again and decide again. Reads are incremental: each store keeps the decoded traces of its most
 * recently read threads (a bounded LRU), and a read fetches and decodes only the entries after the cached
 * trace's last one (`read({ after })`), so a worker's cost per unit does not grow with the thread.
 */
import { type Event, Failure, type Input, type LogEntry, Request, type StoredEvent } from "../../domain/events.js";
import type { EventTypes } from "../../domain/registry.js";
import type { Spending } from "../spending.js";
import { wireTypeName } from "../../domain/wire-format.js";
import { ValueError } from "../../domain/errors.js";
import { Trace } from "../../domain/trace.js";
import { StreamMovedError } from "../../ports/errors.js";
import { scrubSecrets } from "../../ports/secrets.js";
import type { Observer } from "../../ports/observer.js";
import type { Lease, TraceStore } from "../../ports/store.js";
import type { Step, StepContext, Work } from "../contracts.js";

/** How many threads' decoded traces each store's cache keeps, unless a catalog says (keptTraces). */
export const CACHED_THREADS = 256;

/**
 * How many events the cached traces of a store hold together, unless a catalog says (keptTraces): a decoded
 * event takes about 0.7 KB in a thread of short results (about 175 MB in all) and 5.5 KB where each tool result
 * is 20,000 characters (about 1.3 GB: bench/README.md, the thousand-turn thread), so set it by your results'
 * size. Least recently read threads go first; the thread read last stays, however long it is.
 */
export const CACHED_EVENTS = 250_000;

/** How many threads a cache keeps, and how many events of them together. */
export interface KeptThreads {
  threads: number;
  events: number;
}

/**
 * The bounds of a cache that a setting gives, with `defaults` for what it leaves out.
 * @throws ValueError naming `setting` when it is not an object, or a bound is not a positive integer.
 */
export function keptThreads(given: unknown, defaults: KeptThreads, setting: string): KeptThreads {
  const example = `such as { threads: ${defaults.threads}, events: ${defaults.events} }`;
  if (typeof given !== "object" || given === null)
    throw new ValueError(`${setting} must be an object of threads and events, ${example}.`);
  const { threads = defaults.threads, events = defaults.events } = given as Record<string, unknown>;
  for (const [name, value] of Object.entries({ threads, events }))
    if (!Number.isInteger(value) || (value as number) <= 0)
      throw new ValueError(`${setting}.${name} must be a positive integer, not ${String(value)}: ${example}.`);
  return { threads: threads as number, events: events as number };
}

interface Cached {
  types: EventTypes;
  trace: Trace;
  /** How many of the trace's entries came from a read; those after are the cache's own appends, unconfirmed. */
  confirmed: number;
}

/**
 * The decoded traces of a store's most recently read threads, bounded by a count of threads and of events
 * (a thread of ten thousand events holds as much as thousands of short ones). Map order is insertion order:
 * the first thread is the least recently used.
 */
export class TraceCache {
  private readonly threads = new Map<string, Cached>();
  private events = 0;

  /** `limits` are the bounds, which keepTraces may set again: a thread past them goes at the next remember. */
  constructor(public limits: KeptThreads = { threads: CACHED_THREADS, events: CACHED_EVENTS }) {}

  /** The thread's cached trace, or undefined. */
  get(threadId: string): Cached | undefined {
    return this.threads.get(threadId);
  }

  /** Keep `cached` as the thread's, the most recently used, and let the least recently used go past the limits. */
  remember(threadId: string, cached: Cached): void {
    this.forget(threadId);
    this.threads.set(threadId, cached);
    this.events += cached.trace.length;
    for (const [oldest, { trace }] of this.threads) {
      if (oldest === threadId || (this.threads.size <= this.limits.threads && this.events <= this.limits.events)) break;
      this.threads.delete(oldest);
      this.events -= trace.length;
    }
  }

  /** Drop the thread's cached trace, if any. */
  forget(threadId: string): void {
    const cached = this.threads.get(threadId);
    if (cached === undefined) return;
    this.threads.delete(threadId);
    this.events -= cached.trace.length;
  }
}

const caches = new WeakMap<TraceStore, TraceCache>();

/**
 * Read a thread's whole log and decode it. An unknown thread gives an empty trace. A cached trace is
 * topped up with what is new; when the entry it ended with is gone or differs (the thread was deleted or
 * loaded again), it is read whole.
 */
export async function readTrace(store: TraceStore, types: EventTypes, threadId: string): Promise<Trace> {
  const cache = cacheOf(store);
  const cached = cache.get(threadId);
  let trace = cached?.types === types ? await toppedUp(store, types, threadId, cached.trace) : undefined;
  // The cache's own appends sit where no other writer came between; when one did, read again from
  // the last entry that a read confirmed.
  if (trace === undefined && cached?.types === types && cached.confirmed < cached.trace.length)
    trace = await toppedUp(store, types, threadId, new Trace(cached.trace.entries.slice(0, cached.confirmed)));
  trace ??= new Trace(await decoded(store, types, threadId, 0));
  cache.remember(threadId, { types, trace, confirmed: trace.length });
  return trace;
}

/**
 * Set how many threads and events the decoded traces kept for `store` hold; the least recently read go at the
 * next read. Every catalog and runner on the store shares its cache.
 */
export function keepTraces(store: TraceStore, limits: KeptThreads): void {
  cacheOf(store).limits = limits;
}

// The cache of a store's decoded traces, made on first use.
function cacheOf(store: TraceStore): TraceCache {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new TraceCache()));
  return cache;
}

/**
 * Extend the cached trace with events that an append on top of `base` just recorded, when `base` is what
 * the cache holds: the next read then fetches only what others wrote since. Their positions are assumed
 * to follow `base`; the next read checks its anchor (position, stream, seq, ts) and reads again from the
 * last confirmed entry when another stream's writer came between.
 */
function extendCached(recorder: Recorder, base: Trace, recorded: readonly Event[]): void {
  const cache = caches.get(recorder.store);
  const cached = cache?.get(recorder.threadId);
  if (cached?.types !== recorder.types || cached.trace !== base || recorded.length === 0) return;
  const from = base.position;
  const trace = base.with(recorded.map((event, index) => ({ position: from + index + 1, event })));
  cache!.remember(recorder.threadId, { ...cached, trace });
}

async function toppedUp(
  store: TraceStore,
  types: EventTypes,
  threadId: string,
  trace: Trace,
): Promise<Trace | undefined> {
  const last = trace.last;
  if (last === undefined) return undefined;
  const position = trace.position;
  // Read from the cached last entry on: it must still be there as it was.
  let seen = false;
  const fresh: LogEntry<Event>[] = [];
  for await (const entry of store.read(threadId, { after: position - 1 })) {
    if (!seen) {
      if (!sameEntry(entry, position, last)) return undefined;
      seen = true;
      continue;
    }
    fresh.push({ position: entry.position, event: types.decode(entry.event) });
  }
  if (!seen) return undefined;
  return fresh.length > 0 ? trace.with(fresh) : trace;
}

async function decoded(
  store: TraceStore,
  types: EventTypes,
  threadId: string,
  after: number,
): Promise<LogEntry<Event>[]> {
  const entries = [];
  for await (const entry of store.read(threadId, { after }))
    entries.push({ position: entry.position, event: types.decode(entry.event) });
  return entries;
}

function sameEntry(entry: LogEntry<StoredEvent>, position: number, cached: Event): boolean {
  const { event } = entry;
  return (
    entry.position === position &&
    event.type === wireTypeName(cached.type) &&
    event.stream === cached.stream &&
    event.seq === cached.seq &&
    event.ts === cached.ts
  );
}

/** Where a unit of work reads and records: the store, the registry, the lease and the code version. */
export interface Recorder {
  store: TraceStore;
  types: EventTypes;
  threadId: string;
  lease?: Lease | null;
  version?: string | null;
  /** The agent's budgets, checked before each model call; none when absent. */
  spending?: Spending | null;
}

/** What running one unit of work did: the events it recorded, or none when the trace had them already. */
export interface WorkResult {
  recorded: Event[];
  skipped: boolean;
}

/**
 * How a unit waits for its turn to append, when its step is not `ready` for it: it returns once the step
 * may be, with the trace read after the wait. The local runner waits for the unit before it; an activity
 * reads the store again until the earlier units are recorded.
 */
export type WaitReady = (trace: Trace) => Promise<Trace>;

/**
 * Run one unit of a step's work against the store, exactly once in the trace. A caller that has just read
 * the thread passes that trace and saves a read: a view that is out of date is caught by the append's
 * `expected` and decided again. A step that orders its units (`ready`) has the unit wait through
 * `waitReady` after it ran and before it appends; without `waitReady` it appends at once.
 */
export async function runWork(
  recorder: Recorder,
  step: Step,
  context: Omit<StepContext, "trace"> & { trace?: Trace },
  work: Work,
  waitReady?: WaitReady,
): Promise<WorkResult> {
  let trace = context.trace ?? (await readTrace(recorder.store, recorder.types, recorder.threadId));
  if (step.done({ ...context, trace }, work.key)) return { recorded: [], skipped: true };
  const kind = work.kind;
  // From the trace, before the call: a retry or a worker that took over sees every call made so far.
  if (kind === "model") recorder.spending?.checkCall(trace.thread.events);
  if (kind === "model" || kind === "tool")
    safely(() =>
      context.observer?.call?.(
        recorder.threadId,
        context.stream,
        context.node,
        kind,
        work.name,
        kind === "tool" ? work.key : null,
      ),
    );
  let events = await step.run({ ...context, trace }, work.key);
  if (waitReady && step.ready && !step.ready({ ...context, trace }, work.key)) {
    trace = await waitReady(trace);
    // Another attempt may have recorded the unit while this one waited.
    if (step.done({ ...context, trace }, work.key)) return { recorded: [], skipped: true };
  }
  for (;;) {
    // A Request that another attempt recorded meanwhile is recorded once: its id is stable.
    events = events.filter((event) => !Request.is(event) || !recordedRequest(trace, context.stream, event.requestId));
    if (events.length === 0) return { recorded: [], skipped: true };
    try {
      const recorded = await append(recorder, events, trace, context.stream);
      for (const event of recorded) safely(() => context.observer?.event?.(recorder.threadId, context.agent, event));
      return { recorded, skipped: false };
    } catch (error) {
      if (!StreamMovedError.isInstance(error)) throw error;
      trace = await readTrace(recorder.store, recorder.types, recorder.threadId);
      if (step.done({ ...context, trace }, work.key)) return { recorded: [], skipped: true };
    }
  }
}

function recordedRequest(trace: Trace, stream: string, requestId: string): boolean {
  return trace
    .stream(stream)
    .byType(Request)
    .some((event) => event.requestId === requestId);
}

/** Append events to one stream, refused if the stream grew since `trace` was read. */
export async function append(
  recorder: Recorder,
  events: readonly Event[],
  trace: Trace,
  stream: string,
): Promise<Event[]> {
  const expected = { [stream]: trace.stream(stream).length };
  const stored = await recorder.store.append(recorder.threadId, checked(recorder, events), {
    expected,
    lease: recorder.lease ?? null,
  });
  const recorded = stored.map((event) => recorder.types.decode(event));
  extendCached(recorder, trace.thread, recorded);
  return recorded;
}

/**
 * Append a fact, unchecked by `expected` (a Failure): whatever the stream holds, it happened. The cache is
 * not extended (no read fixed where it lands); the next read fetches it.
 */
export async function appendFact(recorder: Recorder, event: Event): Promise<Event> {
  const [stored] = await recorder.store.append(recorder.threadId, checked(recorder, [event]), {
    lease: recorder.lease ?? null,
  });
  return recorder.types.decode(stored!);
}

/** The events as the store takes them, each checked against its type (nothing is written when one fails). */
function checked(recorder: Recorder, events: readonly Event[]): StoredEvent[] {
  return events.map((event) => recorder.types.check({ ...event, version: event.version ?? recorder.version ?? null }));
}

/** Record that a step failed: the error's class name and message. A fact: appended unchecked by `expected`. */
export async function recordFailure(
  recorder: Recorder,
  error: unknown,
  where: { stream: string; node: string | null; callId?: string | null },
): Promise<Event> {
  const failure = Failure({
    error: error instanceof Error ? error.name : "Error",
    message: scrubSecrets(error instanceof Error ? error.message : String(error)),
    retryable: (error as { retryable?: unknown } | null)?.retryable === true,
    callId: where.callId ?? null,
    stream: where.stream,
    origin: where.node,
    version: recorder.version ?? null,
  });
  return appendFact(recorder, failure);
}

/** Call an observer method; an observer that raises is logged and never changes the run. */
export function safely(watch: () => void): void {
  try {
    watch();
  } catch (error) {
    ignored(error);
  }
}

/** Run `body` inside the observer's run context (Observer.run), guarded as {@link aroundGuarded} says. */
export async function observedRun<T>(
  observer: Observer | undefined,
  run: { threadId: string; agent: string | null; opening: Input | null },
  body: () => Promise<T>,
): Promise<T> {
  if (!observer?.run) return body();
  return aroundGuarded((once) => observer.run!(run.threadId, run.agent, run.opening, once), body);
}

/**
 * Run `body` inside an observer's wrapper (Observer.run, Observer.request). An observer that raises, before,
 * around or after the body, or that never calls it, is logged and never changes the work: the body runs exactly
 * once, and its result or its error is the work's, whatever the observer returns.
 */
export async function aroundGuarded<T>(
  around: (body: () => Promise<T>) => Promise<unknown>,
  body: () => Promise<T>,
): Promise<T> {
  let outcome: Promise<T> | undefined;
  const once = (): Promise<T> => {
    if (outcome === undefined) {
      outcome = body();
      // Handled here: the run awaits it below, even when the observer drops it.
      outcome.catch(() => undefined);
    }
    return outcome;
  };
  try {
    await around(once);
  } catch (error) {
    const bodyError =
      outcome === undefined
        ? undefined
        : await outcome.then(
            () => undefined,
            (raised) => raised,
          );
    // The body's own error, passed through the observer, is the run's error: not the observer's fault.
    if (bodyError === undefined || bodyError !== error) ignored(error);
  }
  if (outcome === undefined) ignored(new Error("its run() returned without calling the body; the body ran without it"));
  return once();
}

/** Log an observer's error: observing never changes what it observes. */
export function ignored(error: unknown): void {
  console.warn(`soev-agents: an observer raised and was ignored: ${String(error)}`);
}
