/**
 * PostgreSQL for tests: the server of $DATABASE_URL (else the local one), and schemas of their own, so
 * that runs and files never see each other's rows. An unreachable server fails the test, naming it.
 */
import { randomBytes } from "node:crypto";
import { Pool } from "pg";

/** The server the tests use when DATABASE_URL is not set. */
export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";

/** The connection string of the test server: $DATABASE_URL, else DEFAULT_DATABASE_URL. */
export function postgresUrl(): string {
  return process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
}

/** A schema of a test's own, on a pool of its own. */
export interface TestSchema {
  /** The schema's name (random, so runs never meet). */
  name: string;
  /** The connection string of the server. */
  url: string;
  /** A pool on the server; `drop` ends it. */
  pool: Pool;
  /** Drop the schema with everything in it, and end the pool. */
  drop(): Promise<void>;
}

/** A pool on the test server, checked by one query: it throws, naming PostgreSQL and DATABASE_URL, when unreachable. */
export async function connectPostgres(): Promise<Pool> {
  const url = postgresUrl();
  const pool = new Pool({ connectionString: url, max: 4 });
  pool.on("error", () => {});
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(
      `PostgreSQL is unreachable at ${redactedUrl(url)} (${error instanceof Error ? error.message : String(error)}). ` +
        `Start PostgreSQL, or set DATABASE_URL to a server the tests may create schemas on (default ${DEFAULT_DATABASE_URL}).`,
      { cause: error },
    );
  }
  return pool;
}

/** Create a schema with a random name (`prefix_` and hex), on a new pool. Drop it at the end of the test or file. */
export async function freshSchema(prefix = "test"): Promise<TestSchema> {
  const pool = await connectPostgres();
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  await pool.query(`CREATE SCHEMA "${name}"`);
  return {
    name,
    url: postgresUrl(),
    pool,
    drop: async () => {
      try {
        await pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      } finally {
        await pool.end();
      }
    },
  };
}

/** The URL with its password hidden, for error messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an unparsable DATABASE_URL)";
  }
}
