// resolveModel: model strings to ChatModels, pluggable providers, and clear errors for bad strings.
import { describe, expect, it } from "vitest";
import { AiSdkChatModel, resolveModel } from "../../src/adapters/ai-sdk/index.js";
import { OpenAIChatModel } from "../../src/adapters/openai/chat-model.js";
import { OpenAIResponsesModel } from "../../src/adapters/openai/responses-model.js";
import { ValueError } from "../../src/domain/errors.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ChatRequest } from "../../src/ports/request.js";
import { createAnthropic } from "@ai-sdk/anthropic";

const ENV = { ANTHROPIC_API_KEY: "a", GOOGLE_GENERATIVE_AI_API_KEY: "g", OPENAI_API_KEY: "o" };

describe("resolveModel", () => {
  it.each([
    ["anthropic:claude-sonnet-4-5", AiSdkChatModel, "claude-sonnet-4-5"],
    ["google:gemini-2.5-pro", AiSdkChatModel, "gemini-2.5-pro"],
    ["openai:gpt-4.1", OpenAIChatModel, "gpt-4.1"],
    ["openai-responses:gpt-5", OpenAIResponsesModel, "gpt-5"],
  ])("resolves %s to its adapter, named by the part after the prefix", (modelString, kind, name) => {
    const model = resolveModel(modelString, { env: ENV });
    expect(model).toBeInstanceOf(kind);
    expect(model.resolve(null)).toBe(name);
  });

  it("needs OPENAI_BASE_URL for openai-compatible models, and says so", () => {
    expect(() => resolveModel("openai-compatible:llama3", { env: {} })).toThrow(/set OPENAI_BASE_URL/);
    const model = resolveModel("openai-compatible:llama3", { env: { OPENAI_BASE_URL: "http://127.0.0.1:8000/v1" } });
    expect(model.resolve(null)).toBe("llama3");
  });

  it("takes providers of its caller, beside or instead of the built-in ones", () => {
    const scripted = new ScriptedModel(["hello"]);
    const seen: string[] = [];
    const model = resolveModel("local:tiny", {
      providers: {
        local: (name) => {
          seen.push(name);
          return scripted;
        },
      },
    });
    expect(model).toBe(scripted);
    expect(seen).toEqual(["tiny"]);
  });

  it.each(["claude-sonnet-4-5", "mistral:large", "anthropic:", ":x", "toString:x"])(
    "refuses %j with an error that shows the form and the known providers",
    (modelString) => {
      expect(() => resolveModel(modelString, { env: ENV })).toThrow(ValueError);
      expect(() => resolveModel(modelString, { env: ENV })).toThrow(/provider:model.*anthropic, google, openai/);
    },
  );

  it("refuses a call that names a model the adapter cannot reach, and reaches one through its provider", async () => {
    const anthropic = createAnthropic({ apiKey: "a" });
    const fixed = new AiSdkChatModel({ model: anthropic("claude-sonnet-4-5") });
    await expect(fixed.prepare(new ChatRequest([]), { model: "claude-opus-4-1" })).rejects.toThrow(
      /built for "claude-sonnet-4-5" and cannot call "claude-opus-4-1": pass \{ provider \}/,
    );
    const open = new AiSdkChatModel({ model: anthropic("claude-sonnet-4-5"), provider: (name) => anthropic(name) });
    const prepared = await open.prepare(new ChatRequest([]), { model: "claude-opus-4-1" });
    expect(prepared.settings).toMatchObject({ model: "claude-opus-4-1", modelId: "claude-opus-4-1" });
  });

  it("refuses an adapter built on something that is not a v4 language model", () => {
    expect(() => new AiSdkChatModel({ model: {} as never })).toThrow(/provider interface v4/);
  });
});
