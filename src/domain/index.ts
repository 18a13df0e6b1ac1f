/**
 * soev-agents/domain: events, elements, numbering, markers and the trace. Pure: no I/O.
 *
 * @module soev-agents/domain
 */
export { SoevError, CallerError, ModelOutputError, OutsideWorldError, ValueError, DecodeError } from "./errors.js";
export type { Fault, SoevErrorOptions } from "./errors.js";
export { canonicalJson } from "./json.js";
export { MAX_INPUT_BYTES, jsonBytes, inputSizeProblem } from "./input-size.js";
export type { JsonValue, JsonObject } from "./json.js";
export { declareKind, callableKind, kebabCase } from "./kinds.js";
export type { Kind } from "./kinds.js";
export { Element, Source, Reference, sourceType, referenceType } from "./elements.js";
export type { ElementFields, ElementType } from "./elements.js";
export {
  MAIN,
  Event,
  Input,
  TaskInput,
  ModelOutput,
  ToolOutput,
  Reopened,
  Compaction,
  Failure,
  Request,
  Response,
  ToolsListed,
  CORE_EVENT_TYPES,
  defineEventType,
} from "./events.js";
export type {
  Actor,
  Stream,
  EventHeader,
  EventInit,
  EventType,
  ToolCall,
  CitedNumber,
  Marker,
  Usage,
  ListedTool,
  StoredEvent,
  LogEntry,
  RequestKind,
} from "./events.js";
export {
  APPROVAL_SCHEMA,
  NO_ANSWER_ERROR,
  CANCELLED,
  unansweredRequests,
  pendingRequests,
  answerProblem,
  answerIssues,
  deadlineOf,
  noAnswerMessage,
} from "./requests.js";
export type { Approval, AnswerIssues } from "./requests.js";
export { EventTypes, encode, upgradeStoredRow } from "./registry.js";
export { camelToSnake, snakeToCamel, wireTypeName, typeNameOf } from "./wire-format.js";
export { NO_USAGE, usageOfCall, usageOf, usageByTurn, eventsByTurn, opensTurn, added } from "./usage.js";
export type { UsageTotals } from "./usage.js";
export { PRICES, priceOf, costOf, costOfEvents, checkPriceTable } from "./prices.js";
export type { ModelPrice, PriceTable, CallsCost } from "./prices.js";
export { Trace, turnStarts, inserted } from "./trace.js";
export type { GrowingIndex } from "./trace.js";
export { Numbering, THREAD_NUMBERING, elementsOf } from "./numbering.js";
