/**
 * soev-agents/testing: models that stand in for the LLM in tests, and a clock that moves when told.
 *
 * @module soev-agents/testing
 */
export { ScriptedModel, ScriptExhaustedError } from "./scripted-model.js";
export type { ScriptedModelOptions } from "./scripted-model.js";
export { FunctionModel } from "./function-model.js";
export type { ModelFunction, FunctionModelOptions } from "./function-model.js";
export type { ModelCall } from "./recording-model.js";
export { ManualClock } from "./manual-clock.js";
export type { ScriptedOutput, ScriptedTurn, ScriptedToolCall } from "./scripted-output.js";
