/** SqliteTraceStore: the embedded trace store, one SQLite file (WAL) through better-sqlite3. */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import BetterSqlite3, { type Database, type Transaction } from "better-sqlite3";
import { ValueError } from "../../domain/errors.js";
import type { Stream, LogEntry, StoredEvent } from "../../domain/events.js";
import { SYSTEM_CLOCK, type Clock } from "../../ports/clock.js";
import type { AppendOptions, Lease, ReadOptions, ThreadsOptions, TraceStore } from "../../ports/store.js";
import { readLog, readLogBackwards, type LogPages, type Page } from "./reader.js";
import {
  acquired,
  checkExpected,
  checkLease,
  liveLease,
  released,
  renewed,
  seal,
  streamsOf,
  toEntry,
  type EventRow,
  type LeaseState,
} from "./rules.js";
import { SqliteFollowers } from "./sqlite-followers.js";
import { INSERT_ROWS, ROW_COLUMNS, sqliteStatements, type SqliteStatements } from "./sqlite-statements.js";
import {
  StoreClosedError,
  checkCount,
  checkExpectedShape,
  checkLeaseShape,
  checkLeaseTerms,
  checkThreadId,
  prepareAppend,
  prepareLoad,
  type PreparedEvent,
} from "./validation.js";

/** Options of SqliteTraceStore. */
export interface SqliteTraceStoreOptions {
  /** Seconds a write waits for another connection's write lock before it fails. */
  busyTimeout?: number;
  /** Seconds between checks for changes that other processes made, while a read follows a thread. */
  pollInterval?: number;
  /** Where the store reads the time for its events' timestamps and its leases. Default SYSTEM_CLOCK. */
  clock?: Clock;
}

const DEFAULTS: Required<SqliteTraceStoreOptions> = { busyTimeout: 5, pollInterval: 0.25, clock: SYSTEM_CLOCK };

/** What an append needs of a thread: its key (null: no row yet), its length, the streams' lengths, its lease. */
interface KnownThread {
  key: number | null;
  length: number;
  streams: Map<Stream, number>;
  /** undefined: not read yet. */
  lease: LeaseState | null | undefined;
}

/** The threads this connection appended to last: kept while they stay the file's, so an append reads none of them. */
const KNOWN_THREADS = 64;

/**
 * What this connection's appends left of the threads it wrote last. The file's data_version moves when another
 * connection commits, and then none of it holds; this connection's own lease and log writes forget their thread.
 */
class KnownThreads {
  private readonly threads = new Map<string, KnownThread>();
  private version = -1;

  /** The thread as this connection left it, if no other connection has committed since (`version`, read in the transaction). */
  of(threadId: string, version: number): KnownThread | undefined {
    if (version !== this.version) {
      this.threads.clear();
      this.version = version;
    }
    return this.threads.get(threadId);
  }

  /** Keep the thread as a committed append left it, the most recent; the oldest goes past KNOWN_THREADS. */
  remember(threadId: string, state: KnownThread): void {
    this.threads.delete(threadId);
    this.threads.set(threadId, state);
    if (this.threads.size > KNOWN_THREADS) this.threads.delete(this.threads.keys().next().value!);
  }

  forget(threadId: string): void {
    this.threads.delete(threadId);
  }
}

/**
 * A TraceStore in one SQLite file, in WAL mode, or in memory with ":memory:". It creates its tables.
 * Writes through any store of this process wake followers at once; writes by other processes reach
 * followers within `pollInterval` (SQLite has no notifications between processes).
 *
 * @example
 * ```ts
 * import { SqliteTraceStore } from "soev-agents/sqlite";
 *
 * const store = new SqliteTraceStore("./.data/traces.sqlite");
 * // The ten newest threads, then every event of the newest, with its position in the thread's log.
 * const [newest] = await store.threads({ limit: 10 });
 * if (newest) for await (const entry of store.read(newest[0])) console.log(entry.position, entry.event.type);
 * await store.close();
 * ```
 */
export class SqliteTraceStore implements TraceStore {
  private readonly clock: Clock;
  private readonly db: Database;
  private readonly sql: SqliteStatements;
  private readonly followers: SqliteFollowers;
  // Made once: better-sqlite3 makes a function for each of its modes at every transaction() call.
  private readonly appendRows: Transaction<SqliteTraceStore["checkedAppend"]>;
  private readonly known = new KnownThreads();
  private isClosed = false;
  private readonly pages: LogPages = {
    forward: (threadId, after, limit) =>
      Promise.resolve(this.page(threadId, (key) => this.sql.forward.all(key, after, limit))),
    backward: (threadId, before, limit) =>
      Promise.resolve(
        this.page(threadId, (key) => this.sql.backward.all(key, before ?? Number.MAX_SAFE_INTEGER, limit)),
      ),
    checkOpen: () => this.checkOpen(),
    isClosed: () => this.isClosed,
  };

