/** Tutorial 1: a first agent that answers from the town documents. Run: npm run tutorial:01 */
import { pathToFileURL } from "node:url";
import { z } from "zod";
import {
  AgentCatalog,
  bound,
  InMemoryTraceStore,
  Input,
  ModelOutput,
  ReActAgent,
  ReActConfig,
  tool,
  ToolOutput,
  type ChatModel,
} from "../../../src/index.js";
import { chooseModel } from "../model.js";
import { LIBRARY, type Library } from "./library.js";

/** The system prompt. */
export const PROMPT = `You are the assistant of the town of Springfield.
Answer questions from the town documents. If the documents do not answer the question, say so. Never guess.`;

/** The question of the tutorial. */
export const QUESTION = "How often can I have bulky waste picked up?";

/** Search the town documents and return the passages as text. */
export const search = tool({
  name: "search",
  description:
    "Search the town documents. Returns the passages that share words with the query, with their document's title.",
  args: { query: z.string().min(1).describe("Words to look for in the town documents.") },
  bound: { library: bound<Library>() },
  async run({ query, library }) {
    const found = library.search(query);
    if (found.length === 0) return ToolOutput({ error: "Nothing found for these words. Try other words." });
    return ToolOutput({ text: found.map((section) => `${section.title}: ${section.text}`).join("\n") });
  },
});

/** The town assistant on a model. */
export function assistant(model: ChatModel): ReActAgent {
  return new ReActAgent(new ReActConfig({ model, prompt: PROMPT, tools: [search.bind({ library: LIBRARY })] }));
}

/** Open a thread with the question, run its turn, and return the answer. */
export async function main(model: ChatModel): Promise<string> {
  const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: assistant(model) }, { version: "tutorial-1" });
  const [thread] = await agents.open("assistant", Input({ payload: QUESTION, model: model.resolve(null) }));
  const trace = await thread.resume();
  const answer = trace.byType(ModelOutput).at(-1)!.content;
  console.log("Answer:", answer);
  return answer;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main(chooseModel());
