/** The messages of a ChatRequest, their parts, and the tools a request offers. Plain data. */
import type { ToolCall } from "../domain/events.js";
import type { JsonValue } from "../domain/json.js";

/** A system message: the instructions to the model. */
export interface SystemMessage {
  role: "system";
  content: string;
}
/** A message from the user to the model: text, or text and image parts in their order. */
export interface UserMessage {
  role: "user";
  content: string | ContentPart[];
}
/** An earlier output of the model, sent back to it. */
export interface AssistantMessage {
  role: "assistant";
  content: string;
  toolCalls: ToolCall[];
  /** The reasoning, when the context sends it back, else null. An adapter whose API has no field for it drops it. */
  reasoning: string | null;
  /** The recorded output's providerData (ModelOutput.providerData): what its adapter reads back. Absent when none. */
  providerData?: Record<string, JsonValue>;
}
/** The result of one tool call, sent back to the model. */
export interface ToolResult {
  role: "tool";
  toolCallId: string;
  content: string;
}
/** One message of a ChatRequest. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResult;

/** A text in the parts of a user message. */
export interface TextPart {
  kind: "text";
  text: string;
}
/** A picture in the parts of a user message. `name` is for notes; the built-in adapters do not send it. */
export interface ImagePart {
  kind: "image";
  data: Uint8Array;
  mime: string;
  name: string | null;
}
/** One part of a user message. */
export type ContentPart = TextPart | ImagePart;

/** A tool that the model can call. `elements` and `results` are never shown to the model. */
export interface ToolDef {
  name: string;
  description: string;
  /** The JSON schema of its arguments. */
  parameters: Record<string, JsonValue>;
  /** Each argument that holds element ids, with the element type names it accepts. */
  elements: Record<string, string[]>;
  /** The arguments that hold handles of results. */
  results: string[];
}

/** Make a system message. */
export const SystemMessage = (content: string): SystemMessage => ({ role: "system", content });
/** Make a user message. */
export const UserMessage = (content: string | ContentPart[]): UserMessage => ({ role: "user", content });
/** Make an assistant message. */
export const AssistantMessage = (
  content: string,
  options: { toolCalls?: ToolCall[]; reasoning?: string | null; providerData?: Record<string, JsonValue> } = {},
): AssistantMessage => ({
  role: "assistant",
  content,
  toolCalls: options.toolCalls ?? [],
  reasoning: options.reasoning ?? null,
  // Only when given: a message without it hashes as before the field existed.
  ...(options.providerData === undefined ? {} : { providerData: options.providerData }),
});
/** Make a tool result. */
export const ToolResult = (toolCallId: string, content: string): ToolResult => ({ role: "tool", toolCallId, content });
/** Make a text part. */
export const TextPart = (text: string): TextPart => ({ kind: "text", text });
/** Make an image part. */
export const ImagePart = (data: Uint8Array, options: { mime?: string; name?: string | null } = {}): ImagePart => ({
  kind: "image",
  data,
  mime: options.mime ?? "image/png",
  name: options.name ?? null,
});
/** Make a tool definition. */
export const ToolDef = (
  fields: Pick<ToolDef, "name" | "description" | "parameters"> & Partial<Pick<ToolDef, "elements" | "results">>,
): ToolDef => ({ elements: {}, results: [], ...fields });

const CLASS_NAMES = {
  system: "SystemMessage",
  user: "UserMessage",
  assistant: "AssistantMessage",
  tool: "ToolResult",
} as const;

/** The reference's class name of a message, such as "SystemMessage", for printing and for the request hash. */
export function messageClass(message: Message): (typeof CLASS_NAMES)[Message["role"]] {
  return CLASS_NAMES[message.role];
}
