/** What the conformance suite of TraceStore needs: how to open a store, events to append, and readers. */
import type { LogEntry, StoredEvent } from "../../../../src/domain/events.js";
import type { TraceStore } from "../../../../src/ports/store.js";

/** A new, empty store, and more stores on the same data through connections of their own. */
export interface StoreFixture {
  store: TraceStore;
  /** Another store on the same data (PostgreSQL: another pool; SQLite: another connection; memory: the same store). */
  other(): Promise<TraceStore>;
  /** Close every store of the fixture and drop what it made. */
  close(): Promise<void>;
  /**
   * Let `milliseconds` pass for the stores' leases: a ManualClock's advance where the stores take a clock (memory,
   * SQLite); PostgreSQL reads its server's time, so its fixture waits that long.
   */
  pass(milliseconds: number): Promise<void>;
}

/** Opens a fresh fixture for one test. */
export type OpenStore = () => Promise<StoreFixture>;

/** The longest a test waits for something that must happen; only a hang reaches it. */
export const PATIENCE_MS = 45_000;

let counter = 0;

/** A thread id of this test alone. */
export function threadId(label = "thread"): string {
  return `${label}-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** An unsealed event of a type the store does not know (it never reads types). */
export function event(payload: Record<string, unknown> = {}, stream = "main"): StoredEvent {
  return {
    type: "note",
    stream,
    actor: "system",
    origin: null,
    payload: payload as StoredEvent["payload"],
    seq: null,
    ts: null,
    version: null,
  };
}

/** `count` unsealed events numbered from `from` in their payload's `i`. */
export function events(count: number, from = 0, stream = "main"): StoredEvent[] {
  return Array.from({ length: count }, (_, index) => event({ i: from + index }, stream));
}

/** Everything an iterable yields. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** The first `count` items an iterable yields; the rest is never asked for. */
export async function take<T>(iterable: AsyncIterable<T>, count: number): Promise<T[]> {
  const items: T[] = [];
  if (count === 0) return items;
  for await (const item of iterable) {
    items.push(item);
    if (items.length === count) break;
  }
  return items;
}

/** Settle within PATIENCE_MS or fail naming what did not happen. */
export async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Waited ${PATIENCE_MS} ms and ${what} did not happen.`)), PATIENCE_MS);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A read with follow, running in the background: what it saw so far, and whether it ended. */
export class Follower {
  readonly entries: LogEntry<StoredEvent>[] = [];
  /** Resolves when the read ends (rejects if it threw). */
  readonly done: Promise<void>;
  private ended = false;
  private readonly controller = new AbortController();
  private wake: () => void = () => {};

  constructor(store: TraceStore, thread: string, after = 0) {
    this.done = (async () => {
      try {
        for await (const entry of store.read(thread, { after, follow: true, signal: this.controller.signal })) {
          this.entries.push(entry);
          this.wake();
        }
      } finally {
        this.ended = true;
        this.wake();
      }
    })();
    this.done.catch(() => {});
  }

  /** The positions seen so far. */
  get positions(): number[] {
    return this.entries.map((entry) => entry.position);
  }

  /** Wait until the follower saw `count` entries in all. */
  async saw(count: number): Promise<void> {
    await within(
      (async () => {
        while (this.entries.length < count && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
      })(),
      `a follower seeing ${count} entries (it saw ${this.entries.length})`,
    );
    if (this.entries.length < count)
      throw new Error(`The follow ended after ${this.entries.length} of ${count} entries.`);
  }

  /** Wait until the read ends by itself. */
  async end(): Promise<void> {
    await within(this.done, "the end of a follow");
  }

  /** End the read through its AbortSignal, and wait until it returns. */
  async stop(): Promise<void> {
    this.controller.abort();
    await within(this.done, "the end of an aborted follow");
  }
}
