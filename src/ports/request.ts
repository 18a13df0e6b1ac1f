/** ChatRequest: what one model call sends, with its size in characters and its hash. */
import { createHash } from "node:crypto";
import { canonicalJson } from "../domain/json.js";
import { messageClass, type ContentPart, type Message, type ToolDef } from "./messages.js";

/** The characters an image counts as: about the 1,500 tokens a vision model spends on a page-sized image. */
export const IMAGE_CHARACTERS = 6_000;

/** What one model call sends: the messages, and the tools the model can call. */
export class ChatRequest {
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDef[];
  private memo: { characters?: number; hash?: string } = {};

  constructor(messages: readonly Message[], tools: readonly ToolDef[] = []) {
    this.messages = messages;
    this.tools = tools;
  }

  /**
   * The characters this request sends: every message's text, each tool call's name and arguments as
   * JSON, and each offered tool's name, description and schema as JSON. An image counts 6,000.
   */
  get characters(): number {
    return (this.memo.characters ??=
      this.messages.reduce((sum, message) => sum + messageCharacters(message), 0) +
      this.tools.reduce(
        (sum, tool) => sum + tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length,
        0,
      ));
  }

  /** The SHA-256 of this request as canonical JSON (sorted keys, no whitespace, classes named, bytes as base64). */
  get hash(): string {
    return (this.memo.hash ??= createHash("sha256").update(canonicalJson(this.toCanonical())).digest("hex"));
  }

  /** This request as the plain JSON value that the hash is taken over. */
  toCanonical(): unknown {
    return {
      messages: this.messages.map((message) => ({ class: messageClass(message), ...canonicalMessage(message) })),
      tools: this.tools.map((tool) => ({ class: "ToolDef", ...tool })),
    };
  }
}

function canonicalMessage(message: Message): Record<string, unknown> {
  if (message.role !== "user" || typeof message.content === "string") {
    const { role: _role, ...fields } = message;
    return fields;
  }
  return { content: message.content.map(canonicalPart) };
}

function canonicalPart(part: ContentPart): Record<string, unknown> {
  if (part.kind === "text") return { class: "TextPart", text: part.text };
  return { class: "ImagePart", data: Buffer.from(part.data).toString("base64"), mime: part.mime, name: part.name };
}

function messageCharacters(message: Message): number {
  switch (message.role) {
    case "user":
      return typeof message.content === "string"
        ? message.content.length
        : message.content.reduce((sum, part) => sum + (part.kind === "text" ? part.text.length : IMAGE_CHARACTERS), 0);
    case "assistant":
      return (
        message.content.length +
        (message.reasoning?.length ?? 0) +
        message.toolCalls.reduce((sum, call) => sum + call.name.length + JSON.stringify(call.arguments).length, 0)
      );
    default:
      return message.content.length;
  }
}
