/** ChatRequest to the messages and tools of a chat-completions call, with what the mapping changed. */
import type {
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { madeFrom } from "../../domain/lists.js";
import { ChatRequest } from "../../ports/request.js";
import { argumentsText } from "../../ports/tool-arguments.js";
import type { AssistantMessage, ContentPart, Message, ToolDef, UserMessage } from "../../ports/messages.js";

/** The field an assistant message's reasoning is sent in, or null to drop it (the official API has none). */
export type ReasoningField = "reasoning_content" | "reasoning" | null;

/** A request mapped to the client's shape: what is sent, the request after the changes, and the changes. */
export interface MappedRequest {
  messages: ChatCompletionMessageParam[];
  /** The function tools; absent when none are offered (an empty list is refused by some servers). */
  tools: ChatCompletionFunctionTool[] | undefined;
  /** The request as sent: reasoning and image names cleared where they were dropped. */
  sent: ChatRequest;
  changes: string[];
}

/** Map a request to chat-completions messages and function tools. */
export function mapRequest(request: ChatRequest, reasoningField: ReasoningField): MappedRequest {
  const changes: string[] = [];
  const sentMessages = request.messages.map((message) => withoutDropped(message, reasoningField));
  if (
    reasoningField === null &&
    request.messages.some((message) => message.role === "assistant" && message.reasoning !== null)
  ) {
    changes.push("reasoning dropped: chat completions has no field for it");
  }
  if (
    request.messages.some(
      (message) =>
        message.role === "user" &&
        Array.isArray(message.content) &&
        message.content.some((part) => part.kind === "image" && part.name !== null),
    )
  ) {
    changes.push("image names dropped: chat completions sends no name with an image");
  }
  return {
    messages: mapMessages(request, reasoningField),
    tools: mapTools(request),
    sent: new ChatRequest(sentMessages, request.tools),
    changes,
  };
}

/** The chat-completions messages of a request, as mapRequest maps them. */
export function mapMessages(request: ChatRequest, reasoningField: ReasoningField): ChatCompletionMessageParam[] {
  const mapped = mappedFor(reasoningField);
  return request.messages.map((message) => mappedMessage(message, reasoningField, mapped).param);
}

/** The function tools of a request, as mapRequest maps them: undefined when none are offered. */
export function mapTools(request: ChatRequest): ChatCompletionFunctionTool[] | undefined {
  return request.tools.length === 0 ? undefined : request.tools.map(toTool);
}

/**
 * A chat-completions body as UTF-8 JSON: the fields of `before` (the settings and the model), the request's messages
 * and tools (none when it offers none), then the fields of `after`. It is what JSON.stringify writes of one object
 * with those keys in that order, but each message's JSON is written once, and a list the context builder made by
 * appending to one sent lately takes that one's bytes and adds only the messages that follow: a long thread's call
 * sends thousands of messages, nearly all of them sent by the call before.
 */
export function requestBody(
  request: ChatRequest,
  reasoningField: ReasoningField,
  before: Record<string, unknown>,
  after: Record<string, unknown> = {},
): Uint8Array {
  const { messages } = request;
  let lately = sentLately.get(reasoningField);
  if (lately === undefined) sentLately.set(reasoningField, (lately = []));
  const base = lately.findLast((sent) => sent.messages.length > 0 && madeFrom(sent.messages, messages));
  const mapped = mappedFor(reasoningField);
  const texts: string[] = [];
  for (let index = base?.messages.length ?? 0; index < messages.length; index += 1) {
    const made = mappedMessage(messages[index]!, reasoningField, mapped);
    texts.push((made.text ??= JSON.stringify(made.param)));
  }
  const added = Buffer.from((base === undefined || texts.length === 0 ? "" : ",") + texts.join(","));
  // The fields before the messages without the closing brace, and those after them without the opening one.
  const fields = JSON.stringify(before).slice(0, -1);
  const head = Buffer.from(`${fields === "{" ? fields : `${fields},`}"messages":[`);
  const tools = mapTools(request);
  const trailing = JSON.stringify({ ...(tools === undefined ? {} : { tools }), ...after }).slice(1);
  const tail = Buffer.from(trailing === "}" ? "]}" : `],${trailing}`);
  const body = Buffer.concat([head, base?.bytes ?? EMPTY, added, tail]);
  // A list that goes on from a kept one takes its place: its bytes hold the kept one's.
  if (base !== undefined) lately.splice(lately.indexOf(base), 1);
  const length = (base?.bytes.length ?? 0) + added.length;
  lately.push({ messages, bytes: body.subarray(head.length, head.length + length) });
  if (lately.length > KEPT_SENT) lately.shift();
  return body;
}

/** The JSON of messages joined by commas, as UTF-8, of a body sent lately: the next call of a thread goes on from it. */
interface Sent {
  messages: readonly Message[];
  bytes: Uint8Array;
}

/** How many sent message lists are kept for each reasoning field: a worker runs the turns of several threads at once. */
const KEPT_SENT = 8;
const sentLately = new Map<ReasoningField, Sent[]>();
const EMPTY = new Uint8Array(0);

/** A message mapped for one reasoning field, and its JSON once a body was written with it. */
interface Mapped {
  param: ChatCompletionMessageParam;
  text: string | undefined;
}

// Each message mapped once, for each reasoning field: a thread's next call sends the same message objects again
// (messages are plain data that no one changes once a request holds them), and mapping one makes the JSON of each
// tool call's arguments and the base64 of each image.
const mappedMessages = new Map<ReasoningField, WeakMap<Message, Mapped>>();

function mappedFor(reasoningField: ReasoningField): WeakMap<Message, Mapped> {
  let byMessage = mappedMessages.get(reasoningField);
  if (byMessage === undefined) mappedMessages.set(reasoningField, (byMessage = new WeakMap()));
  return byMessage;
}

function mappedMessage(message: Message, reasoningField: ReasoningField, byMessage: WeakMap<Message, Mapped>): Mapped {
  let made = byMessage.get(message);
  if (made === undefined) {
    made = { param: toMessage(withoutDropped(message, reasoningField), reasoningField), text: undefined };
    byMessage.set(message, made);
  }
  return made;
}

function withoutDropped(message: Message, reasoningField: ReasoningField): Message {
  if (message.role === "assistant" && reasoningField === null && message.reasoning !== null) {
    return { ...message, reasoning: null };
  }
  if (message.role === "user" && Array.isArray(message.content)) {
    return {
      ...message,
      content: message.content.map((part) => (part.kind === "image" ? { ...part, name: null } : part)),
    };
  }
  return message;
}

function toMessage(message: Message, reasoningField: ReasoningField): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return toUserMessage(message);
    case "assistant":
      return toAssistantMessage(message, reasoningField);
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

function toUserMessage(message: UserMessage): ChatCompletionMessageParam {
  if (typeof message.content === "string") return { role: "user", content: message.content };
  return { role: "user", content: message.content.map(toPart) };
}

function toPart(part: ContentPart): ChatCompletionContentPart {
  if (part.kind === "text") return { type: "text", text: part.text };
  return {
    type: "image_url",
    image_url: { url: `data:${part.mime};base64,${Buffer.from(part.data).toString("base64")}` },
  };
}

function toAssistantMessage(message: AssistantMessage, reasoningField: ReasoningField): ChatCompletionMessageParam {
  const hasCalls = message.toolCalls.length > 0;
  // The documented form of a message that only calls tools has content null.
  const mapped: ChatCompletionMessageParam & Record<string, unknown> = {
    role: "assistant",
    content: message.content === "" && hasCalls ? null : message.content,
  };
  if (hasCalls) {
    mapped.tool_calls = message.toolCalls.map((call) => ({
      id: call.id,
      type: "function" as const,
      function: { name: call.name, arguments: argumentsText(call.arguments) },
    }));
  }
  if (reasoningField !== null && message.reasoning !== null) mapped[reasoningField] = message.reasoning;
  return mapped;
}

// `elements` and `results` are the runtime's own: the model never sees them.
function toTool(tool: ToolDef): ChatCompletionFunctionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}
