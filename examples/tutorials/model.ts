/**
 * The model the tutorials, the demo and `npm run app` run on, and they say which: the model string in
 * SOEV_MODEL (`anthropic:claude-sonnet-4-5`, `google:gemini-2.5-pro`, `openai:gpt-4.1`,
 * `openai-compatible:<name>`), else OpenAI when it is configured, else the offline demo model.
 */
import { resolveModel } from "../../src/adapters/ai-sdk/index.js";
import { DemoModel } from "../../src/adapters/index.js";
import type { ChatModel } from "../../src/ports/index.js";

/**
 * SOEV_MODEL through resolveModel (keys from ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENAI_API_KEY);
 * else OpenAI (or a compatible server) when OPENAI_API_KEY or OPENAI_BASE_URL is set, model OPENAI_MODEL;
 * else the offline DemoModel.
 */
export function chooseModel(env: NodeJS.ProcessEnv = process.env): ChatModel {
  if (env.SOEV_MODEL) {
    console.log(`Model: ${env.SOEV_MODEL} (SOEV_MODEL).`);
    return resolveModel(env.SOEV_MODEL, { env });
  }
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    const name = env.OPENAI_MODEL ?? "gpt-4.1-mini";
    console.log(`Model: ${name} through the OpenAI API${env.OPENAI_BASE_URL ? ` at ${env.OPENAI_BASE_URL}` : ""}.`);
    return resolveModel(`openai:${name}`, { env: { OPENAI_API_KEY: "none", ...env } });
  }
  console.log(
    "Model: the offline demo model (no SOEV_MODEL, OPENAI_API_KEY or OPENAI_BASE_URL set). It quotes the passage that shares the most words with the question.",
  );
  return new DemoModel();
}
