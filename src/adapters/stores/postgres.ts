/** PostgresTraceStore: the production trace store, on PostgreSQL through a pg Pool; follow uses LISTEN/NOTIFY. */
import { Pool } from "pg";
import { ValueError } from "../../domain/errors.js";
import type { LogEntry, StoredEvent } from "../../domain/events.js";
import type { AppendOptions, Lease, ReadOptions, ThreadsOptions, TraceStore } from "../../ports/store.js";
import { ThreadChanges } from "./changes.js";
import { PostgresConnection } from "./postgres-connection.js";
import { PostgresListener } from "./postgres-listener.js";
import { DEFAULT_SCHEMA, REFUSED_STATE, channelOf, quoteSchema } from "./postgres-schema.js";
import {
  insertEvents,
  leaseState,
  postgresStatements,
  putLease,
  type PostgresStatements,
} from "./postgres-statements.js";
import { readLog, readLogBackwards, type LogPages, type Page } from "./reader.js";
import {
  acquired,
  checkExpected,
  checkLease,
  liveLease,
  released,
  renewed,
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
  type PreparedEvent,
} from "./validation.js";

/**
 * What the trace_append function answers (its first position aside, which the store does not use): the named
 * streams' lengths before the append, in the order the call named them, or why it refused.
 */
type AppendOutcome =
  | { status: "appended"; lengths: number[] }
  | { status: "moved"; lengths: number[] }
  | ({ status: "lease" } & { owner: string | null; counter: number | null; expiresAt: number; released: boolean });

/** The answer of trace_append that trace_write refused with; any other failure is thrown again. */
function refusal(error: unknown): AppendOutcome {
  const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
  if (code !== REFUSED_STATE || typeof detail !== "string") throw error;
  return JSON.parse(detail) as AppendOutcome;
}

/** Options of PostgresTraceStore: give `pool` or `connectionString`. */
export interface PostgresTraceStoreOptions {
  /** The pool to query through. The store does not end it: its owner does. */
  pool?: Pool;
  /** A connection string: the store makes its own pool, and ends it on close. */
  connectionString?: string;
  /** The schema that holds the store's tables, made by migratePostgres. Default "public". */
  schema?: string;
}

/**
 * The arguments of trace_append that describe a batch: the streams whose lengths it needs (the events', then the
 * expected ones) and the length expected of each (null: any); per event, its stream's slot among the named
 * streams (from 0) and its place among the batch's events of that stream (from 0), for its header and its seq.
 */
interface AppendArguments {
  named: string[];
  expected: (number | null)[];
  slots: number[];
  places: number[];
}

/** Name the streams of a batch and `expected`, in one pass over the events. */
function appendArguments(
  events: readonly PreparedEvent[],
  expected: Readonly<Record<string, number>> | null | undefined,
): AppendArguments {
  const named: string[] = [];
  // Per named stream: how many of the batch's events it has so far.
  const counts: number[] = [];
  const slots: number[] = [];
  const places: number[] = [];
  for (const event of events) {
    let slot = named.indexOf(event.stream);
    if (slot < 0) slot = named.push(event.stream) - 1;
    const place = (counts[slot] ??= 0);
    counts[slot] = place + 1;
    slots.push(slot);
    places.push(place);
  }
  const lengths: (number | null)[] = named.map(() => null);
  for (const [stream, length] of Object.entries(expected ?? {})) {
    const slot = named.indexOf(stream);
    if (slot < 0) {
      named.push(stream);
      lengths.push(length);
    } else lengths[slot] = length;
  }
  return { named, expected: lengths, slots, places };
}

/**
 * The events' headers as trace_append takes them: a JSON array of objects, each with its stream's slot (from 1)
 * and its place among the batch's events of that stream.
 */
function headersOf(events: readonly PreparedEvent[], { slots, places }: AppendArguments): string {
  const text = (value: string | null) => (value === null ? "null" : JSON.stringify(value));
  let headers = "[";
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    headers +=
      `${index === 0 ? "" : ","}{"slot":${slots[index]! + 1},"place":${places[index]},"type":${text(event.type)},` +
      `"stream":${text(event.stream)},"actor":${text(event.actor)},"origin":${text(event.origin)},` +
      `"version":${text(event.version)},"checked":${text(event.checked)}}`;
  }
  return `${headers}]`;
}

/** The statements that each connection prepares once (see PostgresTraceStore.prepared). */
type PreparedStatement = "append" | "write" | "writeOne" | "forward" | "backward";

/** The largest position, the start of a backward read. */
const LAST_POSITION = 2 ** 31 - 1;

