/**
 * Every built-in adapter in one module, for the repository's own tests and tools. Not a package subpath: the
 * package puts each adapter with heavy dependencies on its own (soev-agents/sqlite, /postgres, /openai, /otel),
 * so that an app loads only the drivers it uses.
 */
export { InMemoryTraceStore } from "./stores/memory.js";
export type { InMemoryTraceStoreOptions } from "./stores/memory.js";
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
export { OpenAIResponsesModel } from "./openai/responses-model.js";
export type { OpenAIResponsesModelOptions, EncryptedReasoning } from "./openai/responses-options.js";
export { RESPONSES_KEY } from "./openai/responses-kept.js";
export type { KeptItem, KeptOutput } from "./openai/responses-kept.js";
export { DemoModel, DEMO_MODEL } from "./demo-model.js";
export { OtelObserver, TRACER_NAME, remoteContext } from "./otel/observer.js";
export { InProcessLiveChannel } from "./live/in-process.js";
export { PostgresLiveChannel, LIVE_CHANNEL } from "./live/postgres.js";
export type { PostgresLiveChannelOptions } from "./live/postgres.js";
export type { OtelObserverOptions } from "./otel/observer.js";
export {
  CLOSED_SPAN_EVENT,
  PAYLOAD_CHARACTERS,
  RUN_SPAN,
  SPAN_ATTRIBUTES,
  GEN_AI_ATTRIBUTES,
  SUPERSEDED_SPAN_EVENT,
} from "./otel/attributes.js";
