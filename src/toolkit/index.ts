/**
 * soev-agents/toolkit: ready parts to build agents: the ReAct agent, its inputs, prompts and tools, and its context.
 *
 * @module soev-agents/toolkit
 */
export { promptTemplate } from "./prompts/template.js";
export type { Prompt, TemplatePrompt } from "./prompts/template.js";
export { PromptFile } from "./prompts/prompt-file.js";
export { Prompts } from "./prompts/prompts.js";
export type { PromptsFields } from "./prompts/prompts.js";
export { ModelLayer, ToolTexts, PromptFileFields, PromptFileError } from "./prompts/schema.js";
export type { PromptFileInput } from "./prompts/schema.js";
export { ReActAgent, MODEL_NODE, TOOLS_NODE } from "./react/agent.js";
export type { ReActAgentOptions, ReActConfigFunction, ReActConfigSource, ExplainOptions } from "./react/agent.js";
export { ReActConfig, REACT_DEFAULTS } from "./react/config.js";
export type { ReActConfigOptions, PromptSetting, ToolStatesOf } from "./react/config.js";
export { ToolDeclaration, REQUIRED_TOOL_INSTRUCTION, DECLARATION_DEFAULTS } from "./react/declaration.js";
export type { ToolDeclarationOptions } from "./react/declaration.js";
export type { ContextStrategy, TurnParts } from "./react/strategy.js";
export { Text, ChatTurnInput, ToolState } from "./inputs/input-types.js";
export type { TextTurn, ToolStates } from "./inputs/input-types.js";
export { elementsThenText, renderedBy } from "./inputs/render.js";
export type { RenderTurn, RenderInput, ShowElements } from "./inputs/render.js";
export { BRACKETS, FULLWIDTH } from "../runtime/citations.js";
export { xml } from "./context/xml.js";
export type { XmlOptions, ByElementType } from "./context/xml.js";
export { KEPT_RENDERS, MessageBuilder, only } from "./context/message-builder.js";
export type { MessageBuilderOptions } from "./context/message-builder.js";
export type { RenderEvent } from "./context/render.js";
export {
  MissingTurnError,
  UnrenderedEventError,
  ShortenError,
  ContextFullError,
  CompactionError,
} from "./context/errors.js";
export { ModelLimits, Tokens, Share, DEFAULT_LIMITS } from "./context/limits.js";
export { KNOWN_LIMITS, knownLimits, limitsOfModel, modelFamilyName } from "./context/known-limits.js";
export type { KnownLimits } from "./context/known-limits.js";
export type { Threshold, ModelLimitsOptions, MeasuredPrompt } from "./context/limits.js";
export {
  Form,
  FULL,
  COMPRESSED,
  STUBBED,
  Forms,
  asRecorded,
  dropText,
  sources,
  cap,
  firstWords,
  CUT_TEXT,
  jsonCap,
} from "./context/forms.js";
export type { FormsOptions, Shorten, ShortenText } from "./context/forms.js";
export { Selection, Units, turns, rounds, results, Compress, Stub, Shrunk, Floor, cited } from "./context/shrink.js";
export type {
  SliceKey,
  Unit,
  Shrink,
  SelectionShrink,
  ShrinkOptions,
  FormsByHandle,
  Protects,
} from "./context/shrink.js";
export {
  Reasoning,
  NEVER,
  CURRENT_TURN,
  ALWAYS,
  ContextPolicy,
  CONTEXT_POLICY_DEFAULTS,
  DEFAULT_SHRINKS,
} from "./context/context-policy.js";
export type { ContextPolicyOptions } from "./context/context-policy.js";
export { Reopen, ReopenArguments, REOPEN_DESCRIPTION } from "./context/reopen.js";
export type { ReopenOptions } from "./context/reopen.js";
export { Compact, COMPACT_INSTRUCTIONS, COMPACT_CITING, CompactingStep } from "./context/compact.js";
export type { CompactOptions, Assessment, AssessingBuilder } from "./context/compact.js";
export { ToolDelegation } from "./delegation/tool-delegation.js";
export type { ToolDelegationOptions } from "./delegation/tool-delegation.js";
export { INPUT_ARGUMENT } from "./delegation/arguments.js";
export { lastContent, replyText, shownElements } from "./delegation/hand-back.js";
export type { TaskResult } from "./delegation/hand-back.js";
export { SUMMARY_TEXT } from "./context/context-draft.js";
export { COMPRESSED_LINE, STUBBED_LINE, IMAGE_NOTE } from "./context/render.js";
