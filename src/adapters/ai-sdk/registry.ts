/**
 * Model strings (`anthropic:claude-sonnet-4-5`, `google:gemini-2.5-pro`, `openai:gpt-4.1` (chat completions),
 * `openai-responses:gpt-5` (the Responses API),
 * `openai-compatible:<name>`) resolved to ChatModels by one registry, with keys from the providers' usual
 * environment variables.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import OpenAI from "openai";
import { ValueError } from "../../domain/errors.js";
import type { ChatModel } from "../../ports/model.js";
import { OpenAIChatModel } from "../openai/chat-model.js";
import { OpenAIResponsesModel } from "../openai/responses-model.js";
import { AiSdkChatModel } from "./chat-model.js";
import type { AiSdkChatModelOptions } from "./options.js";

/** The environment a provider reads its key and base URL from. */
export type ModelEnvironment = Readonly<Record<string, string | undefined>>;

/** What a provider of the registry gets besides the model's name: the environment and the adapter options. */
export interface ProviderContext {
  env: ModelEnvironment;
  /** Options for an AiSdkChatModel (settings, reasoning, prompt caching, provider options). */
  adapter: Omit<AiSdkChatModelOptions, "model" | "name" | "provider">;
}

/** Makes the ChatModel of a model name (the part after `provider:`). */
export type ModelProvider = (name: string, context: ProviderContext) => ChatModel;

/** The options of resolveModel. */
export interface ResolveModelOptions {
  /** More providers by prefix, or ones that replace the built-in providers of the same prefix. */
  providers?: Readonly<Record<string, ModelProvider>>;
  /** Where keys and base URLs are read; `process.env` by default. */
  env?: ModelEnvironment;
  /** Options for the AI SDK adapters the registry builds. */
  adapter?: ProviderContext["adapter"];
}

/** Wrap a provider package's language models (one per name) as a registry provider. */
export function aiSdkProvider(languageModel: (name: string, env: ModelEnvironment) => LanguageModelV4): ModelProvider {
  return (name, context) =>
    new AiSdkChatModel({
      ...context.adapter,
      model: languageModel(name, context.env),
      provider: (other) => languageModel(other, context.env),
    });
}

/**
 * The built-in providers: Anthropic and Google through their AI SDK packages, OpenAI through the native adapter
 * (chat completions as `openai:`, the Responses API as `openai-responses:`).
 */
export const BUILT_IN_PROVIDERS: Readonly<Record<string, ModelProvider>> = {
  anthropic: aiSdkProvider((name, env) =>
    createAnthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL })(name),
  ),
  google: aiSdkProvider((name, env) =>
    createGoogleGenerativeAI({ apiKey: env.GOOGLE_GENERATIVE_AI_API_KEY, baseURL: env.GOOGLE_GENERATIVE_AI_BASE_URL })(
      name,
    ),
  ),
  openai: (name, { env }) =>
    new OpenAIChatModel(new OpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL }), { model: name }),
  "openai-responses": (name, { env }) =>
    new OpenAIResponsesModel(new OpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL }), { model: name }),
  "openai-compatible": (name, { env }) => {
    if (!env.OPENAI_BASE_URL) {
      throw new ValueError(
        `The model "openai-compatible:${name}" needs the server's URL: set OPENAI_BASE_URL (such as http://localhost:8000/v1).`,
      );
    }
    return new OpenAIChatModel(new OpenAI({ apiKey: env.OPENAI_API_KEY ?? "none", baseURL: env.OPENAI_BASE_URL }), {
      model: name,
    });
  },
};

/**
 * The ChatModel of a model string `provider:name`, such as `anthropic:claude-sonnet-4-5`. The model's
 * name (what a turn's Input.model and the trace record) is the part after the prefix. Keys come from
 * ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY and OPENAI_API_KEY, base URLs from ANTHROPIC_BASE_URL,
 * GOOGLE_GENERATIVE_AI_BASE_URL and OPENAI_BASE_URL.
 */
export function resolveModel(modelString: string, options: ResolveModelOptions = {}): ChatModel {
  const providers = { ...BUILT_IN_PROVIDERS, ...options.providers };
  const colon = typeof modelString === "string" ? modelString.indexOf(":") : -1;
  const prefix = colon > 0 ? modelString.slice(0, colon) : "";
  const name = colon > 0 ? modelString.slice(colon + 1).trim() : "";
  const provider = Object.hasOwn(providers, prefix) ? providers[prefix] : undefined;
  if (provider === undefined || name === "") {
    throw new ValueError(
      `"${String(modelString)}" is not a model string of a known provider: write provider:model, such as ` +
        `anthropic:claude-sonnet-4-5, with a provider of ${Object.keys(providers).join(", ")}.`,
    );
  }
  return provider(name, { env: options.env ?? process.env, adapter: options.adapter ?? {} });
}
