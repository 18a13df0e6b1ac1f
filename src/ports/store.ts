/** TraceStore: the port that keeps each thread's events as a log, and hands out the thread's lease. */
import type { Stream, LogEntry, StoredEvent } from "../domain/events.js";

/** The right to run one thread, as TraceStore.acquire handed it out. */
export interface Lease {
  threadId: string;
  owner: string;
  /** The count of acquisitions on the thread, up to and including this one: it fences a stalled holder. */
  counter: number;
}

/** Options of TraceStore.append. */
export interface AppendOptions {
  /** The length of each stream as the caller last read it; the append is refused if any listed stream grew. */
  expected?: Readonly<Record<Stream, number>> | null;
  /** The lease the caller holds; the append is refused if a later acquisition replaced it. */
  lease?: Lease | null;
}

/** Options of TraceStore.threads. */
export interface ThreadsOptions {
  /** The most threads of the page. */
  limit: number;
  /** The page after this thread id (the last of the previous page), or null for the first page. */
  before?: string | null;
  /** Only the threads opened by an Input of this principal. */
  principal?: string | null;
}

/** Options of TraceStore.read. */
export interface ReadOptions {
  /** Yield only entries whose position is greater than this. 0 reads from the beginning. */
  after?: number;
  /** Wait for new events after the existing ones, like tail -f, until the thread is deleted or loaded. */
  follow?: boolean;
  /** Ends a following read. */
  signal?: AbortSignal;
}

/**
 * A store that keeps the events of each thread as a log of StoredEvents. It seals each event (seq, ts)
 * at append, never reads payloads, and hands out the lease that lets one process at a time run a thread.
 */
export interface TraceStore {
  /** Seal events into their streams, atomically: when it raises, nothing lands. Returns them as stored. */
  append(threadId: string, events: readonly StoredEvent[], options?: AppendOptions): Promise<StoredEvent[]>;
  /** Take the thread's lease for `ttl` seconds. Raises LeaseHeldError while another owner's lease lives. */
  acquire(threadId: string, options: { owner: string; ttl: number }): Promise<Lease>;
  /** Move the lease's expiry to `ttl` seconds from now. Raises LeaseExpiredError when it was replaced. */
  renew(lease: Lease, options: { ttl: number }): Promise<void>;
  /** Give the lease up; a lease that was replaced is left alone. */
  release(lease: Lease): Promise<void>;
  /** The thread's current lease while it lives and is not released, else null. */
  lease(threadId: string): Promise<Lease | null>;
  /** Read a thread's log from a position on; with `follow`, wait for new events. An unknown thread yields nothing. */
  read(threadId: string, options?: ReadOptions): AsyncIterable<LogEntry<StoredEvent>>;
  /** Read a thread's log from the newest entry to the oldest, fetching only what the reader asks for. */
  readBackwards(threadId: string): AsyncIterable<LogEntry<StoredEvent>>;
  /** Replace the thread's log with sealed events, in order (a restore). Followers of the old log end. */
  load(threadId: string, events: readonly StoredEvent[]): Promise<void>;
  /**
   * One page of threads with their first event, newest first (first event's ts, then id, descending). With
   * `principal`, only the threads whose first event is an Input of that principal, through an index on it:
   * an app lists its caller's threads without reading anyone else's.
   */
  threads(options: ThreadsOptions): Promise<[string, StoredEvent][]>;
  /** Remove the thread's log and its lease. Followers end. An unknown id changes nothing. */
  delete(threadId: string): Promise<void>;
  /** Release the store's connections. */
  close(): Promise<void>;
}
