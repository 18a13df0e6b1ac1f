/**
 * The example catalog that `npm run worker`, `npm run app` and the demo serve: the town assistant (tutorial
 * 2's citing assistant with a booking tool that waits for a person), on the model chooseModel picks
 * (SOEV_MODEL's model string, else OpenAI when OPENAI_API_KEY or OPENAI_BASE_URL is set, else the offline
 * demo model). An app passes its own catalog to runWorker instead.
 */
import type { ChatModel } from "../src/ports/model.js";
import type { TraceStore } from "../src/ports/store.js";
import { AgentCatalog } from "../src/runtime/catalog.js";
import { chooseModel } from "./tutorials/model.js";
import { townAssistant } from "./town-assistant.js";

/** The version the example catalog records on each event. */
export const EXAMPLE_VERSION = "town-assistant-1";

/** The catalog of one agent, "assistant": the citing town assistant that also books pickups, over `store`. */
export function exampleCatalog(store: TraceStore, model: ChatModel = chooseModel()): AgentCatalog {
  return new AgentCatalog(store, { assistant: townAssistant(model) }, { version: EXAMPLE_VERSION });
}
