/** InMemoryTraceStore: the trace store of one process's memory, for tests and apps that need no durability. */
import type { Stream, LogEntry, StoredEvent } from "../../domain/events.js";
import { SYSTEM_CLOCK, type Clock } from "../../ports/clock.js";
import type { AppendOptions, Lease, ReadOptions, ThreadsOptions, TraceStore } from "../../ports/store.js";
import { ThreadChanges } from "./changes.js";
import { readLog, readLogBackwards, type LogPages, type Page } from "./reader.js";
import {
  acquired,
  checkExpected,
  checkLease,
  liveLease,
  newestFirst,
  released,
  renewed,
  seal,
  toEntry,
  type EventRow,
  type LeaseState,
} from "./rules.js";
import {
  StoreClosedError,
  checkCount,
  checkExpectedShape,
  checkLeaseShape,
  checkLeaseTerms,
  checkThreadId,
  prepareAppend,
  prepareLoad,
} from "./validation.js";

interface MemoryThread {
  /** Tells this thread from a later one under the same id. */
  key: string;
  rows: EventRow[];
  lengths: Map<Stream, number>;
}

/** Options of InMemoryTraceStore. */
export interface InMemoryTraceStoreOptions {
  /** Where the store reads the time for its events' timestamps and its leases. Default SYSTEM_CLOCK. */
  clock?: Clock;
}

/**
 * A TraceStore in memory. Payloads are kept as JSON text, so a read yields fresh objects exactly as the
 * SQL stores do, and nothing a caller mutates changes the log.
 *
 * @example
 * ```ts
 * import { InMemoryTraceStore } from "soev-agents";
 * import { AgentCatalog } from "soev-agents/runtime";
 * import type { ReActAgent } from "soev-agents/toolkit";
 *
 * declare const assistant: ReActAgent;
 * const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant }, { version: "test" });
 * ```
 */
export class InMemoryTraceStore implements TraceStore {
  private readonly clock: Clock;
  private readonly logs = new Map<string, MemoryThread>();
  private readonly leases = new Map<string, LeaseState>();
  private readonly changes = new ThreadChanges();
  private keys = 0;
  private isClosed = false;
  private readonly pages: LogPages = {
    forward: (threadId, after, limit) =>
      Promise.resolve(this.page(threadId, (rows) => rows.slice(after, after + limit))),
    backward: (threadId, before, limit) =>
      Promise.resolve(
        this.page(threadId, (rows) => {
          const end = before === null ? rows.length : before - 1;
          return rows.slice(Math.max(0, end - limit), end).reverse();
        }),
      ),
    checkOpen: () => this.checkOpen(),
    isClosed: () => this.isClosed,
  };

