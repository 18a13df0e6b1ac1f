/**
 * The soev-agents agents of the Temporal benchmarks, on the scripted OpenAI-compatible server: the worker
 * runs them, and a bench that gives a thread its history directly opens the thread with the same catalog.
 */
import type OpenAI from "openai";
import { z } from "zod";
import { OpenAIChatModel } from "../../src/adapters/openai/chat-model.js";
import { ToolOutput } from "../../src/domain/events.js";
import { tool } from "../../src/runtime/tools/function-tool.js";
import {
  Compact,
  ContextPolicy,
  MessageBuilder,
  ModelLimits,
  ReActAgent,
  ReActConfig,
  Tokens,
} from "../../src/toolkit/index.js";
import { RESULT } from "../shared/history.js";
import { MODEL_NAME, TOOL, report } from "./scripted.js";

/** The agent of the comparison with the peers. */
export const READER = "reader";
/** The agent of the long thread: 1 KB results, a current model's window, the default context policy. */
export const LONG_READER = "long-reader";
/** The agent of the thousand-turn thread: 20 KB results and every context setting left at its default. */
export const THOUSAND_READER = "thousand-reader";
/** The same with one setting more, a Compact: the default policy never summarises, so its context grows by each turn. */
export const COMPACTING_READER = "compacting-reader";

/** The report tool, its result `result(part)`. */
function fetchReport(result: (part: number) => string) {
  return tool({
    ...TOOL,
    args: { part: z.number().int().describe("The part of the report.") },
    async run({ part }) {
      return ToolOutput({ text: result(part) });
    },
  });
}

/** The benchmarks' agents by name, their model the scripted server behind `client`. */
export function benchAgents(client: OpenAI): Record<string, ReActAgent> {
  const model = new OpenAIChatModel(client, { model: MODEL_NAME });
  return {
    [READER]: new ReActAgent(
      new ReActConfig({
        model,
        prompt: "You read the day's report.",
        tools: [fetchReport(report)],
        // The peers send every message to the model; so does this agent, with a window the thread fits in.
        limits: new ModelLimits({ window: new Tokens(100_000_000) }),
      }),
    ),
    [LONG_READER]: new ReActAgent(
      new ReActConfig({
        model,
        prompt: "You read the day's report.",
        tools: [fetchReport((part) => `Part ${part}: ${RESULT}`)],
        // Thousands of prior events are over the default policy's thresholds in this window: builds shrink.
        limits: new ModelLimits({ window: new Tokens(128_000) }),
      }),
    ),
    // No limits, no builder: what an agent gets without options (the bench model's window is DEFAULT_LIMITS').
    [THOUSAND_READER]: new ReActAgent(
      new ReActConfig({ model, prompt: "You read the day's report.", tools: [fetchReport(report)] }),
    ),
    [COMPACTING_READER]: new ReActAgent(
      new ReActConfig({
        model,
        prompt: "You read the day's report.",
        tools: [fetchReport(report)],
        context: new MessageBuilder({ policy: new ContextPolicy({ compact: new Compact() }) }),
      }),
    ),
  };
}
