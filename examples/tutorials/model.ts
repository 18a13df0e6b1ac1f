/** The model the tutorials run on: OpenAI when it is configured, else the offline demo model, and they say which. */
import OpenAI from "openai";
import { DemoModel, OpenAIChatModel } from "../../src/adapters/index.js";
import type { ChatModel } from "../../src/ports/index.js";

/** OpenAI (or a compatible server) when OPENAI_API_KEY or OPENAI_BASE_URL is set, else the offline DemoModel. */
export function chooseModel(): ChatModel {
  if (process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL) {
    const name = process.env.OPENAI_MODEL ?? "gpt-4.1-mini";
    console.log(
      `Model: ${name} through the OpenAI API${process.env.OPENAI_BASE_URL ? ` at ${process.env.OPENAI_BASE_URL}` : ""}.`,
    );
    return new OpenAIChatModel(new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? "none" }), { model: name });
  }
  console.log(
    "Model: the offline demo model (no OPENAI_API_KEY or OPENAI_BASE_URL set). It quotes the passage that shares the most words with the question.",
  );
  return new DemoModel();
}
