/**
 * soev-agents/ai-sdk: any AI SDK provider package as a ChatModel, and the model strings
 * (`anthropic:claude-sonnet-4-5`) that name one.
 *
 * @module soev-agents/ai-sdk
 */
export { AiSdkChatModel } from "./chat-model.js";
export type { AiSdkChatModelOptions, AiSdkSettings, ReasoningEffort, ToolChoice } from "./options.js";
export { ModelRefusalError } from "./errors.js";
export { BUILT_IN_PROVIDERS, aiSdkProvider, resolveModel } from "./registry.js";
export type { ProviderContext, ModelEnvironment, ModelProvider, ResolveModelOptions } from "./registry.js";
