// The known limits of model families, found by the longest family name a model's name starts with.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_LIMITS,
  KNOWN_LIMITS,
  knownLimits,
  limitsOfModel,
  modelFamilyName,
} from "../../../src/toolkit/index.js";

const windowOf = (model: string) => limitsOfModel(model).window.count;
const outputOf = (model: string) => limitsOfModel(model).output?.count ?? null;

describe("known model limits", () => {
  it("give each provider's families their window and output limit, the longest family first", () => {
    expect([windowOf("gpt-4.1-mini-2025-04-14"), outputOf("gpt-4.1-mini-2025-04-14")]).toEqual([1_047_576, 32_768]);
    expect([windowOf("gpt-4o-2024-08-06"), outputOf("gpt-4o")]).toEqual([128_000, 16_384]);
    expect([windowOf("gpt-5"), windowOf("gpt-5-mini"), windowOf("gpt-5-chat-latest")]).toEqual([
      400_000, 400_000, 128_000,
    ]);
    expect([windowOf("o3-mini"), windowOf("o1-mini"), windowOf("o4-mini-2025-04-16")]).toEqual([
      200_000, 128_000, 200_000,
    ]);
    expect([outputOf("claude-3-5-sonnet-20241022"), outputOf("claude-3-7-sonnet-latest")]).toEqual([8_192, 64_000]);
    expect([
      outputOf("claude-opus-4-20250514"),
      outputOf("claude-opus-4-1-20250805"),
      outputOf("claude-opus-4-5"),
    ]).toEqual([32_000, 32_000, 64_000]);
    expect([windowOf("claude-sonnet-4-5-20250929"), windowOf("claude-haiku-4-5")]).toEqual([200_000, 200_000]);
    expect([
      windowOf("gemini-1.5-pro-002"),
      windowOf("gemini-2.5-flash-lite"),
      outputOf("gemini-3-pro-preview"),
    ]).toEqual([2_097_152, 1_048_576, 65_536]);
    expect([windowOf("mistral-large-latest"), outputOf("mistral-large-2411"), windowOf("codestral-2501")]).toEqual([
      131_072,
      null,
      256_000,
    ]);
  });

  it("read provider:model strings, paths and Bedrock ids", () => {
    expect(modelFamilyName("anthropic:claude-sonnet-4-5")).toBe("claude-sonnet-4-5");
    expect(modelFamilyName("models/gemini-2.5-pro")).toBe("gemini-2.5-pro");
    expect(modelFamilyName("us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toBe("claude-sonnet-4-5-20250929-v1:0");
    expect(windowOf("anthropic.claude-3-5-sonnet-20240620-v1:0")).toBe(200_000);
    expect(windowOf("amazon.nova-pro-v1:0")).toBe(300_000);
    expect(windowOf("google:gemini-2.5-pro")).toBe(1_048_576);
    expect(windowOf("openai:gpt-4.1")).toBe(1_047_576);
  });

  it("keep the default of 32,000 tokens for a model they do not know, and a family only at a separator", () => {
    expect(limitsOfModel("my-local-llama")).toBe(DEFAULT_LIMITS);
    expect(limitsOfModel("openai-compatible:town-model")).toBe(DEFAULT_LIMITS);
    expect(knownLimits("gpt-40")).toBeNull();
    expect(knownLimits("o10")).toBeNull();
  });

  it("hold only windows above their output limits, and a margin in characters per token", () => {
    for (const [family, limits] of Object.entries(KNOWN_LIMITS)) {
      expect(limits.output === null || limits.output <= limits.window, family).toBe(true);
      expect(limits.charactersPerToken, family).toBeLessThanOrEqual(4);
    }
  });
});
