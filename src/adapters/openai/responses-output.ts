/** A Responses API response to one ModelOutput: text, reasoning, function calls, finish reason, usage, kept items. */
import type { Response, ResponseOutputItem, ResponseUsage } from "openai/resources/responses/responses";
import { ModelOutput, type Usage } from "../../domain/events.js";
import { TransientError } from "../../ports/errors.js";
import { outputOf, type CallFacts } from "./response-mapping.js";
import { keepItems } from "./responses-kept.js";

/** The fields of a response that its output is made of; a streamed one may lack `output`, given by its items. */
export type ResponseParts = Pick<Response, "status" | "incomplete_details" | "error"> & {
  usage?: ResponseUsage | null | undefined;
};

/**
 * Map a finished response: its output items in order, its status, its usage. A failed response is the
 * service's failure (TransientError): it says so in `error`.
 */
export function outputOfResponse(
  response: ResponseParts,
  items: readonly ResponseOutputItem[],
  facts: CallFacts,
): ModelOutput {
  const failure = failureOf(response, facts.model);
  if (failure !== null) throw failure;
  const texts: string[] = [];
  const refusals: string[] = [];
  const summaries: string[] = [];
  const calls = items.flatMap((item) => {
    if (item.type === "message") {
      for (const part of item.content) (part.type === "output_text" ? texts : refusals).push(textOf(part));
    } else if (item.type === "reasoning") {
      for (const part of item.summary) summaries.push(part.text);
      for (const part of item.content ?? []) if (item.summary.length === 0) summaries.push(part.text);
    } else if (item.type === "function_call") {
      return [{ id: item.call_id, name: item.name, arguments: item.arguments }];
    }
    return [];
  });
  const output = outputOf(
    {
      content: texts.length === 0 ? refusals.join("") : texts.join(""),
      reasoning: summaries.join("\n\n"),
      toolCalls: calls,
      finishReason: finishReasonOf(response, calls.length > 0, texts.length === 0 && refusals.length > 0),
      usage: null,
    },
    facts,
  );
  const kept = keepItems(items, facts.model);
  return ModelOutput({ ...output, usage: usageOf(response.usage), ...(kept === null ? {} : { providerData: kept }) });
}

/** The error of a failed or cancelled response, a failure of the service: the same call can succeed later. */
export function failureOf(response: ResponseParts, model: string): TransientError | null {
  if (response.status !== "failed" && response.status !== "cancelled") return null;
  const reason = response.error ? `${response.error.code}: ${response.error.message}` : response.status;
  return new TransientError(`The model service failed the call of ${model} (${reason}). The call can be tried again.`, {
    details: { status: response.status },
  });
}

function textOf(part: { type: string; text?: string; refusal?: string }): string {
  return part.type === "output_text" ? (part.text ?? "") : (part.refusal ?? "");
}

/**
 * The reason the output ended, in the words chat completions uses (the runtime and the observers read them
 * so): "tool_calls", "stop", "refusal", or an incomplete response's reason ("length" for max_output_tokens).
 */
export function finishReasonOf(response: ResponseParts, calls: boolean, refused: boolean): string {
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason ?? "incomplete";
    return reason === "max_output_tokens" ? "length" : reason;
  }
  if (calls) return "tool_calls";
  return refused ? "refusal" : "stop";
}

/** The usage as the port counts it: cached and reasoning tokens when the service reports them. */
export function usageOf(usage: ResponseUsage | null | undefined): Usage | null {
  if (usage === undefined || usage === null) return null;
  const cached = usage.input_tokens_details?.cached_tokens;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    promptTokens: usage.input_tokens,
    completionTokens: usage.output_tokens,
    ...(typeof cached === "number" ? { cachedTokens: cached } : {}),
    ...(typeof reasoning === "number" ? { reasoningTokens: reasoning } : {}),
  };
}
