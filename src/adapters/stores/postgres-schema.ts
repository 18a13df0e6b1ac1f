/**
 * The tables of PostgresTraceStore in one schema, made by migratePostgres, and the names derived from
 * the schema: the tables, the NOTIFY channel, the lock keys.
 */
import type { Pool } from "pg";
import { ValueError } from "../../domain/errors.js";

/** Options of migratePostgres. */
export interface MigratePostgresOptions {
  /** The schema to create the tables in; it is created when missing. Default "public". */
  schema?: string;
}

/** The schema a store uses when its options name none. */
export const DEFAULT_SCHEMA = "public";

/** A schema name: an identifier short enough that the NOTIFY channel derived from it stays within 63 bytes. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

/**
 * The migrations in order; migratePostgres records the count applied in trace_migrations.
 * Thread ids and ts are in the "C" collation, so threads page in code-point order, as in the other stores.
 */
const MIGRATIONS: readonly ((schema: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.trace_threads (
      key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text COLLATE "C" NOT NULL UNIQUE,
      length integer NOT NULL,
      first_ts text COLLATE "C" NOT NULL
    );
    CREATE INDEX trace_threads_newest ON ${s}.trace_threads (first_ts DESC, id DESC);
    CREATE TABLE ${s}.trace_events (
      thread_key bigint NOT NULL REFERENCES ${s}.trace_threads (key) ON DELETE CASCADE,
      position integer NOT NULL,
      type text NOT NULL,
      stream text NOT NULL,
      actor text NOT NULL,
      origin text,
      payload json NOT NULL,
      seq integer NOT NULL,
      ts text NOT NULL,
      version text,
      PRIMARY KEY (thread_key, position)
    );
    CREATE INDEX trace_events_stream ON ${s}.trace_events (thread_key, stream, seq);
    CREATE TABLE ${s}.trace_leases (
      thread_id text PRIMARY KEY,
      owner text NOT NULL,
      counter integer NOT NULL,
      expires_at double precision NOT NULL,
      released boolean NOT NULL
    );`,
];

/** Check a schema name, and return it quoted for SQL. */
export function quoteSchema(schema: string): string {
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema)) {
    throw new ValueError(
      `A PostgreSQL schema name for the trace store must match ${SCHEMA_NAME.source}, got ${JSON.stringify(schema)}.`,
    );
  }
  return `"${schema}"`;
}

/** The channel on which a store's writes NOTIFY the thread id, one per schema. */
export function channelOf(schema: string): string {
  return `soev_trace_${schema}`;
}

/**
 * Create PostgresTraceStore's tables in `schema` (and the schema itself) if they are missing. It is
 * idempotent and safe to run from several processes at once: call it at deploy or start-up, before
 * the first store on that schema is used.
 *
 * @example
 * await migratePostgres(pool, { schema: "agents" });
 * const store = new PostgresTraceStore({ pool, schema: "agents" });
 */
export async function migratePostgres(pool: Pool, options: MigratePostgresOptions = {}): Promise<void> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const quoted = quoteSchema(schema);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // One migration at a time per schema, so concurrent start-ups never race on CREATE.
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`soev-trace-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.trace_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ applied: number }>(
      `SELECT count(*)::int AS applied FROM ${quoted}.trace_migrations`,
    );
    for (let version = rows[0]!.applied; version < MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version]!(quoted));
      await client.query(`INSERT INTO ${quoted}.trace_migrations (version) VALUES ($1)`, [version + 1]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
