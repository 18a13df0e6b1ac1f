/** The options of AiSdkChatModel, with their defaults and their checks. */
import type { LanguageModelV4, LanguageModelV4CallOptions, SharedV4ProviderOptions } from "@ai-sdk/provider";
import { ValueError } from "../../domain/errors.js";

/** The sampling settings an AI SDK call takes, each as the provider interface names it. */
export type AiSdkSettings = Pick<
  LanguageModelV4CallOptions,
  | "maxOutputTokens"
  | "temperature"
  | "topP"
  | "topK"
  | "stopSequences"
  | "presencePenalty"
  | "frequencyPenalty"
  | "seed"
>;

/** How much the model reasons before it answers, as the provider interface names it. */
export type ReasoningEffort = NonNullable<LanguageModelV4CallOptions["reasoning"]>;

/** Which tool the model must call: any (`auto`), none, one at least (`required`), or the one named. */
export type ToolChoice = "auto" | "none" | "required" | { toolName: string };

/** The options of AiSdkChatModel. */
export interface AiSdkChatModelOptions {
  /** The language model of an AI SDK provider package, such as `createAnthropic()("claude-sonnet-4-5")`. */
  model: LanguageModelV4;
  /** The name calls and recorded outputs use for this model; the model's own id by default. */
  name?: string;
  /** The model for a call that names another model (a turn's Input.model); without it such a call is refused. */
  provider?: (name: string) => LanguageModelV4;
  /** Sampling settings sent with every call. */
  settings?: AiSdkSettings;
  /** Reasoning effort, for the models that reason; the provider's default when absent. */
  reasoning?: ReasoningEffort;
  /** Which tool the model must call; `auto` by default. */
  toolChoice?: ToolChoice;
  /**
   * Mark the system prompt and the last message as cache breakpoints (Anthropic prompt caching): each call
   * of a growing thread reads the prefix the call before it wrote. Providers without the option ignore it.
   */
  promptCaching?: boolean;
  /** Options of the provider package, by provider, such as `{ anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } }`. */
  providerOptions?: SharedV4ProviderOptions;
}

/** The options with defaults applied. */
export interface ResolvedOptions {
  model: LanguageModelV4;
  name: string;
  provider: ((name: string) => LanguageModelV4) | null;
  settings: AiSdkSettings;
  reasoning: ReasoningEffort | null;
  toolChoice: ToolChoice;
  promptCaching: boolean;
  providerOptions: SharedV4ProviderOptions;
}

/** Apply the defaults and check the options, so a bad configuration fails before any call. */
export function resolveOptions(options: AiSdkChatModelOptions): ResolvedOptions {
  const model = options?.model as Partial<LanguageModelV4> | undefined;
  if (model?.specificationVersion !== "v4" || typeof model.doGenerate !== "function") {
    throw new ValueError(
      `AiSdkChatModel needs a language model of the AI SDK's provider interface v4 (got ${describe(model)}): ` +
        'pass { model: createAnthropic()("claude-sonnet-4-5") } from a current @ai-sdk/* provider package.',
    );
  }
  const name = options.name ?? model.modelId ?? "";
  if (name.trim() === "") throw new ValueError('AiSdkChatModel needs a name: pass { name: "<the model\'s name>" }.');
  const choice = options.toolChoice ?? "auto";
  if (
    typeof choice === "object" ? typeof choice.toolName !== "string" : !["auto", "none", "required"].includes(choice)
  ) {
    throw new ValueError('AiSdkChatModel toolChoice must be "auto", "none", "required" or { toolName: "<a tool>" }.');
  }
  return {
    model: options.model,
    name,
    provider: options.provider ?? null,
    settings: { ...options.settings },
    reasoning: options.reasoning ?? null,
    toolChoice: choice,
    promptCaching: options.promptCaching ?? false,
    providerOptions: options.providerOptions ?? {},
  };
}

function describe(model: Partial<LanguageModelV4> | undefined): string {
  if (model === undefined || model === null) return "nothing";
  const version = model.specificationVersion;
  return version === undefined ? "an object that is not a language model" : `a model of interface ${String(version)}`;
}
