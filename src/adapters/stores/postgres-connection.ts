/** How PostgresTraceStore uses its pool: one call on a pooled client, or one transaction that holds a thread's lock. */
import type { Pool, PoolClient } from "pg";
import { CallerError } from "../../domain/errors.js";
import { TransientError } from "../../ports/errors.js";

/** The error classes of PostgreSQL (SQLSTATE) and of the socket that a later attempt can overcome. */
const TRANSIENT_STATES = /^(08|53|57P0|40001|40P01)/;
const TRANSIENT_SOCKET = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);

/** Translate a failure of PostgreSQL: a connection that failed is transient; missing tables want migratePostgres. */
export function postgresFailure(error: unknown, schema: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // 42883: the trace_append function is missing, a schema migrated by an older version.
  if (code === "42P01" || code === "3F000" || code === "42883") {
    return new CallerError(
      `The PostgreSQL schema "${schema}" has no trace store tables (${message}): run migratePostgres(pool, { schema: "${schema}" }) first.`,
      { cause: error },
    );
  }
  const connectionLost = /Connection terminated|connection timeout/i.test(message);
  if ((typeof code === "string" && (TRANSIENT_STATES.test(code) || TRANSIENT_SOCKET.has(code))) || connectionLost) {
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

  /** Run `work` in one transaction that holds the thread's lock; nothing of it lands when it throws. */
  write<T>(threadId: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.query(async (client) => {
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

  /** Run `work` on a pooled client, translating PostgreSQL's failures. */
  async query<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw postgresFailure(error, this.schema);
    }
    let broken = false;
    try {
      return await work(client);
    } catch (error) {
      const failure = postgresFailure(error, this.schema);
      broken = TransientError.isInstance(failure);
      throw failure;
    } finally {
      // A connection that failed is discarded rather than handed to the next caller.
      client.release(broken);
    }
  }
}
