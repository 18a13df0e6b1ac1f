import { describe, expect, it } from "vitest";
import { UNPARSED_ARGUMENTS, argumentsText, parseToolArguments, unparsedArguments } from "../../src/ports/index.js";

describe("tool-call argument text", () => {
  it("parses a JSON object, and empty text as no arguments", () => {
    expect(parseToolArguments('{"query":"dogs","limit":2}')).toEqual({ query: "dogs", limit: 2 });
    expect(parseToolArguments("  ")).toEqual({});
  });

  it("keeps text that is not a JSON object under UNPARSED_ARGUMENTS, recoverable as written", () => {
    for (const text of ["{query: dogs", "[1, 2]", '"dogs"', "null", "42"]) {
      const args = parseToolArguments(text);
      expect(args).toEqual({ [UNPARSED_ARGUMENTS]: text });
      expect(unparsedArguments(args)).toBe(text);
      expect(argumentsText(args)).toBe(text);
    }
  });

  it("tells parsed arguments from unparsed ones", () => {
    expect(unparsedArguments({ query: "dogs" })).toBeNull();
    expect(unparsedArguments({ [UNPARSED_ARGUMENTS]: "x", query: "dogs" })).toBeNull();
    expect(argumentsText({ query: "dogs" })).toBe('{"query":"dogs"}');
  });
});
