/**
 * soev-agents: the common path in one import — elements and events, tools, the ReAct agent and its context
 * policy, the catalog with its local runner, replay, and the stores and model that need no service. Importing it
 * loads no native module, no database driver, no provider SDK and no Temporal package: those live on their own
 * subpaths (soev-agents/sqlite, /postgres, /openai, /ai-sdk, /otel, /temporal, /worker, /app), and the layers'
 * full surfaces on theirs (soev-agents/domain, /ports, /runtime, /toolkit, /testing). What the runner's
 * activities and advanced integrations need is in soev-agents/internal.
 *
 * @module soev-agents
 */
export {
  Input,
  ModelOutput,
  ToolOutput,
  Failure,
  Element,
  Source,
  Reference,
  sourceType,
  referenceType,
  SoevError,
  CallerError,
  ModelOutputError,
  OutsideWorldError,
  ValueError,
} from "./domain/index.js";
export type { Event, ElementType, JsonValue, ToolCall, Usage } from "./domain/index.js";
export type { ChatModel, TraceStore, Observer, LiveChannel } from "./ports/index.js";
export {
  AgentCatalog,
  tool,
  bound,
  ElementId,
  Recorded,
  atMost,
  replay,
  whatIf,
  whatIfAgent,
  InputElement,
  UnknownAgentError,
  BudgetExceededError,
} from "./runtime/index.js";
export type { Tool, CatalogOptions, SpendingLimits } from "./runtime/index.js";
export { PRICES, usageOf, usageByTurn } from "./domain/index.js";
export type { PriceTable, ModelPrice, UsageTotals } from "./domain/index.js";
export {
  ReActAgent,
  ReActConfig,
  BRACKETS,
  Text,
  PromptFile,
  ContextPolicy,
  MessageBuilder,
  ModelLimits,
  Share,
  ToolDelegation,
} from "./toolkit/index.js";
export { InMemoryTraceStore } from "./adapters/stores/memory.js";
export type { InMemoryTraceStoreOptions } from "./adapters/stores/memory.js";
export { InProcessLiveChannel } from "./adapters/live/in-process.js";
export { DemoModel } from "./adapters/demo-model.js";
