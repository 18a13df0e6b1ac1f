/**
 * The example catalog that `npm run worker`, `npm run app` and the demo serve: the town assistant of
 * tutorial 2, on the model chooseModel picks (SOEV_MODEL's model string, else OpenAI when OPENAI_API_KEY or
 * OPENAI_BASE_URL is set, else the offline demo model). An app passes its own catalog to runWorker instead.
 */
import type { ChatModel } from "../src/ports/model.js";
import type { TraceStore } from "../src/ports/store.js";
import { AgentCatalog } from "../src/runtime/catalog.js";
import { chooseModel } from "./tutorials/model.js";
import { assistant } from "./tutorials/02-citations/agent.js";

/** The version the example catalog records on each event. */
export const EXAMPLE_VERSION = "tutorial-2";

/** The catalog of one agent, "assistant": the citing town assistant of tutorial 2, over `store`. */
export function exampleCatalog(store: TraceStore, model: ChatModel = chooseModel()): AgentCatalog {
  return new AgentCatalog(store, { assistant: assistant(model) }, { version: EXAMPLE_VERSION });
}