/**
 * A TraceStore on PostgreSQL. Its tables are made by migratePostgres, which must run first. Writes to one
 * thread are serialised by a transaction-scoped advisory lock; each write NOTIFYs the thread id, and
 * followers wait on one dedicated LISTEN connection per store (no polling).
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { migratePostgres, PostgresTraceStore } from "soev-agents/postgres";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migratePostgres(pool, { schema: "agents" });
 * const store = new PostgresTraceStore({ pool, schema: "agents" });
 * ```
 */
export class PostgresTraceStore implements TraceStore {
  private readonly pool: Pool;
  private readonly connection: PostgresConnection;
  private readonly ownsPool: boolean;
  private readonly schema: string;
  private readonly sql: PostgresStatements;
  private readonly listener: PostgresListener;
  private readonly changes: ThreadChanges;
  private isClosed = false;
  private readonly pages: LogPages = {
    forward: (threadId, after, limit) => this.page("forward", threadId, after, limit),
    backward: (threadId, before, limit) => this.page("backward", threadId, before ?? LAST_POSITION, limit),
    checkOpen: () => this.checkOpen(),
    isClosed: () => this.isClosed,
  };

  /** Use the trace store tables in `schema`, through `pool` or a pool of its own. Nothing connects until the first call. */
  constructor(options: PostgresTraceStoreOptions) {
    if (!options || (options.pool === undefined) === (options.connectionString === undefined)) {
      throw new ValueError("PostgresTraceStore takes exactly one of `pool` and `connectionString`.");
    }
    this.schema = options.schema ?? DEFAULT_SCHEMA;
    this.sql = postgresStatements(quoteSchema(this.schema));
    this.ownsPool = options.pool === undefined;
    this.pool = options.pool ?? new Pool({ connectionString: options.connectionString });
    // An idle client that drops must not end the process (the pool emits 'error', and an unheard 'error'
    // throws); the pool discards the client, and the next query gets a fresh one. The owner's listeners still hear it.
    this.pool.on("error", () => {});
    // A backend terminated as its connection opens errs inside pg's parser, before the pool hands the client
    // over and before PostgresConnection watches it: every client of the pool is heard from its start.
    this.pool.on("connect", (client) => client.on("error", () => {}));
    this.connection = new PostgresConnection(this.pool, this.schema, this.sql.lock);
    this.changes = new ThreadChanges(() => this.listener.ready());
    this.listener = new PostgresListener(
      this.pool.options,
      channelOf(this.schema),
      (threadId) => this.changes.notify(threadId),
      () => this.changes.notifyAll(),
      this.schema,
    );
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.append} */
  async append(threadId: string, events: readonly StoredEvent[], options: AppendOptions = {}): Promise<StoredEvent[]> {
    this.checkOpen();
    checkThreadId(threadId);
    const prepared = prepareAppend(events);
    checkExpectedShape(options.expected);
    if (options.lease != null) checkLeaseShape(options.lease, threadId);
    const lease = options.lease ?? null;
    const ts = new Date().toISOString();
    const batch = appendArguments(prepared, options.expected);
    // Where every stream's length is expected, the seqs follow from them, and trace_write does the append
    // answering no row (see migration 8); the runner's usual append, one event with its stream's expected length,
    // goes to trace_write_one, its columns as arguments of their own. Otherwise trace_append answers the lengths.
    // Each is one round trip that locks, checks, seals, inserts and notifies.
    const known = batch.expected.every((length) => length !== null);
    const written = () => ({ status: "appended", lengths: batch.expected as number[] }) as const;
    let outcome: AppendOutcome;
    if (known && prepared.length === 1 && batch.named.length === 1) {
      const event = prepared[0]!;
      outcome = await this.connection
        .once(this.prepared("writeOne"), [
          threadId,
          lease?.owner ?? null,
          lease?.counter ?? null,
          event.stream,
          batch.expected[0],
          event.type,
          event.actor,
          event.origin,
          event.payload,
          event.version,
          event.checked,
          ts,
        ])
        .then(written, refusal);
    } else {
      const values = [
        threadId,
        lease?.owner ?? null,
        lease?.counter ?? null,
        batch.named,
        batch.expected,
        headersOf(prepared, batch),
        // Each payload is JSON text already: it goes in as it is, neither parsed again nor quoted.
        `[${prepared.map((event) => event.payload).join(",")}]`,
        prepared.length,
        ts,
      ];
      outcome = known
        ? await this.connection.once(this.prepared("write"), values).then(written, refusal)
        : (await this.connection.once<{ outcome: AppendOutcome }>(this.prepared("append"), values)).rows[0]!.outcome;
    }
    if (outcome.status === "lease") {
      const state = outcome.owner == null ? null : { ...outcome, owner: outcome.owner, counter: outcome.counter! };
      checkLease(threadId, state as LeaseState | null, lease);
    }
    if (outcome.status === "moved") {
      checkExpected(threadId, options.expected, (stream) => outcome.lengths[batch.named.indexOf(stream)]!);
    }
    if (outcome.status !== "appended") throw new Error(`trace_append answered ${JSON.stringify(outcome)}.`);
    // The events as read() would give them, built directly rather than as rows: fields named, not spread (as in
    // seal), since a spread of the prepared event costs several times the literal.
    return prepared.map((event, index) => {
      const sealed: StoredEvent = {
        type: event.type,
        stream: event.stream,
        actor: event.actor,
        origin: event.origin,
        payload: JSON.parse(event.payload) as StoredEvent["payload"],
        seq: outcome.lengths[batch.slots[index]!]! + batch.places[index]!,
        ts,
        version: event.version,
      };
      // Absent rather than null, as toEntry leaves it.
      if (event.checked !== null) sealed.checked = event.checked;
      return sealed;
    });
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.acquire} */
  async acquire(threadId: string, options: { owner: string; ttl: number }): Promise<Lease> {
    this.checkOpen();
    checkThreadId(threadId);
    checkLeaseTerms(options, true);
    const next = await this.connection.write(threadId, async (client) => {
      const { state, now } = await leaseState(client, this.sql, threadId);
      return putLease(client, this.sql, threadId, acquired(threadId, state, options.owner, options.ttl, now));
    });
    return { threadId, owner: next.owner, counter: next.counter };
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.renew} */
  async renew(lease: Lease, options: { ttl: number }): Promise<void> {
    this.checkOpen();
    checkLeaseShape(lease);
    checkLeaseTerms(options, false);
    await this.connection.write(lease.threadId, async (client) => {
      const { state, now } = await leaseState(client, this.sql, lease.threadId);
      await putLease(client, this.sql, lease.threadId, renewed(state, lease, options.ttl, now));
    });
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.release} */
  async release(lease: Lease): Promise<void> {
    this.checkOpen();
    checkLeaseShape(lease);
    await this.connection.write(lease.threadId, async (client) => {
      const next = released((await leaseState(client, this.sql, lease.threadId)).state, lease);
      if (next) await putLease(client, this.sql, lease.threadId, next);
    });
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.lease} */
  async lease(threadId: string): Promise<Lease | null> {
    this.checkOpen();
    checkThreadId(threadId);
    const { state, now } = await this.connection.query((client) => leaseState(client, this.sql, threadId));
    return liveLease(threadId, state, now);
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
    await this.connection.write(threadId, async (client) => {
      await client.query(this.sql.deleteThread, [threadId]);
      if (sealed.length > 0) {
        const key = (await client.query<{ key: string }>(this.sql.insertThread, [threadId, sealed[0]!.ts])).rows[0]!
          .key;
        await insertEvents(
          client,
          this.sql,
          key,
          sealed.map((event, index) => ({ ...event, position: index + 1 })),
        );
      }
      await client.query(this.sql.notify, [channelOf(this.schema), threadId]);
    });
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.threads} */
  async threads(options: ThreadsOptions): Promise<[string, StoredEvent][]> {
    this.checkOpen();
    checkCount("limit", options.limit);
    const { rows } = await this.connection.query((client) =>
      options.principal != null
        ? client.query<EventRow & { id: string }>(this.sql.threadsOf, [
            options.before ?? null,
            options.limit,
            options.principal,
          ])
        : client.query<EventRow & { id: string }>(this.sql.threads, [options.before ?? null, options.limit]),
    );
    return rows.map((row) => [row.id, toEntry(row).event]);
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.delete} */
  async delete(threadId: string): Promise<void> {
    this.checkOpen();
    checkThreadId(threadId);
    await this.connection.write(threadId, async (client) => {
      await client.query(this.sql.deleteThread, [threadId]);
      await client.query(this.sql.deleteLease, [threadId]);
      await client.query(this.sql.notify, [channelOf(this.schema), threadId]);
    });
  }

  /** {@inheritDoc soev-agents/ports!TraceStore.close} */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.changes.notifyAll();
    await this.listener.close();
    if (this.ownsPool) await this.pool.end();
  }

  private async page(direction: "forward" | "backward", threadId: string, from: number, limit: number): Promise<Page> {
    const { rows } = await this.connection.query((client) =>
      client.query<EventRow & { key: string }>(this.prepared(direction), [threadId, from, limit]),
    );
    const key = rows[0]?.key ?? null;
    return { key, entries: rows.filter((row) => row.position !== null).map(toEntry) };
  }

  /**
   * A statement that each connection prepares once, by a name of this schema's: the appends and reads that
   * every unit runs skip parsing and planning after the first.
   */
  private prepared(statement: PreparedStatement): { name: string; text: string } {
    return { name: `soev_trace_${statement}_${this.schema}`, text: this.sql[statement] };
  }

  private checkOpen(): void {
    if (this.isClosed) throw new StoreClosedError("This PostgresTraceStore is closed: open a new store.");
  }
}
