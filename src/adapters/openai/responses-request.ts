/** ChatRequest to the input items and function tools of a Responses call, with what the mapping changed. */
import type { FunctionTool, ResponseInputContent, ResponseInputItem } from "openai/resources/responses/responses";
import type { JsonValue } from "../../domain/json.js";
import { ChatRequest } from "../../ports/request.js";
import { argumentsText } from "../../ports/tool-arguments.js";
import type { AssistantMessage, ContentPart, Message, ToolDef } from "../../ports/messages.js";
import { keptItems, type KeptItem } from "./responses-kept.js";

/** A request mapped to the Responses shape: the input items, the tools, the request as sent, and the changes. */
export interface MappedResponsesRequest {
  input: ResponseInputItem[];
  /** The function tools; absent when none are offered. */
  tools: FunctionTool[] | undefined;
  /** The request as sent: image names cleared. */
  sent: ChatRequest;
  changes: string[];
}

/**
 * Map a request for a call to `model`. An assistant message whose output this adapter recorded goes back as
 * that output's items: its reasoning items (with their encrypted content) when they were made by `model`,
 * then its message and function calls, with their ids only beside those reasoning items (the API refuses an
 * item id whose reasoning item is missing). A reasoning item carries its summary only when the context
 * sends the message's reasoning back (the context policy's Reasoning).
 */
export function mapResponsesRequest(request: ChatRequest, model: string): MappedResponsesRequest {
  const changes: string[] = [];
  const named = (message: Message) =>
    message.role === "user" &&
    Array.isArray(message.content) &&
    message.content.some((part) => part.kind === "image" && part.name !== null);
  if (request.messages.some(named)) changes.push("image names dropped: the Responses API sends no name with an image");
  const foreign = request.messages.some((message) => {
    const kept = message.role === "assistant" ? keptItems(message) : null;
    return kept !== null && kept.model !== model && kept.items.some((item) => item.type === "reasoning");
  });
  if (foreign) changes.push(`reasoning items of another model dropped: only those of ${model} are sent back`);
  const sentMessages = request.messages.map((message) =>
    named(message) && message.role === "user" && Array.isArray(message.content)
      ? { ...message, content: message.content.map((part) => (part.kind === "image" ? { ...part, name: null } : part)) }
      : message,
  );
  return {
    input: request.messages.flatMap((message) => inputItems(message, model)),
    tools: request.tools.length === 0 ? undefined : request.tools.map(toTool),
    sent: new ChatRequest(sentMessages, request.tools),
    changes,
  };
}

function inputItems(message: Message, model: string): ResponseInputItem[] {
  switch (message.role) {
    case "system":
      return [{ role: "system", content: message.content }];
    case "user":
      return [
        { role: "user", content: typeof message.content === "string" ? message.content : message.content.map(toPart) },
      ];
    case "assistant":
      return assistantItems(message, model);
    case "tool":
      return [{ type: "function_call_output", call_id: message.toolCallId, output: message.content }];
  }
}

function toPart(part: ContentPart): ResponseInputContent {
  if (part.kind === "text") return { type: "input_text", text: part.text };
  const url = `data:${part.mime};base64,${Buffer.from(part.data).toString("base64")}`;
  return { type: "input_image", image_url: url, detail: "auto" };
}

// The kept items in their order; a call or the text that no kept item names follows them, without an id.
function assistantItems(message: AssistantMessage, model: string): ResponseInputItem[] {
  const kept = keptItems(message);
  const items = kept === null ? [] : kept.items;
  const withIds = kept !== null && kept.model === model && items.some((item) => item.type === "reasoning");
  const mapped: ResponseInputItem[] = [];
  let textSent = false;
  const callsSent = new Set<string>();
  for (const item of withIds ? items : []) {
    if (item.type === "reasoning") mapped.push(reasoningItem(item, message.reasoning !== null));
    else if (item.type === "message" && !textSent) {
      textSent = true;
      mapped.push({
        type: "message",
        role: "assistant",
        id: item.id,
        status: "completed",
        content: [{ type: "output_text", text: message.content, annotations: [] }],
        ...(item.phase === undefined ? {} : { phase: item.phase }),
      });
    } else if (item.type === "function_call") {
      const call = message.toolCalls.find((each) => each.id === item.callId);
      if (call === undefined || callsSent.has(call.id)) continue;
      callsSent.add(call.id);
      mapped.push({
        type: "function_call",
        id: item.id,
        call_id: call.id,
        name: call.name,
        arguments: argumentsText(call.arguments),
      });
    }
  }
  if (!textSent && (message.content !== "" || message.toolCalls.length === 0)) {
    mapped.push({ role: "assistant", content: message.content });
  }
  for (const call of message.toolCalls) {
    if (callsSent.has(call.id)) continue;
    mapped.push({ type: "function_call", call_id: call.id, name: call.name, arguments: argumentsText(call.arguments) });
  }
  return mapped;
}

function reasoningItem(item: Extract<KeptItem, { type: "reasoning" }>, withSummary: boolean): ResponseInputItem {
  return {
    type: "reasoning",
    id: item.id,
    summary: withSummary ? item.summary.map((text) => ({ type: "summary_text" as const, text })) : [],
    ...(item.encryptedContent === null ? {} : { encrypted_content: item.encryptedContent }),
  };
}

// `elements` and `results` are the runtime's own: the model never sees them. Not strict: a zod schema need not
// meet the strict mode's rules (every property required, no additional ones).
function toTool(tool: ToolDef): FunctionTool {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as Record<string, JsonValue>,
    strict: false,
  };
}

/** The body of a Responses call as UTF-8 JSON: the settings (the model first), the input, the tools, then `after`. */
export function responsesBody(
  mapped: MappedResponsesRequest,
  settings: Record<string, JsonValue>,
  after: Record<string, unknown> = {},
): Uint8Array {
  const tools = mapped.tools === undefined ? {} : { tools: mapped.tools };
  return Buffer.from(JSON.stringify({ ...settings, input: mapped.input, ...tools, ...after }));
}
