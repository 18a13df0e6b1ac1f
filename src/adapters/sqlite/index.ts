/**
 * soev-agents/sqlite: the trace store in one SQLite file (better-sqlite3, a native module, loads only here).
 *
 * @module soev-agents/sqlite
 */
export { SqliteTraceStore } from "../stores/sqlite.js";
export type { SqliteTraceStoreOptions } from "../stores/sqlite.js";
