/**
 * soev-agents/ports: the protocols at which the framework reaches outside the process.
 *
 * @module soev-agents/ports
 */
export {
  TransientError,
  InvalidQueryError,
  ResourceUnavailableError,
  LeaseHeldError,
  LeaseExpiredError,
  SealedEventError,
  StreamMovedError,
} from "./errors.js";
export {
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolResult,
  TextPart,
  ImagePart,
  ToolDef,
  messageClass,
} from "./messages.js";
export type { Message, ContentPart } from "./messages.js";
export { ChatRequest, IMAGE_CHARACTERS } from "./request.js";
export { ReasoningDelta, preparesRequests } from "./model.js";
export { REDACTED, scrubSecrets, scrubError } from "./secrets.js";
export { UNPARSED_ARGUMENTS, parseToolArguments, unparsedArguments, argumentsText } from "./tool-arguments.js";
export type { ChatModel, Fragment, CallOptions, PreparedRequest, PreparesRequests } from "./model.js";
export type { TraceStore, Lease, AppendOptions, ReadOptions, ThreadsOptions } from "./store.js";
export type { Observer, CallKind } from "./observer.js";
export type { LiveChannel, LiveFragment, LiveListener } from "./live.js";
export { SYSTEM_CLOCK } from "./clock.js";
export type { Clock } from "./clock.js";
export type { StoredEvent, LogEntry, ToolCall } from "../domain/events.js";
