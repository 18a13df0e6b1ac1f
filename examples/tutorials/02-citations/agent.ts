/** Tutorial 2: an assistant that cites the passage behind each fact. Run: npm run tutorial:02 */
import { pathToFileURL } from "node:url";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Input, ModelOutput, inserted, type Trace } from "../../../src/domain/index.js";
import type { ChatModel } from "../../../src/ports/index.js";
import { AgentCatalog } from "../../../src/runtime/index.js";
import { BRACKETS, ReActAgent, ReActConfig } from "../../../src/toolkit/index.js";
import { LIBRARY } from "../01-first-agent/library.js";
import { chooseModel } from "../model.js";
import { Document, Passage, readDocument, search } from "./tools.js";

/** The system prompt: it tells the model how to cite. */
export const PROMPT = `You are the assistant of the town of Springfield.
Answer questions from the town documents. If the documents do not answer the question, say so. Never guess.
After each fact, cite the passage that gives it with its number, like [1].`;

/** The questions of the tutorial, one per turn. */
export const QUESTIONS = [
  "How often can I have bulky waste picked up, and what does it cost?",
  "And how much is a parking permit?",
];

/** The town assistant on a model: the search tools bound to the library, citing with BRACKETS. */
export function assistant(model: ChatModel): ReActAgent {
  const config = new ReActConfig({
    model,
    prompt: PROMPT,
    tools: [search.bind({ library: LIBRARY }), readDocument.bind({ library: LIBRARY })],
    citations: BRACKETS,
  });
  return new ReActAgent(config, { elementTypes: [Document, Passage] });
}

/** The last answer of a trace with its markers put back, and the passage each cited number names. */
export function show(trace: Trace): string[] {
  const answer = trace.byType(ModelOutput).at(-1)!;
  const lines = [
    `Answer: ${inserted(
      answer.content,
      answer.markers.map((marker) => [marker.at, marker.text] as const),
    )}`,
  ];
  const cited = new Map(
    answer.markers.flatMap((marker) => marker.cited.map((number) => [number.written, number.source] as const)),
  );
  for (const [written, source] of cited)
    lines.push(`  [${written}] ${source === null ? "names no passage" : LIBRARY.section(source).text}`);
  return lines;
}

/** Ask the two questions in one thread and print each answer with its citations. */
export async function main(model: ChatModel): Promise<void> {
  const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: assistant(model) }, { version: "tutorial-2" });
  const modelName = model.resolve(null);
  const [thread] = await agents.open("assistant", Input({ payload: QUESTIONS[0]!, model: modelName }));
  for (const line of show(await thread.resume())) console.log(line);
  const followUp = Input({ payload: QUESTIONS[1]!, model: modelName });
  const again = await agents.thread(thread.id, { input: followUp });
  for (const line of show(await again.send(followUp))) console.log(line);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main(chooseModel());
