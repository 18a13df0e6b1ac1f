/**
 * soev-agents/runtime: tools, graphs and steps, budget, citations, the catalog and the local runner, replay.
 *
 * @module soev-agents/runtime
 */
export { BRACKETS, FULLWIDTH, parseMarkers, readMarkers } from "./citations.js";
export { tool } from "./tools/function-tool.js";
export type { FunctionTool, ToolSpec, ToolArguments, ToolRunContext } from "./tools/function-tool.js";
export {
  AnswerPending,
  AnswerMismatchError,
  NoAnswerError,
  questionId,
  approvalId,
  deniedText,
} from "./tools/asking.js";
export type { Question, Ask } from "./tools/asking.js";
export { AnswerRefusedError, waitingRequests, openRequests, threadRequests } from "./runner/requests.js";
export { bound } from "./tools/bound.js";
export type { Bound, BoundValues } from "./tools/bound.js";
export { Recorded } from "./tools/recorded.js";
export type { RecordedValues } from "./tools/recorded.js";
export { ElementId, ResultHandle } from "./tools/ids.js";
export type { IdArgument, IdTarget, Handles } from "./tools/ids.js";
export { atMost } from "./tools/limits.js";
export type { AtMost, AtMostOptions } from "./tools/limits.js";
export {
  UnboundToolError,
  ToolReturnError,
  InputDeniedError,
  InputTooLargeError,
  UnknownAgentError,
  UnknownThreadError,
  GraphError,
} from "./errors.js";
export { Budget, BUDGET_DEFAULTS } from "./budget.js";
export type { BudgetOptions } from "./budget.js";
export { Graph, END, checkGraph } from "./graph.js";
export type { Route } from "./graph.js";
export { LlmStep } from "./steps/llm-step.js";
export type { LlmStepOptions } from "./steps/llm-step.js";
export { ToolStep, FINISH_DIRECTIVE } from "./steps/tool-step.js";
export type { ToolStepOptions } from "./steps/tool-step.js";
export { accepted } from "./agent.js";
export { InputElement } from "./input-element.js";
export type { Agent } from "./agent.js";
export { AgentCatalog, LEASE_SECONDS } from "./catalog.js";
export type { CatalogOptions, ResourcesOf } from "./catalog.js";
export { Thread } from "./thread.js";
export type { ResumeOptions } from "./thread.js";
export { runTurn } from "./runner/local.js";
export type { RunOptions } from "./runner/local.js";
export { replay, rebuildCalls, explainCall } from "./replay.js";
export type { ReplayedCall, RebuildOptions, BuildGraph } from "./replay.js";
export { whatIf, whatIfAgent, whatIfThreads, differenceOf } from "./what-if.js";
export { compareRerun, rerunMarkdown } from "./rerun-report.js";
export type {
  AnswerJudge,
  Changes,
  CompareRerunOptions,
  RerunReport,
  RerunTotals,
  TurnComparison,
} from "./rerun-report.js";
export { Spending, BudgetExceededError } from "./spending.js";
export type { SpendingLimits } from "./spending.js";
export { usageReport } from "./usage-report.js";
export type { UsageRow, UsageReportOptions } from "./usage-report.js";
export type { WhatIfCall, WhatIfSummary, RequestDifference, FormChange } from "./what-if.js";
export { isModelStep } from "./contracts.js";
export type {
  Tool,
  Limit,
  ToolCallContext,
  CitationStrategy,
  ParsedMarker,
  ModelContext,
  ContextBuilder,
  ExplainedForm,
  ModelStep,
  Show,
  Step,
  StepContext,
  Work,
} from "./contracts.js";
export type { Delegation, TaskStep } from "./tools/delegation.js";
