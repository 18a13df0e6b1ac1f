/**
 * DemoModel: an offline stand-in for a language model, so the examples and the demo run end to end
 * with no key and no service. It is no LLM: it searches with the question's words, then quotes the
 * source whose words best match the question, and says so in every answer.
 */
import { ModelOutput } from "../domain/events.js";
import type { JsonValue } from "../domain/json.js";
import type { CallOptions, ChatModel, Fragment } from "../ports/model.js";
import type { Message, ToolDef } from "../ports/messages.js";
import type { ChatRequest } from "../ports/request.js";
import { streamOutput } from "./output-fragments.js";

/** The name the demo model gives itself wherever a model name is shown. */
export const DEMO_MODEL = "offline-demo";

/** A source as the xml layout shows it: its cite marker and its text. */
export interface QuotedSource {
  cite: string;
  text: string;
}

// Words that say nothing about the topic of a question.
const STOP_WORDS = new Set(
  (
    "a an the and or but if of to in on at by for with from about as into is are was were be been am " +
    "do does did can could may might must shall should will would have has had i me my we our you your it its they them their " +
    "this that these those what which who whom whose when where why how much many often any some there here not no yes please"
  ).split(" "),
);

/**
 * The offline demo model. When the latest message is the user's and a tool is offered, it calls a tool
 * with the question's words as the tool's first string argument: the tool the question names (every word
 * of its name, as "book" and "pickup" name book_pickup), else the first. After a named tool's result it
 * passes that result on; otherwise it answers by quoting the source (an element with a `cite` attribute
 * in a tool result) that shares the most words with the question, followed by that source's cite marker.
 */
export class DemoModel implements ChatModel {
  /** Always "offline-demo": the demo model answers every call itself, whatever model the call names. */
  readonly model = DEMO_MODEL;

  /** "offline-demo", whatever model the call names. */
  resolve(_model?: string | null): string {
    return DEMO_MODEL;
  }

  /** Search, or quote the best-matching source. */
  complete(request: ChatRequest, _options: CallOptions = {}): Promise<ModelOutput> {
    const facts = { model: DEMO_MODEL, promptCharacters: request.characters, requestHash: request.hash };
    const asked = latestQuestion(request.messages);
    const tool = (asked && namedTool(asked.text, request.tools)) ?? request.tools[0];
    if (asked !== null && !asked.answered && tool !== undefined) {
      const call = {
        id: `call_${request.hash.slice(0, 16)}`,
        name: tool.name,
        arguments: searchArguments(tool, asked.text),
      };
      return Promise.resolve(
        ModelOutput({
          ...facts,
          content: "The offline demo model searches with the words of your question.",
          toolCalls: [call],
          finishReason: "tool_calls",
        }),
      );
    }
    const content = relayed(asked?.text ?? "", request) ?? answer(asked?.text ?? "", request.messages);
    return Promise.resolve(ModelOutput({ ...facts, content, finishReason: "stop" }));
  }

  /** The output of `complete` in a few fragments, then the output. */
  async *streamComplete(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<Fragment | ModelOutput> {
    yield* streamOutput(await this.complete(request, options));
  }
}

/** The sources in a tool result's text: each element with a cite attribute, its text unescaped. */
export function sourcesIn(text: string): QuotedSource[] {
  const sources: QuotedSource[] = [];
  // A tag without a cite attribute (a Reference, a whole) does not match, so the parts inside it still do.
  const pattern = /<([\p{L}_][\p{L}\p{N}_.-]*)\s[^>]*?\bcite="([^"]*)"[^>]*>([\s\S]*?)<\/\1>/gu;
  for (const match of text.matchAll(pattern)) {
    const inner = (match[3] ?? "").split("<")[0] ?? "";
    sources.push({ cite: unescape(match[2] ?? ""), text: unescape(inner).trim() });
  }
  return sources;
}

/** The source that shares the most topic words with the question; the first read wins a tie. Null if none shares one. */
export function bestSource(question: string, sources: readonly QuotedSource[]): QuotedSource | null {
  const asked = new Set(
    words(question)
      .filter((word) => !STOP_WORDS.has(word))
      .map(stem),
  );
  let best: QuotedSource | null = null;
  let bestScore = 0;
  for (const source of sources) {
    const read = new Set(words(source.text).map(stem));
    const score = [...asked].filter((word) => read.has(word)).length;
    if (score > bestScore) [best, bestScore] = [source, score];
  }
  return best;
}

function answer(question: string, messages: readonly Message[]): string {
  const sources = messages.flatMap((message) => (message.role === "tool" ? sourcesIn(message.content) : []));
  const best = bestSource(question, sources);
  if (best === null) {
    return (
      "The offline demo model found no passage that shares a word with your question, so it cannot quote one. " +
      "It is no language model: it only quotes what a tool returned."
    );
  }
  return `The offline demo model (no language model) quotes the passage that shares the most words with your question: "${best.text}" ${best.cite}`;
}

/** The offered tool that the question names with every word of its name (of two words or more), or null. */
function namedTool(question: string, tools: readonly ToolDef[]): ToolDef | null {
  const asked = new Set(words(question).map(stem));
  return (
    tools.find((tool) => {
      const named = tool.name.toLowerCase().split(/[_-]+/).filter(Boolean).map(stem);
      return named.length > 1 && named.every((word) => asked.has(word));
    }) ?? null
  );
}

/** After a call of the tool the question names: what the tool returned, passed on as the answer. */
function relayed(question: string, request: ChatRequest): string | null {
  const tool = namedTool(question, request.tools);
  if (tool === null) return null;
  const messages = request.messages.slice(request.messages.findLastIndex((message) => message.role === "user") + 1);
  const calls = new Set(
    messages
      .flatMap((message) =>
        message.role === "assistant" ? message.toolCalls.filter((call) => call.name === tool.name) : [],
      )
      .map((call) => call.id),
  );
  const result = messages.findLast((message) => message.role === "tool" && calls.has(message.toolCallId));
  if (result?.role !== "tool") return null;
  return `The offline demo model (no language model) passes on what ${tool.name} returned: ${result.content}`;
}

/** The text of the latest user message, and whether a tool result came after it. */
function latestQuestion(messages: readonly Message[]): { text: string; answered: boolean } | null {
  const index = messages.findLastIndex((message) => message.role === "user");
  const message = messages[index];
  if (message?.role !== "user") return null;
  const text =
    typeof message.content === "string"
      ? message.content
      : message.content.flatMap((part) => (part.kind === "text" ? [part.text] : [])).join(" ");
  return { text, answered: messages.slice(index + 1).some((later) => later.role === "tool") };
}

/** The question's words as the first string argument of the tool's schema; no string argument gives {}. */
function searchArguments(tool: ToolDef, question: string): Record<string, JsonValue> {
  const properties = tool.parameters.properties;
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return {};
  const name = Object.keys(properties).find((key) => {
    const schema = properties[key];
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return false;
    return schema.type === "string" || (Array.isArray(schema.type) && schema.type.includes("string"));
  });
  const text = words(question, false).join(" ");
  return name === undefined ? {} : { [name]: text === "" ? question.trim() : text };
}

function words(text: string, lower = true): string[] {
  return (lower ? text.toLowerCase() : text).match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

// "costs" matches "cost", "pickups" matches "pickup": enough for quoting by overlap.
function stem(word: string): string {
  return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
}

function unescape(text: string): string {
  return text.replace(
    /&(lt|gt|quot|#39|apos|amp);/g,
    (_entity, name: string) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", apos: "'", amp: "&" })[name] ?? "",
  );
}
