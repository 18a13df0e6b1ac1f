/**
 * soev-agents/openai: models over OpenAI's Chat Completions and Responses APIs (the `openai` package loads only here).
 *
 * @module soev-agents/openai
 */
export { OpenAIChatModel } from "./chat-model.js";
export type { OpenAIChatModelOptions } from "./options.js";
export type { ReasoningField } from "./request-mapping.js";
export { ModelRequestError } from "./errors.js";
export { OpenAIResponsesModel } from "./responses-model.js";
export type { OpenAIResponsesModelOptions, EncryptedReasoning } from "./responses-options.js";
export { RESPONSES_KEY } from "./responses-kept.js";
export type { KeptItem, KeptOutput } from "./responses-kept.js";
