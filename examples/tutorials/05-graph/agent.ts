/**
 * Tutorial 5: a graph of your own. A triage call reads only the question and names its topic; a question
 * about another topic gets a fixed reply without a model; the others get a cited answer from one search.
 * Run: npm run tutorial:05
 */
import { pathToFileURL } from "node:url";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Input, ModelOutput, type Event } from "../../../src/domain/index.js";
import type { ChatModel } from "../../../src/ports/index.js";
import { AgentCatalog, END, Graph, LlmStep, ToolStep, type Agent } from "../../../src/runtime/index.js";
import { BRACKETS, MessageBuilder, Text, only, renderedBy, type TextTurn } from "../../../src/toolkit/index.js";
import { LIBRARY } from "../01-first-agent/library.js";
import { Document, Passage, search } from "../02-citations/tools.js";
import { chooseModel } from "../model.js";
import { Reply } from "./reply.js";

/** What the triage call is told. */
export const TRIAGE = "Name the topic of the question in one word: waste, parking or other.";
/** What the answer call is told. */
export const ANSWER = (citation: string | null) =>
  `You are the assistant of the town of Springfield. Search once, then answer from the passages, citing each fact like ${citation}.`;
/** The fixed reply to a question on another topic. */
export const DECLINE = "I can answer questions about waste collection and parking only.";

/** The topic the triage call named: its last output's first word, lower-cased. */
export function topic(events: readonly Event[]): string {
  const output = events.findLast((event): event is ModelOutput => ModelOutput.is(event) && event.origin === "triage");
  return output?.content.trim().split(/\W+/)[0]?.toLowerCase() ?? "other";
}

/** The triage desk: an agent whose graph is triage, then a fixed reply or a search and a cited answer. */
export function triageDesk(model: ChatModel): Agent<unknown, TextTurn> {
  return {
    input: Text,
    elementTypes: [Document, Passage],
    eventTypes: [],
    build(_resources, _turn, modelName) {
      const tools = [search.bind({ library: LIBRARY })];
      const parts = { renderInput: renderedBy(Text), model: model.resolve(modelName), citations: BRACKETS };
      const triage = new MessageBuilder({ ...parts, prompt: () => TRIAGE, select: only(Input) });
      const answer = new MessageBuilder({
        ...parts,
        prompt: ANSWER,
        tools: tools.map((tool) => tool.def()),
        select: (trace) => trace.events.filter((event) => event.origin !== "triage"),
      });
      return new Graph()
        .addNode("triage", new LlmStep({ builder: triage, model, modelName }))
        .addNode("decline", new Reply(DECLINE))
        .addNode("answer", new LlmStep({ builder: answer, model, modelName }))
        .addNode("search", new ToolStep({ tools }))
        .addEdge("triage", (trace) => (topic(trace.events) === "other" ? "decline" : "answer"))
        .addEdge("answer", (trace) => ((trace.byType(ModelOutput).at(-1)?.toolCalls.length ?? 0) > 0 ? "search" : END))
        .addEdge("search", "answer");
    },
  };
}

/** Ask one question in a new thread and return the final output's text. */
export async function ask(model: ChatModel, question: string): Promise<string> {
  const agents = new AgentCatalog(new InMemoryTraceStore(), { desk: triageDesk(model) }, { version: "tutorial-5" });
  const [thread] = await agents.open("desk", Input({ payload: question, model: model.resolve(null) }));
  return (await thread.resume()).byType(ModelOutput).at(-1)!.content;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const model = chooseModel();
  for (const question of ["When is residual waste collected?", "Where can I learn to swim?"]) {
    console.log(`${question}\n  ${await ask(model, question)}`);
  }
}
