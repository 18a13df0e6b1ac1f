/**
 * soev-agents: the common surface in one import. Each layer has its own subpath with everything it
 * exports (soev-agents/domain, /ports, /runtime, /toolkit, /adapters, /temporal, /testing); the worker
 * is soev-agents/worker, so that importing this does not load the Temporal worker's native runtime.
 *
 * @module soev-agents
 */
export {
  Input,
  Element,
  Source,
  Reference,
  SoevError,
  CallerError,
  ModelOutputError,
  OutsideWorldError,
  ValueError,
} from "./domain/index.js";
export type { Event, ElementType } from "./domain/index.js";
export type { ChatModel, TraceStore, Observer } from "./ports/index.js";
export { AgentCatalog, tool, ElementId, Recorded, atMost, replay } from "./runtime/index.js";
export type { Tool } from "./runtime/index.js";
export { ReActAgent, ReActConfig, BRACKETS, Text, PromptFile, ContextPolicy, ToolDelegation } from "./toolkit/index.js";
export {
  InMemoryTraceStore,
  SqliteTraceStore,
  PostgresTraceStore,
  migratePostgres,
  OpenAIChatModel,
  DemoModel,
  OtelObserver,
} from "./adapters/index.js";
export { startTurn, TurnRunningError, registerSearchAttributes, DEFAULT_TASK_QUEUE } from "./temporal/index.js";
export type { StartTurnOptions, TurnHandle, TurnResult, TurnInput } from "./temporal/index.js";