  /** A store in this process's memory; `clock` times its events and leases (default SYSTEM_CLOCK). */
  constructor(options: InMemoryTraceStoreOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.append} */
  async append(threadId: string, events: readonly StoredEvent[], options: AppendOptions = {}): Promise<StoredEvent[]> {
    this.checkOpen();
    checkThreadId(threadId);
    const prepared = prepareAppend(events);
    checkExpectedShape(options.expected);
    if (options.lease != null) checkLeaseShape(options.lease, threadId);
    const thread = this.logs.get(threadId);
    const lengthOf = (stream: Stream) => thread?.lengths.get(stream) ?? 0;
    checkLease(threadId, this.leases.get(threadId) ?? null, options.lease);
    checkExpected(threadId, options.expected, lengthOf);
    if (prepared.length === 0) return [];
    const rows = seal(prepared, lengthOf, thread?.rows.length ?? 0, new Date(this.clock.now()).toISOString());
    const target = thread ?? this.create(threadId);
    for (const row of rows) {
      target.rows.push(row);
      target.lengths.set(row.stream, row.seq + 1);
    }
    this.changes.notify(threadId);
    return rows.map((row) => toEntry(row).event);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.acquire} */
  async acquire(threadId: string, options: { owner: string; ttl: number }): Promise<Lease> {
    this.checkOpen();
    checkThreadId(threadId);
    checkLeaseTerms(options, true);
    const next = acquired(threadId, this.leases.get(threadId) ?? null, options.owner, options.ttl, this.clock.now());
    this.leases.set(threadId, next);
    return { threadId, owner: next.owner, counter: next.counter };
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.renew} */
  async renew(lease: Lease, options: { ttl: number }): Promise<void> {
    this.checkOpen();
    checkLeaseShape(lease);
    checkLeaseTerms(options, false);
    this.leases.set(
      lease.threadId,
      renewed(this.leases.get(lease.threadId) ?? null, lease, options.ttl, this.clock.now()),
    );
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.release} */
  async release(lease: Lease): Promise<void> {
    this.checkOpen();
    checkLeaseShape(lease);
    const next = released(this.leases.get(lease.threadId) ?? null, lease);
    if (next) this.leases.set(lease.threadId, next);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.lease} */
  async lease(threadId: string): Promise<Lease | null> {
    this.checkOpen();
    checkThreadId(threadId);
    return liveLease(threadId, this.leases.get(threadId) ?? null, this.clock.now());
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.read} */
  read(threadId: string, options: ReadOptions = {}): AsyncIterable<LogEntry<StoredEvent>> {
    return readLog(this.pages, this.changes, threadId, options);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.readBackwards} */
  readBackwards(threadId: string): AsyncIterable<LogEntry<StoredEvent>> {
    return readLogBackwards(this.pages, threadId);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.load} */
  async load(threadId: string, events: readonly StoredEvent[]): Promise<void> {
    this.checkOpen();
    checkThreadId(threadId);
    const sealed = prepareLoad(events);
    this.logs.delete(threadId);
    if (sealed.length > 0) {
      const thread = this.create(threadId);
      sealed.forEach((event, index) => {
        thread.rows.push({ ...event, position: index + 1 });
        thread.lengths.set(event.stream, event.seq + 1);
      });
    }
    this.changes.notify(threadId);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.threads} */
  async threads(options: ThreadsOptions): Promise<[string, StoredEvent][]> {
    this.checkOpen();
    checkCount("limit", options.limit);
    const principal = options.principal ?? null;
    const listed = [...this.logs.entries()]
      .map(([id, thread]) => ({ id, first: thread.rows[0]!, firstTs: thread.rows[0]!.ts }))
      .filter((thread) => principal === null || principalOf(thread.first) === principal);
    listed.sort(newestFirst);
    let start = 0;
    if (options.before != null) {
      start = listed.findIndex((thread) => thread.id === options.before) + 1;
      if (start === 0) return [];
    }
    return listed.slice(start, start + options.limit).map((thread) => [thread.id, toEntry(thread.first).event]);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.delete} */
  async delete(threadId: string): Promise<void> {
    this.checkOpen();
    checkThreadId(threadId);
    this.logs.delete(threadId);
    this.leases.delete(threadId);
    this.changes.notify(threadId);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.close} */
  async close(): Promise<void> {
    this.isClosed = true;
    this.changes.notifyAll();
  }

  private create(threadId: string): MemoryThread {
    const thread = { key: String(++this.keys), rows: [], lengths: new Map() };
    this.logs.set(threadId, thread);
    return thread;
  }

  private page(threadId: string, slice: (rows: EventRow[]) => EventRow[]): Page {
    const thread = this.logs.get(threadId);
    return thread ? { key: thread.key, entries: slice(thread.rows).map(toEntry) } : { key: null, entries: [] };
  }

  private checkOpen(): void {
    if (this.isClosed) throw new StoreClosedError("This InMemoryTraceStore is closed: open a new store.");
  }
}

// The principal of a thread's first event when it is an Input, as the SQL stores' index reads it.
function principalOf(first: EventRow): string | null {
  if (first.type !== "input") return null;
  const principal = (JSON.parse(first.payload) as { principal?: unknown }).principal;
  return typeof principal === "string" ? principal : null;
}
