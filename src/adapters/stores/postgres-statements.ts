/** The SQL that PostgresTraceStore runs, for one schema (quoted), and the calls that need more than one value mapped. */
import type { PoolClient } from "pg";
import type { EventRow, LeaseState } from "./rules.js";

const EVENT_COLUMNS =
  "e.position, e.type, e.stream, e.actor, e.origin, e.payload::text AS payload, e.seq, e.ts, e.version, e.checked";

/** The statements of a store on `s`, the quoted schema name. */
export function postgresStatements(s: string) {
  const page = (direction: ">" | "<", order: "ASC" | "DESC") =>
    `SELECT t.key::text AS key, ${EVENT_COLUMNS} FROM ${s}.trace_threads t LEFT JOIN LATERAL (` +
    `SELECT * FROM ${s}.trace_events x WHERE x.thread_key = t.key AND x.position ${direction} $2 ORDER BY x.position ${order} LIMIT $3` +
    ") e ON true WHERE t.id = $1 ORDER BY e.position " +
    order;
  return {
    /** Serialises the writes to one thread (and its lease) for the transaction: $1 is "schema:thread". */
    lock: "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
    insertThread: `INSERT INTO ${s}.trace_threads (id, first_ts) VALUES ($1, $2) RETURNING key::text AS key`,
    insertEvents:
      `INSERT INTO ${s}.trace_events (thread_key, position, type, stream, actor, origin, payload, seq, ts, version, checked) ` +
      "SELECT $1::bigint, u.position, u.type, u.stream, u.actor, u.origin, u.payload::json, u.seq, u.ts, u.version, u.checked FROM unnest(" +
      "$2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[], $11::text[]" +
      ") AS u(position, type, stream, actor, origin, payload, seq, ts, version, checked)",
    /** The whole append in one round trip (the trace_append function of migration 7), answering the streams' lengths. */
    append: `SELECT ${s}.trace_append($1, $2, $3, $4, $5, $6, $7, $8, $9) AS outcome`,
    /** The same append answering nothing, for a batch whose every stream's length is expected (migration 8). */
    write: `CALL ${s}.trace_write($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    /** The same for one event with its stream's expected length, its columns as arguments of their own (migration 9). */
    writeOne: `CALL ${s}.trace_write_one($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    /** The thread and its events (no foreign key removes them with the thread). */
    deleteThread:
      `WITH thread AS (DELETE FROM ${s}.trace_threads WHERE id = $1 RETURNING key) ` +
      `DELETE FROM ${s}.trace_events WHERE thread_key IN (SELECT key FROM thread)`,
    notify: "SELECT pg_notify($1, $2)",
    forward: page(">", "ASC"),
    backward: page("<", "DESC"),
    threads:
      `SELECT t.id AS id, ${EVENT_COLUMNS} FROM ${s}.trace_threads t JOIN ${s}.trace_events e ON e.thread_key = t.key AND e.position = 1 ` +
      `WHERE $1::text IS NULL OR (t.first_ts, t.id) < (SELECT c.first_ts, c.id FROM ${s}.trace_threads c WHERE c.id = $1) ` +
      "ORDER BY t.first_ts DESC, t.id DESC LIMIT $2",
    /** A principal's threads, through the index of first inputs by principal (migration 10). */
    threadsOf:
      `SELECT t.id AS id, ${EVENT_COLUMNS} FROM ${s}.trace_events e JOIN ${s}.trace_threads t ON t.key = e.thread_key ` +
      "WHERE e.position = 1 AND e.type = 'input' AND (e.payload->>'principal') = $3 " +
      `AND ($1::text IS NULL OR (e.ts, t.id) < (SELECT c.first_ts, c.id FROM ${s}.trace_threads c WHERE c.id = $1)) ` +
      "ORDER BY e.ts DESC, t.id DESC LIMIT $2",
    /** The lease with the database's clock, in milliseconds, so that every process judges expiry by one clock. */
    lease:
      `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now, l.owner, l.counter, l.expires_at AS "expiresAt", l.released ` +
      `FROM (SELECT 1) one LEFT JOIN ${s}.trace_leases l ON l.thread_id = $1`,
    putLease:
      `INSERT INTO ${s}.trace_leases (thread_id, owner, counter, expires_at, released) VALUES ($1, $2, $3, $4, $5) ` +
      "ON CONFLICT (thread_id) DO UPDATE SET owner = excluded.owner, counter = excluded.counter, " +
      "expires_at = excluded.expires_at, released = excluded.released",
    deleteLease: `DELETE FROM ${s}.trace_leases WHERE thread_id = $1`,
  };
}

/** The statements of one PostgresTraceStore. */
export type PostgresStatements = ReturnType<typeof postgresStatements>;

/** Insert rows of one thread in one statement, column by column. */
export async function insertEvents(
  client: PoolClient,
  sql: PostgresStatements,
  key: string,
  rows: readonly EventRow[],
): Promise<void> {
  const column = <K extends keyof EventRow>(name: K) => rows.map((row) => row[name]);
  await client.query(sql.insertEvents, [
    key,
    column("position"),
    column("type"),
    column("stream"),
    column("actor"),
    column("origin"),
    column("payload"),
    column("seq"),
    column("ts"),
    column("version"),
    column("checked"),
  ]);
}

/** The thread's lease (null when the store holds none), and the database's time in milliseconds. */
export async function leaseState(
  client: PoolClient,
  sql: PostgresStatements,
  threadId: string,
): Promise<{ state: LeaseState | null; now: number }> {
  const row = (await client.query<Partial<LeaseState> & { now: number }>(sql.lease, [threadId])).rows[0]!;
  const state =
    row.owner == null
      ? null
      : { owner: row.owner, counter: row.counter!, expiresAt: row.expiresAt!, released: row.released! };
  return { state, now: row.now };
}

/** Write the thread's lease, and return it. */
export async function putLease(
  client: PoolClient,
  sql: PostgresStatements,
  threadId: string,
  state: LeaseState,
): Promise<LeaseState> {
  await client.query(sql.putLease, [threadId, state.owner, state.counter, state.expiresAt, state.released]);
  return state;
}
