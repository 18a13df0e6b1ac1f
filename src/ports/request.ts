/** ChatRequest: what one model call sends, with its size in characters and its hash. */
import { createHash, type Hash } from "node:crypto";
import { canonicalJson } from "../domain/json.js";
import { sharedLength } from "../domain/lists.js";
import { messageClass, type ContentPart, type Message, type ToolDef } from "./messages.js";

/** The characters an image counts as: about the 1,500 tokens a vision model spends on a page-sized image. */
export const IMAGE_CHARACTERS = 6_000;

/** What one model call sends: the messages, and the tools the model can call. */
export class ChatRequest {
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDef[];
  private memo: { characters?: number; hash?: string } = {};

  /**
   * @param options.characters - The characters as this class counts them, where the caller has summed them already
   *   (the context builder does as it lays a context out): a request of thousands of messages is not counted again.
   */
  constructor(messages: readonly Message[], tools: readonly ToolDef[] = [], options: { characters?: number } = {}) {
    this.messages = messages;
    this.tools = tools;
    if (options.characters !== undefined) this.memo.characters = options.characters;
  }

  /**
   * The characters this request sends: every message's text, each tool call's name and arguments as
   * JSON, and each offered tool's name, description and schema as JSON. An image counts 6,000.
   */
  get characters(): number {
    return (this.memo.characters ??=
      messagesCharacters(this.messages) + this.tools.reduce((sum, tool) => sum + toolCharacters(tool), 0));
  }

  /**
   * The SHA-256 of this request as canonical JSON (sorted keys, no whitespace, classes named, bytes as base64).
   * Each message's JSON is made once, and the hash goes on from the state it had after the longest run of
   * equal first messages that a recent request hashed: the next call of a thread hashes what it added.
   */
  get hash(): string {
    return (this.memo.hash ??= requestHash(this.messages, this.tools));
  }

  /** This request as the plain JSON value that the hash is taken over. */
  toCanonical(): unknown {
    return {
      messages: this.messages.map((message) => ({ class: messageClass(message), ...canonicalMessage(message) })),
      tools: this.tools.map((tool) => ({ class: "ToolDef", ...tool })),
    };
  }
}

// Messages and tool definitions are plain data that no one changes once a request holds them: each one's
// canonical JSON and characters are made once, for the object.
const messageTexts = new WeakMap<Message, string>();
const toolTexts = new WeakMap<ToolDef, string>();
const messageSizes = new WeakMap<Message, number>();
const toolSizes = new WeakMap<ToolDef, number>();

function messageText(message: Message): string {
  let text = messageTexts.get(message);
  if (text === undefined) {
    text = plainText(message) ?? canonicalJson({ class: messageClass(message), ...canonicalMessage(message) });
    messageTexts.set(message, text);
  }
  return text;
}

/**
 * The canonical JSON of a message that has its type's fields alone, each of its usual kind, written out
 * with the keys in sorted order (class, content, reasoning, toolCallId, toolCalls); undefined for any other
 * message, which goes the general way. The same text, without sorting the keys of every message.
 */
function plainText(message: Message): string | undefined {
  const head = `{"class":"${messageClass(message)}","content":`;
  const fields = Object.keys(message).length;
  switch (message.role) {
    case "system":
    case "user":
      if (fields !== 2 || typeof message.content !== "string") return undefined;
      return `${head}${JSON.stringify(message.content)}}`;
    case "tool":
      if (fields !== 3 || typeof message.content !== "string" || typeof message.toolCallId !== "string")
        return undefined;
      return `${head}${JSON.stringify(message.content)},"toolCallId":${JSON.stringify(message.toolCallId)}}`;
    case "assistant": {
      const { content, reasoning, toolCalls } = message;
      if (fields !== 4 || typeof content !== "string" || !Array.isArray(toolCalls)) return undefined;
      if (reasoning !== null && typeof reasoning !== "string") return undefined;
      return `${head}${JSON.stringify(content)},"reasoning":${JSON.stringify(reasoning)},"toolCalls":${canonicalJson(toolCalls)}}`;
    }
    default:
      return undefined;
  }
}

function toolText(tool: ToolDef): string {
  let text = toolTexts.get(tool);
  if (text === undefined) toolTexts.set(tool, (text = canonicalJson({ class: "ToolDef", ...tool })));
  return text;
}

/** The opening of every request's canonical JSON: its keys sorted, "messages" comes before "tools". */
const OPENING = '{"messages":[';
/**
 * Hash states kept per hashed request: about one per this many characters of its messages. A request that changes
 * a message goes on from the last state before it, so this bounds what is hashed again before the change.
 */
const MARK_CHARACTERS = 16 * 1024;
/** How many recent requests a new one may go on from, for its hash and for its characters. */
const KEPT_REQUESTS = 16;
/** How many messages after those it shares a recent request may end and still end the search for one to go on from. */
const NEAR_END = 8;
/** Requests of fewer messages count their characters at once (the context builder counts each event's so). */
const COUNTED_APART = 64;

/** A recent request's messages: a new request goes on from the one it shares the most first messages with. */
interface Recent {
  readonly messages: readonly Message[];
}

