/** The trace store a process's environment names, as the worker, the app and the command line open it. */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";
import type { TraceStore } from "../../ports/store.js";
import { PostgresTraceStore } from "./postgres.js";
import { migratePostgres } from "./postgres-schema.js";
import { SqliteTraceStore } from "./sqlite.js";

/**
 * The trace store the environment names: PostgreSQL at DATABASE_URL (its tables in the schema
 * SOEV_DATABASE_SCHEMA, default "public"), else a SQLite file under SOEV_DATA_DIR (./.data).
 */
export async function storeFromEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<TraceStore> {
  if (env.DATABASE_URL) {
    const schema = env.SOEV_DATABASE_SCHEMA || undefined;
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL });
    await migratePostgres(pool, { schema });
    await pool.end();
    return new PostgresTraceStore({ connectionString: env.DATABASE_URL, schema });
  }
  const folder = resolve(env.SOEV_DATA_DIR || ".data");
  // The trace holds the conversations: a folder only the worker's user can open.
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return new SqliteTraceStore(join(folder, "soev-agents.sqlite"));
}
