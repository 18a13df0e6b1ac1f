/** How PostgresTraceStore uses its pool: one call on a pooled client, or one transaction that holds a thread's lock. */
import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from "pg";
import { CallerError } from "../../domain/errors.js";
import { TransientError } from "../../ports/errors.js";

/** The error classes of PostgreSQL (SQLSTATE) and of the socket that a later attempt can overcome. */
const TRANSIENT_STATES = /^(08|53|57P0|40001|40P01)/;
const TRANSIENT_SOCKET = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
/** pg's messages for a connection that broke, whatever the code (it sets none on some of them). */
const CONNECTION_LOST = /Connection terminated|connection timeout|not queryable|Client was closed/i;

/** How many times a read runs on a fresh connection when its connection broke. */
const READ_ATTEMPTS = 3;

/** Whether a failure of PostgreSQL lost the connection or hit a state that a later attempt can pass. */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return (
    (typeof code === "string" && (TRANSIENT_STATES.test(code) || TRANSIENT_SOCKET.has(code))) ||
    CONNECTION_LOST.test(message)
  );
}

/** Translate a failure of PostgreSQL: a connection that failed is transient; missing tables want migratePostgres. */
export function postgresFailure(error: unknown, schema: string): unknown {
  if (TransientError.isInstance(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // 42883: the trace_append function or trace_write procedure is missing, a schema migrated by an older version.
  if (code === "42P01" || code === "3F000" || code === "42883") {
    return new CallerError(
      `The PostgreSQL schema "${schema}" has no trace store tables (${message}): run migratePostgres(pool, { schema: "${schema}" }) first.`,
      { cause: error },
    );
  }
  if (isConnectionFailure(error)) {
    return new TransientError(
      `PostgreSQL failed for the trace store: ${message}. Check that PostgreSQL is reachable; the call can be retried.`,
      { cause: error },
    );
  }
  return error;
}

/** The pooled connections of one store. */
export class PostgresConnection {
  /**
   * @param pool - The store's pool.
   * @param schema - The store's schema, for lock keys and messages.
   * @param lock - The statement that takes a transaction-scoped advisory lock on its one parameter.
   */
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly lock: string,
  ) {}

  /**
   * Run `work` in one transaction that holds the thread's lock; nothing of it lands when it throws. It
   * is not retried: a connection lost during COMMIT leaves unknown whether it landed, so the caller
   * gets a TransientError and decides from a fresh read.
   */
  write<T>(threadId: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query("BEGIN");
      try {
        // Serialises the writes to one thread (and its lease), the first append of a new thread included.
        await client.query(this.lock, [`${this.schema}:${threadId}`]);
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  /**
   * Run one statement that writes and commits on its own (the append), on a pooled client. It is not
   * retried: a connection lost after the commit leaves unknown whether it landed, so the caller gets a
   * TransientError and decides from a fresh read (a retry could append the same events twice). The pool runs
   * it: it watches the client for errors during the statement, and discards a client that failed.
   */
  async once<R extends QueryResultRow>(statement: QueryConfig, values: unknown[]): Promise<QueryResult<R>> {
    try {
      return await this.pool.query<R>(statement, values);
    } catch (error) {
      throw postgresFailure(error, this.schema);
    }
  }

  /** Run `work`, which only reads, on a pooled client; a lost connection is discarded and the read runs again. */
  async query<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.withClient(work);
      } catch (error) {
        if (!TransientError.isInstance(error) || attempt >= READ_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Run `work` on a pooled client, translating PostgreSQL's failures. The client is watched for errors
   * while it is checked out: a connection that drops between two queries emits 'error' with no query to
   * reject, and an unwatched 'error' would end the process.
   */
  private async withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw postgresFailure(error, this.schema);
    }
    let lost: unknown = null;
    const watch = (error: unknown) => {
      lost ??= error;
    };
    client.on("error", watch);
    let broken = false;
    try {
      return await work(client);
    } catch (error) {
      // After the connection emitted an error, whatever failed failed because of it.
      const failure = postgresFailure(lost !== null && !isConnectionFailure(error) ? lost : error, this.schema);
      broken = lost !== null || TransientError.isInstance(failure);
      throw failure;
    } finally {
      client.removeListener("error", watch);
      // A connection that failed is discarded rather than handed to the next caller.
      client.release(broken || lost !== null);
    }
  }
}
