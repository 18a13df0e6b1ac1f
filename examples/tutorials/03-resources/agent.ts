/**
 * Tutorial 3: one library per user. The catalog asks the application for each thread's resources, and
 * the agent's config function binds the tools to the user's library for each turn. Run: npm run tutorial:03
 */
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Input, ModelOutput } from "../../../src/domain/index.js";
import type { ChatModel } from "../../../src/ports/index.js";
import { AgentCatalog } from "../../../src/runtime/index.js";
import { BRACKETS, ReActAgent, ReActConfig } from "../../../src/toolkit/index.js";
import { LIBRARY, Library } from "../01-first-agent/library.js";
import { PROMPT } from "../02-citations/agent.js";
import { Document, Passage, readDocument, search } from "../02-citations/tools.js";
import { chooseModel } from "../model.js";

/** What the application gives the agent for one thread: the documents its user may read. */
export interface Resources {
  library: Library;
}

/** The libraries of the users: Alice works at the town hall and reads everything; Bob reads only the dog tax. */
export const LIBRARIES: Record<string, Library> = {
  alice: LIBRARY,
  bob: new Library([
    { id: "dog-tax", title: "Dog tax", sections: LIBRARY.document("dog-tax").map((section) => section.text) },
  ]),
};

/** The assistant: its config function binds the tools to the thread's library on each turn. */
export function assistant(model: ChatModel): ReActAgent<Resources> {
  return new ReActAgent<Resources>(
    (resources) =>
      new ReActConfig({
        model,
        prompt: PROMPT,
        tools: [search.bind({ library: resources.library }), readDocument.bind({ library: resources.library })],
        citations: BRACKETS,
      }),
    { elementTypes: [Document, Passage] },
  );
}

/** The application: it records who owns each thread, and gives the catalog each thread's resources. */
export class TownApp {
  private readonly owners = new Map<string, string>();
  readonly agents: AgentCatalog;

  constructor(model: ChatModel) {
    this.agents = new AgentCatalog(
      new InMemoryTraceStore(),
      { assistant: assistant(model) },
      {
        version: "tutorial-3",
        resources: ({ threadId }): Resources => ({
          library: LIBRARIES[this.owners.get(threadId) ?? ""] ?? new Library([]),
        }),
      },
    );
  }

  /** Ask a question in a new thread of a user, and return the answer. */
  async ask(user: string, question: string, model: string): Promise<string> {
    const threadId = randomUUID();
    this.owners.set(threadId, user);
    const [thread] = await this.agents.open("assistant", Input({ payload: question, model }), { threadId });
    return (await thread.resume()).byType(ModelOutput).at(-1)!.content;
  }
}

/** Alice and Bob ask the same question; each gets an answer from their own library. */
export async function main(model: ChatModel): Promise<void> {
  const app = new TownApp(model);
  for (const user of ["alice", "bob"]) {
    console.log(`${user}:`, await app.ask(user, "How often can I have bulky waste picked up?", model.resolve(null)));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main(chooseModel());
