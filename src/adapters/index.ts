/** soev-agents/adapters: the built-in implementations of the ports (trace stores, models, observers). */
export { InMemoryTraceStore } from "./stores/memory.js";
export { SqliteTraceStore } from "./stores/sqlite.js";
export type { SqliteTraceStoreOptions } from "./stores/sqlite.js";
export { PostgresTraceStore } from "./stores/postgres.js";
export type { PostgresTraceStoreOptions } from "./stores/postgres.js";
export { migratePostgres } from "./stores/postgres-schema.js";
export type { MigratePostgresOptions } from "./stores/postgres-schema.js";
export { StoreClosedError } from "./stores/validation.js";
export { OpenAIChatModel } from "./openai/chat-model.js";
export type { OpenAIChatModelOptions } from "./openai/options.js";
export type { ReasoningField } from "./openai/request-mapping.js";
export { ModelRequestError } from "./openai/errors.js";
export { DemoModel, DEMO_MODEL } from "./demo-model.js";
