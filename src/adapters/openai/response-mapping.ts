/** A chat-completions response to one ModelOutput. */
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import { ModelOutput, type ToolCall, type Usage } from "../../domain/events.js";
import { TransientError } from "../../ports/errors.js";
import type { ChatRequest } from "../../ports/request.js";
import { parseToolArguments } from "../../ports/tool-arguments.js";

/** What an output records about its call besides the response: the model's name and the request. */
export interface CallFacts {
  model: string;
  request: ChatRequest;
}

/** A tool call as it arrived: the id (possibly missing), the name and the argument text. */
export interface RawToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The parts of an output, from a whole response or an assembled stream. */
export interface OutputParts {
  content: string;
  reasoning: string | null;
  toolCalls: RawToolCall[];
  finishReason: string | null;
  usage: ChatCompletion["usage"] | ChatCompletionChunk["usage"];
}

/** Map a whole (non-streamed) response. A response without a choice is the service's failure. */
export function outputOfCompletion(completion: ChatCompletion, facts: CallFacts): ModelOutput {
  const choice = completion.choices?.[0];
  if (choice === undefined) {
    throw new TransientError(
      `The model service answered the call of ${facts.model} without a choice: no output to record.`,
    );
  }
  const message = choice.message;
  return outputOf(
    {
      content: message.content ?? "",
      reasoning: reasoningOf(message),
      toolCalls: (message.tool_calls ?? []).flatMap((call) =>
        call.type === "function" ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
      ),
      finishReason: choice.finish_reason ?? null,
      usage: completion.usage,
    },
    facts,
  );
}

/** Make the ModelOutput of its parts: content raw (the runtime cuts markers), arguments parsed. */
export function outputOf(parts: OutputParts, facts: CallFacts): ModelOutput {
  return ModelOutput({
    content: parts.content,
    toolCalls: parts.toolCalls.map((call, index) => toolCallOf(call, index, facts.request)),
    reasoning: parts.reasoning === "" ? null : parts.reasoning,
    model: facts.model,
    finishReason: parts.finishReason,
    usage: usageOf(parts.usage),
    promptCharacters: facts.request.characters,
    requestHash: facts.request.hash,
  });
}

/**
 * The reasoning a compatible server gives beside the message (`reasoning_content` as DeepSeek and older
 * vLLM write it, `reasoning` as newer vLLM and OpenRouter do); the official API gives none.
 */
export function reasoningOf(message: object): string | null {
  const fields = message as { reasoning_content?: unknown; reasoning?: unknown };
  const value = fields.reasoning_content ?? fields.reasoning;
  return typeof value === "string" && value !== "" ? value : null;
}

// A server that sends no id gets one derived from the request, so a retried call records the same ids.
function toolCallOf(call: RawToolCall, index: number, request: ChatRequest): ToolCall {
  const id = call.id === "" ? `call_${request.hash.slice(0, 16)}_${index + 1}` : call.id;
  return { id, name: call.name, arguments: parseToolArguments(call.arguments) };
}

function usageOf(usage: OutputParts["usage"]): Usage | null {
  if (usage === undefined || usage === null) return null;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
}
