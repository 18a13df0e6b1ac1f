/**
 * soev-agents/internal: the runner's machinery, for the Temporal activities and for integrations that drive a
 * turn themselves. Not the common path, and it may change in any minor release; soev-agents and its subpaths are
 * the stable surface.
 *
 * @module soev-agents/internal
 */
export {
  streamOfRequest,
  refusal,
  recordAnswer,
  expireRequest,
  recordTurnFailure,
} from "../runtime/runner/requests.js";
export { checkBindable } from "../runtime/tools/bound.js";
export { idArguments, resultHandles } from "../runtime/tools/ids.js";
export { toolDef, argumentsSchema } from "../runtime/tools/tool-def.js";
export { mapArguments, shownArguments } from "../runtime/tools/arguments.js";
export { executeCall, checkBound } from "../runtime/tools/execute.js";
export { runWork, recordFailure, append, readTrace, CACHED_THREADS, CACHED_EVENTS } from "../runtime/runner/work.js";
export type { Recorder, WorkResult } from "../runtime/runner/work.js";
export { pendingNode } from "../runtime/runner/pending.js";
export { runTask, handOff, handBack, taskGraph, recordedTask } from "../runtime/runner/task.js";
export type { HandOff, RunStreamTurn, TaskContext } from "../runtime/runner/task.js";
export { isDelegation, isTaskStep, taskStream } from "../runtime/tools/delegation.js";
export { callSite } from "../runtime/replay.js";
export type { CallSite } from "../runtime/replay.js";
export { shortened, markdownEscaped, markdownCode } from "../temporal/contract.js";
export type {
  TurnLease,
  TurnScope,
  TurnActivities,
  OpenTurnArgument,
  OpenedTurn,
  WorkUnit,
  PlannedWork,
  WorkArgument,
  WorkDone,
  TurnFailure,
  FailTurnArgument,
  FailedTurn,
  CloseTurnArgument,
  HandedOff,
  TaskArgument,
  TaskOutcome,
  RecordAnswerArgument,
  ExpireRequestArgument,
  ExpiredRequest,
} from "../temporal/contract.js";
