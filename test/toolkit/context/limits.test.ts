import { describe, expect, it } from "vitest";
import { ValueError } from "../../../src/domain/errors.js";
import { ModelLimits, Share, Tokens } from "../../../src/toolkit/context/limits.js";

describe("Tokens and Share", () => {
  it("compare Tokens with < and >", () => {
    expect(new Tokens(3) < new Tokens(5)).toBe(true);
    expect(new Tokens(8) > new Tokens(5)).toBe(true);
  });

  it("refuse a share outside (0, 1] and a negative count", () => {
    expect(() => new Share(0)).toThrow(ValueError);
    expect(() => new Share(1.2)).toThrow(ValueError);
    expect(() => new Tokens(-1)).toThrow(ValueError);
  });
});

describe("ModelLimits", () => {
  const limits = new ModelLimits({ window: new Tokens(100_000) });

  it("takes a Share of its window, and Tokens as they are", () => {
    expect(limits.tokens(new Share(0.6))).toBe(60_000);
    expect(limits.tokens(new Tokens(500))).toBe(500);
  });

  it("estimates 3 characters a token by default, rounding up", () => {
    expect(limits.charactersPerToken).toBe(3);
    expect(limits.estimate(10)).toBe(4);
  });

  it("estimates only the characters added since a call recorded the real prompt tokens", () => {
    expect(limits.promptTokens(9_000)).toBe(3_000);
    expect(limits.promptTokens(9_000, { tokens: 2_000, characters: 8_700 })).toBe(2_100);
    // A smaller prompt (a result shrank) takes the estimate of the characters that went away off the real count.
    expect(limits.promptTokens(8_400, { tokens: 2_000, characters: 8_700 })).toBe(1_900);
  });

  it("refuses a window that is not Tokens and characters per token of 0", () => {
    expect(() => new ModelLimits({ window: 1000 as never })).toThrow(ValueError);
    expect(() => new ModelLimits({ window: new Tokens(1000), charactersPerToken: 0 })).toThrow(ValueError);
  });
});
