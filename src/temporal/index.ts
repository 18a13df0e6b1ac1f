/**
 * soev-agents/temporal: start and follow turns from a Temporal client; the turn's search attributes.
 *
 * @module soev-agents/temporal
 */
export {
  THREAD_SEARCH_ATTRIBUTE,
  AGENT_SEARCH_ATTRIBUTE,
  THREAD_TOKENS_SEARCH_ATTRIBUTE,
  SOEV_SEARCH_ATTRIBUTES,
  turnSearchAttributes,
  registerSearchAttributes,
} from "./search-attributes.js";
export { startTurn } from "./start-turn.js";
export type { StartTurnOptions, TurnHandle } from "./start-turn.js";
export { answerRequest, turnStatus } from "./requests.js";
export type { AnswerRequestOptions } from "./requests.js";
export { AnswerRefusedError } from "../runtime/runner/requests.js";
export {
  TurnRunningError,
  ThreadAgentError,
  ThreadMovedError,
  NoTurnError,
  SearchAttributeConflictError,
  SearchAttributeRegistrationError,
} from "./errors.js";
export { AesGcmCodec, ENCRYPTED_ENCODING } from "./codec.js";
export type { AesGcmCodecOptions } from "./codec.js";
export { encryptedDataConverter, failureConverterPath } from "./data-converters.js";
export { TurnDeniedError, checkAuthorized } from "./authorize.js";
export type { Authorize, TurnRequest } from "./authorize.js";
export {
  TURN_WORKFLOW,
  TASK_WORKFLOW,
  DEFAULT_TASK_QUEUE,
  WORKFLOW_ID_PREFIX,
  MAIN_STREAM,
  ANSWER_CHARACTERS,
  ANSWER_UPDATE,
  STATUS_QUERY,
  TURN_CANCELLED,
  SUMMARY_CHARACTERS,
  workflowIdOf,
  taskWorkflowIdOf,
  threadIdOf,
  argumentSizeProblem,
  MAX_ARGUMENT_BYTES,
  MAX_ARGUMENT_DEPTH,
  MAX_INPUT_BYTES,
  inputSizeProblem,
  RERUN_WORKFLOW,
  rerunThreadIdOf,
} from "./contract.js";
export type {
  TurnArgument,
  TurnInput,
  TurnJson,
  TurnSettings,
  TurnResult,
  TurnUsage,
  TurnCitation,
  TurnCitedNumber,
  PendingRequest,
  AnswerArgument,
  AnswerResult,
  TurnStatus,
  RerunArgument,
  RerunResult,
  RerunActivities,
  RerunMemo,
  RecordedInput,
} from "./contract.js";
export { startRerun, rerunWorkflowIdOf, describeRerun, RERUN_MEMO } from "./rerun.js";
export type { StartRerunOptions, RerunHandle, RerunDescription } from "./rerun.js";
