/**
 * soev-agents/postgres: the trace store, its migrations and the live channel on PostgreSQL (`pg` loads only here).
 *
 * @module soev-agents/postgres
 */
export { PostgresTraceStore } from "../stores/postgres.js";
export type { PostgresTraceStoreOptions } from "../stores/postgres.js";
export { migratePostgres } from "../stores/postgres-schema.js";
export type { MigratePostgresOptions } from "../stores/postgres-schema.js";
export { PostgresLiveChannel, LIVE_CHANNEL } from "../live/postgres.js";
export type { PostgresLiveChannelOptions } from "../live/postgres.js";
