/** soev-agents/toolkit: ready parts to build agents: the ReAct agent, its inputs, prompts and tools, and its context. */
export { promptTemplate } from "./prompts/template.js";
export type { Prompt, TemplatePrompt } from "./prompts/template.js";
export { PromptFile } from "./prompts/prompt-file.js";
export { Prompts } from "./prompts/prompts.js";
export type { PromptsFields } from "./prompts/prompts.js";
export { ModelLayer, ToolTexts, PromptFileFields } from "./prompts/schema.js";
export type { PromptFileInput } from "./prompts/schema.js";
export { PromptFileError } from "./prompts/prompt-file-error.js";
