/**
 * Tutorial 4: control what the model sees. Print exactly what one model call received (built again from
 * the trace with replay), and give the assistant a context policy that shrinks old results, keeps the
 * cited passages, and offers reopen. Run: npm run tutorial:04
 */
import { pathToFileURL } from "node:url";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Event, Input, ModelOutput, ToolOutput, type Trace } from "../../../src/domain/index.js";
import { messageClass, type ChatModel, type ChatRequest } from "../../../src/ports/index.js";
import { AgentCatalog, accepted, replay } from "../../../src/runtime/index.js";
import {
  BRACKETS,
  ContextPolicy,
  MessageBuilder,
  ReActAgent,
  ReActConfig,
  Text,
  Tokens,
} from "../../../src/toolkit/index.js";
import type { JsonValue } from "../../../src/domain/index.js";
import { LIBRARY } from "../01-first-agent/library.js";
import { Document, Passage, readDocument, search } from "../02-citations/tools.js";
import { chooseModel } from "../model.js";

/** The system prompt: it tells the model how to cite. */
export const PROMPT = `You are the assistant of the town of Springfield.
Answer questions from the town documents. If the documents do not answer the question, say so. Never guess.
After each fact, cite the passage that gives it with its number, like [1].`;

/** The questions of the tutorial, one per turn, in one thread. */
export const QUESTIONS = [
  "How often can I have bulky waste picked up?",
  "How much is a parking permit?",
  "And when is residual waste collected?",
];

/**
 * The assistant of tutorial 2 with a context policy. The small startAt and target make the policy act in a
 * conversation of three questions: do not use them for a real agent.
 */
export function assistant(model: ChatModel): ReActAgent {
  const config = new ReActConfig({
    model,
    prompt: PROMPT,
    tools: [search.bind({ library: LIBRARY }), readDocument.bind({ library: LIBRARY })],
    citations: BRACKETS,
    context: new MessageBuilder({
      policy: new ContextPolicy({ startAt: new Tokens(500), target: new Tokens(250), minGain: null }),
    }),
  });
  return new ReActAgent(config, { elementTypes: [Document, Passage] });
}

/** What each model call of the thread received, built again from the events of the thread. */
export async function requests(agent: ReActAgent, trace: Trace): Promise<ChatRequest[]> {
  const calls = await replay(trace.byType(Event), (input) =>
    agent.build(undefined, accepted(Text, input)[1], input.model),
  );
  return calls.flatMap((call) => (call.request === null ? [] : [call.request]));
}

/** The lines that print a request: its tools, then each message with its class; a tool call as its name and arguments. */
export function show(request: ChatRequest): string[] {
  const lines = [`Tools: ${request.tools.map((tool) => tool.name).join(", ")}`];
  for (const message of request.messages) {
    let text = typeof message.content === "string" ? message.content : "(images)";
    if (message.role === "assistant" && message.toolCalls.length > 0) {
      text = message.toolCalls.map((call) => `${call.name}(${dumps(call.arguments)})`).join(" ");
    }
    lines.push(`[${messageClass(message)}] ${text}`);
  }
  return lines;
}

/** JSON as the tutorial prints it: a space after each comma and colon. */
export function dumps(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(dumps).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${dumps(item as JsonValue)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** Ask the three questions in one thread, print the last answer and the request of the last model call. */
export async function main(model: ChatModel): Promise<string[]> {
  const agent = assistant(model);
  const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "tutorial-4" });
  const modelName = model.resolve(null);
  const [opened] = await agents.open("assistant", Input({ payload: QUESTIONS[0]!, model: modelName }));
  let trace = await opened.resume();
  for (const question of QUESTIONS.slice(1)) {
    const followUp = Input({ payload: question, model: modelName });
    const thread = await agents.thread(opened.id, { input: followUp });
    trace = await thread.send(followUp);
  }
  const lines = [`Answer: ${trace.byType(ModelOutput).at(-1)!.content}`];
  lines.push(...show((await requests(agent, trace)).at(-1)!));
  const found = trace.byType(ToolOutput)[0]!;
  lines.push(
    `In the trace: ${JSON.stringify(found.elements.filter((element) => Passage.is(element)).map((element) => element.text))}`,
  );
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  for (const line of await main(chooseModel())) console.log(line);
