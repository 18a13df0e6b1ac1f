/** The tables of SqliteTraceStore, and the statements it runs on them. */
import type { Database, Statement } from "better-sqlite3";
import type { JsonObject } from "../../domain/json.js";
import { upgradeStoredRow } from "../../domain/registry.js";

/**
 * The tables: a row per thread (its `key` tells it from a later thread under the same id), the events by
 * position, and the leases. A thread has a row only while it has events; a lease can exist without one.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS trace_threads (
  key INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  length INTEGER NOT NULL,
  first_ts TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS trace_threads_newest ON trace_threads (first_ts DESC, id DESC);
CREATE TABLE IF NOT EXISTS trace_events (
  thread_key INTEGER NOT NULL,
  position INTEGER NOT NULL,
  type TEXT NOT NULL,
  stream TEXT NOT NULL,
  actor TEXT NOT NULL,
  origin TEXT,
  payload TEXT NOT NULL,
  seq INTEGER NOT NULL,
  ts TEXT NOT NULL,
  version TEXT,
  checked TEXT,
  PRIMARY KEY (thread_key, position)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS trace_events_stream ON trace_events (thread_key, stream, seq);
CREATE INDEX IF NOT EXISTS trace_events_principal ON trace_events (json_extract(payload, '$.principal'), ts DESC)
  WHERE position = 1 AND type = 'input';
CREATE TABLE IF NOT EXISTS trace_leases (
  thread_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  counter INTEGER NOT NULL,
  expires_at REAL NOT NULL,
  released INTEGER NOT NULL
);
`;

const EVENT_COLUMNS = "e.position, e.type, e.stream, e.actor, e.origin, e.payload, e.seq, e.ts, e.version, e.checked";

/** The statements, by name. */
const SQL = {
  thread: "SELECT key, length FROM trace_threads WHERE id = ?",
  /** The thread and the length of one of its streams in one step, from the index's last entry of the stream. */
  threadAndStream:
    "SELECT t.key, t.length, coalesce((SELECT e.seq + 1 FROM trace_events e WHERE e.thread_key = t.key AND e.stream = ? " +
    "ORDER BY e.seq DESC LIMIT 1), 0) AS streamLength FROM trace_threads t WHERE t.id = ?",
  streamLength: "SELECT coalesce(max(seq) + 1, 0) AS length FROM trace_events WHERE thread_key = ? AND stream = ?",
  insertThread: "INSERT INTO trace_threads (id, length, first_ts) VALUES (?, 0, ?)",
  grow: "UPDATE trace_threads SET length = ? WHERE key = ?",
  deleteEvents: "DELETE FROM trace_events WHERE thread_key = ?",
  deleteThread: "DELETE FROM trace_threads WHERE key = ?",
  forward: `SELECT ${EVENT_COLUMNS} FROM trace_events e WHERE e.thread_key = ? AND e.position > ? ORDER BY e.position LIMIT ?`,
  backward: `SELECT ${EVENT_COLUMNS} FROM trace_events e WHERE e.thread_key = ? AND e.position < ? ORDER BY e.position DESC LIMIT ?`,
  threads:
    `SELECT t.id AS id, ${EVENT_COLUMNS} FROM trace_threads t JOIN trace_events e ON e.thread_key = t.key AND e.position = 1 ` +
    "WHERE @before IS NULL OR (t.first_ts, t.id) < (SELECT c.first_ts, c.id FROM trace_threads c WHERE c.id = @before) " +
    "ORDER BY t.first_ts DESC, t.id DESC LIMIT @limit",
  /** A principal's threads, through the index of first inputs by principal (a thread's first_ts is its first event's ts). */
  threadsOf:
    `SELECT t.id AS id, ${EVENT_COLUMNS} FROM trace_events e JOIN trace_threads t ON t.key = e.thread_key ` +
    "WHERE e.position = 1 AND e.type = 'input' AND json_extract(e.payload, '$.principal') = @principal " +
    "AND (@before IS NULL OR (e.ts, t.id) < (SELECT c.first_ts, c.id FROM trace_threads c WHERE c.id = @before)) " +
    "ORDER BY e.ts DESC, t.id DESC LIMIT @limit",
  lease: "SELECT owner, counter, expires_at AS expiresAt, released FROM trace_leases WHERE thread_id = ?",
  putLease:
    "INSERT INTO trace_leases (thread_id, owner, counter, expires_at, released) VALUES (@threadId, @owner, @counter, @expiresAt, @released) " +
    "ON CONFLICT (thread_id) DO UPDATE SET owner = excluded.owner, counter = excluded.counter, " +
    "expires_at = excluded.expires_at, released = excluded.released",
  deleteLease: "DELETE FROM trace_leases WHERE thread_id = ?",
  /** Moves when another connection commits to the file (this connection's own commits leave it). */
  dataVersion: "PRAGMA data_version",
};

