/**
 * What OpenAIResponsesModel keeps of an output for the calls after it, in ModelOutput.providerData under
 * RESPONSES_KEY: the output's items in their order, each with what the next request needs and the recorded
 * output does not hold already (the text is ModelOutput.content, a call's name and arguments its toolCalls).
 * The context builder puts it on the output's AssistantMessage, so a replayed request is the sent one, byte for byte.
 */
import type { ResponseOutputItem } from "openai/resources/responses/responses";
import type { JsonValue } from "../../domain/json.js";
import type { AssistantMessage } from "../../ports/messages.js";

/** The key of OpenAIResponsesModel's data in ModelOutput.providerData. */
export const RESPONSES_KEY = "openai-responses";

/** One kept output item: a reasoning item whole, or the ids of a message or a function call. */
export type KeptItem =
  | { type: "reasoning"; id: string; encryptedContent: string; summary: string[] }
  | { type: "message"; id: string; phase?: "commentary" | "final_answer" }
  | { type: "function_call"; id: string; callId: string };

/** The kept items of one output, and the model that made them (its encrypted reasoning is for that model alone). */
export interface KeptOutput {
  model: string;
  items: KeptItem[];
}

/**
 * The items to keep of a response's output, or null when none is worth keeping: an output without a reasoning
 * item that has encrypted content is sent back as plain text and calls, without ids.
 */
export function keepItems(output: readonly ResponseOutputItem[], model: string): Record<string, JsonValue> | null {
  const items: KeptItem[] = [];
  for (const item of output) {
    if (item.type === "reasoning" && typeof item.encrypted_content === "string") {
      const summary = item.summary.map((part) => part.text);
      items.push({ type: "reasoning", id: item.id, encryptedContent: item.encrypted_content, summary });
    } else if (item.type === "message") {
      items.push({ type: "message", id: item.id, ...(item.phase ? { phase: item.phase } : {}) });
    } else if (item.type === "function_call" && typeof item.id === "string") {
      items.push({ type: "function_call", id: item.id, callId: item.call_id });
    }
  }
  if (!items.some((item) => item.type === "reasoning")) return null;
  return { [RESPONSES_KEY]: { model, items } as unknown as JsonValue };
}

/** The kept items of an assistant message, or null when it has none of this adapter's (another adapter's output). */
export function keptItems(message: AssistantMessage): KeptOutput | null {
  const kept = message.providerData?.[RESPONSES_KEY] as Partial<KeptOutput> | undefined;
  if (kept === undefined || typeof kept.model !== "string" || !Array.isArray(kept.items)) return null;
  return { model: kept.model, items: kept.items.filter(isKeptItem) };
}

function isKeptItem(item: unknown): item is KeptItem {
  const fields = item as Partial<Record<string, unknown>> | null;
  if (typeof fields?.id !== "string") return false;
  if (fields.type === "reasoning") return typeof fields.encryptedContent === "string" && Array.isArray(fields.summary);
  if (fields.type === "function_call") return typeof fields.callId === "string";
  return fields.type === "message";
}
