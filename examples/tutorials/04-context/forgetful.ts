/**
 * Tutorial 4: a forgetful agent. `select` of MessageBuilder chooses the events the model sees: here only
 * the running turn, so the model forgets each earlier turn. Run: npx tsx examples/tutorials/04-context/forgetful.ts
 */
import { pathToFileURL } from "node:url";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Event, Input, ModelOutput, turnStarts, type Trace } from "../../../src/domain/index.js";
import type { ChatModel } from "../../../src/ports/index.js";
import { AgentCatalog } from "../../../src/runtime/index.js";
import { BRACKETS, MessageBuilder, ReActAgent, ReActConfig } from "../../../src/toolkit/index.js";
import { LIBRARY } from "../01-first-agent/library.js";
import { Document, Passage, readDocument, search } from "../02-citations/tools.js";
import { chooseModel } from "../model.js";
import { PROMPT } from "./agent.js";

/** The events of the running turn: the model forgets each earlier turn. */
export function lastTurn(trace: Trace): Event[] {
  const events = trace.byType(Event);
  return events.slice(turnStarts(events).at(-1) ?? 0);
}

/** The assistant of tutorial 2, with a MessageBuilder that selects only the running turn. */
export function forgetful(model: ChatModel): ReActAgent {
  const config = new ReActConfig({
    model,
    prompt: PROMPT,
    tools: [search.bind({ library: LIBRARY }), readDocument.bind({ library: LIBRARY })],
    citations: BRACKETS,
    context: new MessageBuilder({ select: lastTurn }),
  });
  return new ReActAgent(config, { elementTypes: [Document, Passage] });
}

/** Ask a question and a follow-up in one thread; print both answers and the inputs the trace holds. */
export async function main(model: ChatModel): Promise<string[]> {
  const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: forgetful(model) }, { version: "tutorial-4" });
  const modelName = model.resolve(null);
  const [thread] = await agents.open(
    "assistant",
    Input({ payload: "When is residual waste collected?", model: modelName }),
  );
  const lines = [`Answer: ${(await thread.resume()).byType(ModelOutput).at(-1)!.content}`];
  const followUp = Input({ payload: "And paper?", model: modelName });
  const trace = await (await agents.thread(thread.id, { input: followUp })).send(followUp);
  lines.push(`Answer: ${trace.byType(ModelOutput).at(-1)!.content}`);
  lines.push(`In the trace: ${JSON.stringify(trace.byType(Input).map((input) => input.payload))}`);
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  for (const line of await main(chooseModel())) console.log(line);