/** The prepared statements of one SqliteTraceStore, and the inserts of rows, by how many rows each takes. */
export type SqliteStatements = { [name in keyof typeof SQL]: Statement } & { insert(rows: number): Statement };

/** The most rows one INSERT takes: a larger append runs it more than once. */
export const INSERT_ROWS = 64;

/** The columns of an event row, in the order an insert takes its values. */
export const ROW_COLUMNS = [
  "position",
  "type",
  "stream",
  "actor",
  "origin",
  "payload",
  "seq",
  "ts",
  "version",
  "checked",
] as const;

/** The stored format of the events a file holds, in PRAGMA user_version: 0 before it was the reference's. */
const STORED_FORMAT = 1;
const UPGRADE_BATCH = 1000;

/** Rewrite the events of a file of an earlier format in the reference's (upgradeStoredRow), in one transaction. */
function upgradeStoredFormat(db: Database): void {
  if ((db.pragma("user_version", { simple: true }) as number) >= STORED_FORMAT) return;
  const page = db.prepare(
    "SELECT thread_key, position, type, payload FROM trace_events WHERE (thread_key, position) > (?, ?) " +
      "ORDER BY thread_key, position LIMIT ?",
  );
  const update = db.prepare("UPDATE trace_events SET type = ?, payload = ? WHERE thread_key = ? AND position = ?");
  type Row = { thread_key: number; position: number; type: string; payload: string };
  db.transaction(() => {
    for (let after: [number, number] = [-1, -1]; ;) {
      const rows = page.all(...after, UPGRADE_BATCH) as Row[];
      for (const row of rows) {
        const upgraded = upgradeStoredRow(row.type, JSON.parse(row.payload) as JsonObject);
        update.run(upgraded.type, JSON.stringify(upgraded.payload), row.thread_key, row.position);
      }
      if (rows.length < UPGRADE_BATCH) break;
      after = [rows.at(-1)!.thread_key, rows.at(-1)!.position];
    }
    db.pragma(`user_version = ${STORED_FORMAT}`);
  })();
}

/** Create the tables if they are missing (and the columns that later versions added), and prepare the statements. */
export function sqliteStatements(db: Database): SqliteStatements {
  db.exec(SCHEMA);
  const columns = db.prepare("SELECT name FROM pragma_table_info('trace_events')").pluck().all() as string[];
  // A file of an earlier version: its events were not checked at append, so they keep a null fingerprint.
  if (!columns.includes("checked")) db.exec("ALTER TABLE trace_events ADD COLUMN checked TEXT");
  upgradeStoredFormat(db);
  const inserts = new Map<number, Statement>();
  // One statement for the rows of an append, prepared once per row count: fewer steps than a row at a time.
  const insert = (rows: number): Statement => {
    let statement = inserts.get(rows);
    if (!statement) {
      const row = `(${["?", ...ROW_COLUMNS.map(() => "?")].join(", ")})`;
      statement = db.prepare(
        `INSERT INTO trace_events (thread_key, ${ROW_COLUMNS.join(", ")}) VALUES ${Array(rows).fill(row).join(", ")}`,
      );
      inserts.set(rows, statement);
    }
    return statement;
  };
  const prepared = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)]));
  prepared.dataVersion!.pluck();
  return { ...prepared, insert } as SqliteStatements;
}
