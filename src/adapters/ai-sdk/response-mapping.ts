/** An AI SDK call's result (whole, or assembled from its stream) to one ModelOutput. */
import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { ModelOutput, type Usage } from "../../domain/events.js";
import { TransientError } from "../../ports/errors.js";
import { ReasoningDelta, type Fragment } from "../../ports/model.js";
import type { ChatRequest } from "../../ports/request.js";
import { parseToolArguments } from "../../ports/tool-arguments.js";
import { ModelRefusalError } from "./errors.js";

/** What an output records about its call besides the response: the model's name and the request. */
export interface CallFacts {
  model: string;
  request: ChatRequest;
}

/** The parts of an output, from a whole result or an assembled stream. */
export interface OutputParts {
  content: string;
  reasoning: string;
  toolCalls: { toolCallId: string; toolName: string; input: string }[];
  finishReason: LanguageModelV4FinishReason;
  usage: LanguageModelV4Usage;
}

/** The parts of a whole (non-streamed) result, in the order of its content. */
export function partsOfContent(
  content: readonly LanguageModelV4Content[],
  finishReason: LanguageModelV4FinishReason,
  usage: LanguageModelV4Usage,
): OutputParts {
  const parts: OutputParts = { content: "", reasoning: "", toolCalls: [], finishReason, usage };
  for (const item of content) {
    if (item.type === "text") parts.content += item.text;
    else if (item.type === "reasoning") parts.reasoning += item.text;
    else if (item.type === "tool-call" && item.providerExecuted !== true) parts.toolCalls.push(item);
  }
  return parts;
}

/**
 * Make the ModelOutput of its parts: content raw (the runtime cuts markers), arguments parsed. A response
 * the provider stopped for its content is a refusal; one that it ended without finishing, the service's failure.
 */
export function outputOf(parts: OutputParts, facts: CallFacts): ModelOutput {
  const { unified, raw } = parts.finishReason;
  if (unified === "content-filter") {
    throw new ModelRefusalError(
      `The model service refused to answer the call of ${facts.model} for its content (${raw ?? unified}). ` +
        "Change the request; retrying the same call cannot help.",
      { reason: raw ?? unified },
    );
  }
  if (unified === "interrupted" || unified === "error") {
    throw new TransientError(
      `The response of ${facts.model} ended before the model finished its output (${raw ?? unified}). The call can be tried again.`,
    );
  }
  return ModelOutput({
    content: parts.content,
    toolCalls: parts.toolCalls.map((call) => ({
      id: call.toolCallId,
      name: call.toolName,
      arguments: parseToolArguments(call.input),
    })),
    reasoning: parts.reasoning === "" ? null : parts.reasoning,
    model: facts.model,
    finishReason: unified,
    usage: usageOf(parts.usage),
    promptCharacters: facts.request.characters,
    requestHash: facts.request.hash,
  });
}

/** The provider's usage as the trace records it; null when the provider reported no totals. */
export function usageOf(usage: LanguageModelV4Usage): Usage | null {
  const prompt = usage.inputTokens.total;
  const completion = usage.outputTokens.total;
  if (prompt === undefined || completion === undefined) return null;
  const mapped: Usage = { promptTokens: prompt, completionTokens: completion };
  if (usage.inputTokens.cacheRead !== undefined) mapped.cachedTokens = usage.inputTokens.cacheRead;
  if (usage.outputTokens.reasoning !== undefined) mapped.reasoningTokens = usage.outputTokens.reasoning;
  return mapped;
}

/** The state of one streamed response: text, reasoning, whole tool calls, and the finish with its usage. */
export class StreamAssembly {
  private readonly parts: Omit<OutputParts, "finishReason" | "usage"> = { content: "", reasoning: "", toolCalls: [] };
  private finish: Pick<OutputParts, "finishReason" | "usage"> | null = null;

  /** Whether the stream gave its finish: only then is the output complete. */
  get finished(): boolean {
    return this.finish !== null;
  }

  /**
   * Take one part, and return its fragment if it has one. Tool calls arrive whole after their input deltas
   * (the provider assembles them), so the deltas are skipped. An error part is returned for the caller to raise.
   */
  add(part: LanguageModelV4StreamPart): Fragment | { error: unknown } | null {
    switch (part.type) {
      case "text-delta":
        this.parts.content += part.delta;
        return part.delta === "" ? null : part.delta;
      case "reasoning-delta":
        this.parts.reasoning += part.delta;
        return part.delta === "" ? null : new ReasoningDelta(part.delta);
      case "tool-call":
        if (part.providerExecuted !== true) this.parts.toolCalls.push(part);
        return null;
      case "finish":
        this.finish = { finishReason: part.finishReason, usage: part.usage };
        return null;
      case "error":
        return { error: part.error };
      default:
        return null;
    }
  }

  /** The complete output, once `finished`. */
  output(facts: CallFacts): ModelOutput {
    return outputOf({ ...this.parts, ...this.finish! }, facts);
  }
}