  /** Open (or create, with its folder) the store in the file at `path`, or in memory with ":memory:". */
  constructor(path: string, options: SqliteTraceStoreOptions = {}) {
    if (typeof path !== "string" || path.length === 0)
      throw new ValueError(`SqliteTraceStore takes a file path or ":memory:", got ${String(path)}.`);
    const { busyTimeout, pollInterval, clock } = { ...DEFAULTS, ...options };
    this.clock = clock;
    for (const [name, value] of Object.entries({ busyTimeout, pollInterval })) {
      if (!Number.isFinite(value) || value <= 0)
        throw new ValueError(`SqliteTraceStore option ${name} must be seconds above 0, got ${String(value)}.`);
    }
    // The app's data folder may not exist yet on a first start. The trace holds conversations: a new
    // folder is the user's alone (0700) and a new file too (0600); SQLite gives its -wal and -shm files
    // the database file's mode.
    if (path !== ":memory:") {
      mkdirSync(dirname(resolve(path)), { recursive: true, mode: 0o700 });
      closeSync(openSync(path, "a", 0o600));
    }
    this.db = new BetterSqlite3(path, { timeout: busyTimeout * 1000 });
    if (path !== ":memory:") this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.sql = sqliteStatements(this.db);
    this.appendRows = this.db.transaction((threadId, prepared, options) =>
      this.checkedAppend(threadId, prepared, options),
    );
    this.followers = new SqliteFollowers(this.db, path, pollInterval);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.append} */
  async append(threadId: string, events: readonly StoredEvent[], options: AppendOptions = {}): Promise<StoredEvent[]> {
    this.checkOpen();
    checkThreadId(threadId);
    const prepared = prepareAppend(events);
    checkExpectedShape(options.expected);
    if (options.lease != null) checkLeaseShape(options.lease, threadId);
    const { rows, state } = this.appendRows.immediate(threadId, prepared, options);
    // Only once the transaction committed: a refused or failed append leaves the thread as it was read.
    this.known.remember(threadId, state);
    if (rows.length > 0) this.changed(threadId);
    return rows.map((row) => toEntry(row).event);
  }

  /** The checks and writes of an append, in its transaction (appendRows): the rows written, and the thread after. */
  private checkedAppend(
    threadId: string,
    prepared: readonly PreparedEvent[],
    options: AppendOptions,
  ): { rows: EventRow[]; state: KnownThread } {
    const [first] = streamsOf(prepared, options.expected);
    const state = this.known.of(threadId, this.sql.dataVersion.get() as number) ?? this.readThread(threadId, first);
    if (options.lease != null) {
      if (state.lease === undefined) state.lease = this.leaseState(threadId);
      checkLease(threadId, state.lease, options.lease);
    }
    const lengthOf = (stream: Stream): number => {
      let length = state.streams.get(stream);
      if (length === undefined) {
        length = state.key === null ? 0 : (this.sql.streamLength.get(state.key, stream) as { length: number }).length;
        state.streams.set(stream, length);
      }
      return length;
    };
    checkExpected(threadId, options.expected, lengthOf);
    if (prepared.length === 0) return { rows: [], state };
    const sealed = seal(prepared, lengthOf, state.length, new Date(this.clock.now()).toISOString());
    const key = state.key ?? Number(this.sql.insertThread.run(threadId, sealed[0]!.ts).lastInsertRowid);
    this.insert(key, sealed);
    const length = sealed.at(-1)!.position;
    this.sql.grow.run(length, key);
    const streams = new Map(state.streams);
    for (const row of sealed) streams.set(row.stream, row.seq + 1);
    return { rows: sealed, state: { key, length, streams, lease: state.lease } };
  }

