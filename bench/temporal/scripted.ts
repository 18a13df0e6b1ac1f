/**
 * The scripted model of the Temporal comparison: one OpenAI-compatible server over HTTP that answers every
 * system alike, from the request alone, so turns of all three systems can run at once. A turn's prompt says
 * how many passes it wants (`passes=N`); the model calls the only tool offered until the turn has N tool
 * results after its prompt, then answers. Its usage counts the prompt's tokens from the prompt's text.
 */
import { completion, CompatibleServer, type Reply } from "../../test/fixtures/openai-compatible-server.js";

/** The characters of each tool result: a report of about 20 KB. */
export const REPORT_CHARACTERS = 20_000;
/** The model's name at the scripted server. */
export const MODEL_NAME = "bench-model";
/** The one tool every system offers the model. */
export const TOOL = {
  name: "fetch_report",
  description: "Fetch a part of the day's report.",
} as const;

/** The prompt of a turn that wants `passes` tool calls, one per model call, before the answer. */
export function prompt(turn: number, passes: number): string {
  return `Turn ${turn}: read ${passes} parts of the report, one at a time (passes=${passes}).`;
}

/** The report's part `part`: REPORT_CHARACTERS characters. */
export function report(part: number): string {
  return `Report part ${part}: ${"x".repeat(REPORT_CHARACTERS)}`.slice(0, REPORT_CHARACTERS);
}

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { function?: { name?: string; arguments?: string } }[];
}

/** Characters per token of the usage the model reports: about what a tokenizer gives for English. */
const CHARACTERS_PER_TOKEN = 4;

/** The text of a message's content: a string, or the text parts of a list. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : "")).join("");
}

let calls = 0;

/**
 * The usage of a reply: the prompt's tokens estimated from its text, as a real model's would follow it, so
 * a context builder that measures its context by the last call's usage sees the size it sent.
 */
function usageOf(messages: readonly ChatMessage[]): Record<string, number> {
  const characters = messages.reduce(
    (sum, message) =>
      sum +
      textOf(message.content).length +
      (message.tool_calls ?? []).reduce(
        (calls, call) => calls + (call.function?.name?.length ?? 0) + (call.function?.arguments?.length ?? 0),
        0,
      ),
    0,
  );
  const prompt = Math.ceil(characters / CHARACTERS_PER_TOKEN);
  return { prompt_tokens: prompt, completion_tokens: 7, total_tokens: prompt + 7 };
}

/** The model's reply to a chat-completions request body. */
export function respond(body: unknown): Reply {
  const { messages = [], tools = [] } = (body ?? {}) as {
    messages?: ChatMessage[];
    tools?: { function: { name: string } }[];
  };
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  const wanted = Number(/passes=(\d+)/.exec(textOf(messages[lastUser]?.content))?.[1] ?? 0);
  const done = messages.slice(lastUser + 1).filter((message) => message.role === "tool").length;
  const tool = tools[0]?.function.name;
  const usage = usageOf(messages);
  if (done >= wanted || tool === undefined) return { json: completion({ content: `Read ${done} parts.` }, { usage }) };
  const call = { id: `call_${++calls}`, type: "function", function: { name: tool, arguments: `{"part":${done + 1}}` } };
  return { json: completion({ tool_calls: [call] }, { finishReason: "tool_calls", usage }) };
}

/** Start the scripted server on a free port; it keeps no request. */
export function startScriptedServer(): Promise<CompatibleServer> {
  return CompatibleServer.start({ respond, keepRequests: false });
}