/** A hashed request: the hash states after some of its messages (`at` messages hashed, after OPENING). */
interface Hashed extends Recent {
  readonly marks: { at: number; state: Hash }[];
}

/** A counted request: the characters of its first `index` messages at each index, from 0 to all of them. */
interface Counted extends Recent {
  readonly sums: number[];
}

/** The most recently hashed and counted requests, the latest last. */
const hashed: Hashed[] = [];
const counted: Counted[] = [];

/**
 * The recent request that shares the most first messages with `messages` (the same objects, or those that
 * `same` says are the same at an index), and how many it shares. One that ends at most a few messages
 * after what it shares ends the search: the next call of a thread goes on from the call before it, which
 * a shrink may have changed near its end; an older one could save hashing those few alone. An older one is
 * compared whole only if it has the message after those shared so far: otherwise it cannot share more.
 */
function sharedStart<T extends Recent>(
  kept: readonly T[],
  messages: readonly Message[],
  same: (candidate: T, index: number) => boolean,
): [T | undefined, number] {
  let base: T | undefined;
  let shared = 0;
  for (let index = kept.length - 1; index >= 0; index--) {
    const candidate = kept[index]!;
    const earlier = candidate.messages;
    const length = Math.min(messages.length, earlier.length);
    if (length <= shared || (earlier[shared] !== messages[shared] && !same(candidate, shared))) continue;
    // A list the builder made from a recent one is known to start with what it kept of it.
    let count = sharedLength(earlier, messages);
    while (count < length && (earlier[count] === messages[count] || same(candidate, count))) count++;
    if (count > shared) [base, shared] = [candidate, count];
    if (count > 0 && count + NEAR_END >= earlier.length) break;
  }
  return [base, shared];
}

/** Keep a request among the recent ones; one that it begins with whole is not kept twice. */
function keep<T extends Recent>(kept: T[], request: T, base: T | undefined, shared: number): void {
  if (base !== undefined && base.messages.length <= shared) kept.splice(kept.indexOf(base), 1);
  kept.push(request);
  if (kept.length > KEPT_REQUESTS) kept.shift();
}

/**
 * The SHA-256 of `{"messages":[...],"tools":[...]}` as canonical JSON, the same as hashing the whole text.
 * It goes on from the hash state of the recent request that shares the most first messages (the same
 * objects, or equal texts), so only the rest is hashed.
 */
function requestHash(messages: readonly Message[], tools: readonly ToolDef[]): string {
  // A message's text is made once per object (messageText): a recent request's are there to compare.
  const [base, shared] = sharedStart(
    hashed,
    messages,
    (candidate, index) => messageText(candidate.messages[index]!) === messageText(messages[index]!),
  );
  // A request that the new one begins with whole is dropped from the kept ones (keep): its marks are taken over.
  const whole = base !== undefined && base.messages.length === shared;
  const marks = whole ? base.marks : (base?.marks.filter((mark) => mark.at <= shared) ?? []);
  const from = marks.at(-1);
  const state = from ? from.state.copy() : createHash("sha256").update(OPENING);
  let unmarked = 0;
  for (let index = from?.at ?? 0; index < messages.length; index++) {
    const text = messageText(messages[index]!);
    if (index > 0) state.update(",");
    state.update(text);
    unmarked += text.length;
    if (unmarked >= MARK_CHARACTERS || index === messages.length - 1) {
      marks.push({ at: index + 1, state: state.copy() });
      unmarked = 0;
    }
  }
  keep(hashed, { messages, marks }, base, shared);
  return state.update(`],"tools":[${tools.map(toolText).join(",")}]}`).digest("hex");
}

/** The characters of the messages, going on from the recent request that shares the most first messages (of the same characters). */
function messagesCharacters(messages: readonly Message[]): number {
  if (messages.length < COUNTED_APART) return messages.reduce((sum, message) => sum + messageCharacters(message), 0);
  const [base, shared] = sharedStart(
    counted,
    messages,
    // The sums hold for a message of the same characters, the same object or not (a prompt made anew each build).
    (candidate, index) => candidate.sums[index + 1]! - candidate.sums[index]! === messageCharacters(messages[index]!),
  );
  // A request that the new one begins with whole is dropped from the kept ones (keep): its sums are taken over.
  const sums =
    base !== undefined && base.messages.length === shared ? base.sums : (base?.sums.slice(0, shared + 1) ?? [0]);
  for (let index = shared; index < messages.length; index++)
    sums.push(sums[index]! + messageCharacters(messages[index]!));
  keep(counted, { messages, sums }, base, shared);
  return sums[messages.length]!;
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

/** The characters of `messages` as a ChatRequest counts them, counted now and kept nowhere: for a few messages made once. */
export function charactersOf(messages: readonly Message[]): number {
  let characters = 0;
  for (const message of messages) characters += countCharacters(message);
  return characters;
}

function messageCharacters(message: Message): number {
  let size = messageSizes.get(message);
  if (size === undefined) messageSizes.set(message, (size = countCharacters(message)));
  return size;
}

function toolCharacters(tool: ToolDef): number {
  let size = toolSizes.get(tool);
  if (size === undefined)
    toolSizes.set(tool, (size = tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length));
  return size;
}

function countCharacters(message: Message): number {
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