  /** The thread as the file holds it, and the length of its stream `first` in the same step. */
  private readThread(threadId: string, first: Stream | undefined): KnownThread {
    const row = (
      first === undefined ? this.sql.thread.get(threadId) : this.sql.threadAndStream.get(first, threadId)
    ) as { key: number; length: number; streamLength?: number } | undefined;
    const streams = new Map<Stream, number>();
    if (first !== undefined) streams.set(first, row?.streamLength ?? 0);
    return { key: row?.key ?? null, length: row?.length ?? 0, streams, lease: undefined };
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.acquire} */
  async acquire(threadId: string, options: { owner: string; ttl: number }): Promise<Lease> {
    this.checkOpen();
    checkThreadId(threadId);
    checkLeaseTerms(options, true);
    this.known.forget(threadId);
    const next = this.db
      .transaction(() => {
        const state = acquired(threadId, this.leaseState(threadId), options.owner, options.ttl, this.clock.now());
        this.sql.putLease.run({ threadId, ...state, released: 0 });
        return state;
      })
      .immediate();
    return { threadId, owner: next.owner, counter: next.counter };
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.renew} */
  async renew(lease: Lease, options: { ttl: number }): Promise<void> {
    this.checkOpen();
    checkLeaseShape(lease);
    checkLeaseTerms(options, false);
    this.known.forget(lease.threadId);
    this.db
      .transaction(() => {
        const state = renewed(this.leaseState(lease.threadId), lease, options.ttl, this.clock.now());
        this.sql.putLease.run({ threadId: lease.threadId, ...state, released: 0 });
      })
      .immediate();
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.release} */
  async release(lease: Lease): Promise<void> {
    this.checkOpen();
    checkLeaseShape(lease);
    this.known.forget(lease.threadId);
    this.db
      .transaction(() => {
        const state = released(this.leaseState(lease.threadId), lease);
        if (state) this.sql.putLease.run({ threadId: lease.threadId, ...state, released: 1 });
      })
      .immediate();
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.lease} */
  async lease(threadId: string): Promise<Lease | null> {
    this.checkOpen();
    checkThreadId(threadId);
    return liveLease(threadId, this.leaseState(threadId), this.clock.now());
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.read} */
  read(threadId: string, options: ReadOptions = {}): AsyncIterable<LogEntry<StoredEvent>> {
    return readLog(this.pages, this.followers.changes, threadId, options);
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
    this.known.forget(threadId);
    this.db
      .transaction(() => {
        this.removeLog(threadId);
        if (sealed.length === 0) return;
        const key = Number(this.sql.insertThread.run(threadId, sealed[0]!.ts).lastInsertRowid);
        this.insert(
          key,
          sealed.map((event, index) => ({ ...event, position: index + 1 })),
        );
        this.sql.grow.run(sealed.length, key);
      })
      .immediate();
    this.changed(threadId);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.threads} */
  async threads(options: ThreadsOptions): Promise<[string, StoredEvent][]> {
    this.checkOpen();
    checkCount("limit", options.limit);
    const page = { before: options.before ?? null, limit: options.limit };
    const statement = options.principal != null ? this.sql.threadsOf : this.sql.threads;
    const rows = statement.all(
      options.principal != null ? { ...page, principal: options.principal } : page,
    ) as (EventRow & {
      id: string;
    })[];
    return rows.map((row) => [row.id, toEntry(row).event]);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.delete} */
  async delete(threadId: string): Promise<void> {
    this.checkOpen();
    checkThreadId(threadId);
    this.known.forget(threadId);
    this.db
      .transaction(() => {
        this.removeLog(threadId);
        this.sql.deleteLease.run(threadId);
      })
      .immediate();
    this.changed(threadId);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.close} */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.followers.close();
    this.db.close();
  }

  /** Insert rows of a thread, up to INSERT_ROWS a statement. */
  private insert(key: number, rows: readonly EventRow[]): void {
    for (let from = 0; from < rows.length; from += INSERT_ROWS) {
      const chunk = rows.slice(from, from + INSERT_ROWS);
      const values: unknown[] = [];
      for (const row of chunk) {
        values.push(key);
        for (const column of ROW_COLUMNS) values.push(row[column]);
      }
      this.sql.insert(chunk.length).run(values);
    }
  }

  private leaseState(threadId: string): LeaseState | null {
    const row = this.sql.lease.get(threadId) as (Omit<LeaseState, "released"> & { released: number }) | undefined;
    return row ? { ...row, released: row.released === 1 } : null;
  }

  private removeLog(threadId: string): void {
    const thread = this.sql.thread.get(threadId) as { key: number } | undefined;
    if (!thread) return;
    this.sql.deleteEvents.run(thread.key);
    this.sql.deleteThread.run(thread.key);
  }

  /** One read transaction, so that the thread's key and its rows come from the same snapshot. */
  private page(threadId: string, rows: (key: number) => unknown[]): Page {
    return this.db.transaction((): Page => {
      const thread = this.sql.thread.get(threadId) as { key: number } | undefined;
      if (!thread) return { key: null, entries: [] };
      return { key: String(thread.key), entries: (rows(thread.key) as EventRow[]).map(toEntry) };
    })();
  }

  private checkOpen(): void {
    if (this.isClosed) throw new StoreClosedError("This SqliteTraceStore is closed: open a new store.");
  }

  private changed(threadId: string): void {
    this.followers.changed(threadId);
  }
}
