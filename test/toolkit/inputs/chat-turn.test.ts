import { describe, expect, it } from "vitest";
import { ChatTurnInput, Text, ToolState } from "../../../src/toolkit/index.js";

describe("ChatTurnInput", () => {
  it("defaults tools to none and context to null", () => {
    expect(ChatTurnInput.parse({ text: "Hello" })).toEqual({ text: "Hello", tools: {}, context: null });
  });

  it("gives each turn its own tools object", () => {
    const first = ChatTurnInput.parse({ text: "a" });
    first.tools.search = "off";
    expect(ChatTurnInput.parse({ text: "b" }).tools).toEqual({});
  });

  it("keeps the states and context that a turn gives", () => {
    const turn = ChatTurnInput.parse({
      text: "Hi",
      tools: { search: "required", lookup: "off" },
      context: "The user lives in Delft.",
    });
    expect(turn.tools).toEqual({ search: "required", lookup: "off" });
    expect(turn.context).toBe("The user lives in Delft.");
  });

  it("refuses an unknown field instead of dropping it", () => {
    const result = ChatTurnInput.safeParse({ text: "Hi", tool: { search: "required" } });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.code).toBe("unrecognized_keys");
  });

  it("refuses a state other than off, auto and required", () => {
    expect(ChatTurnInput.safeParse({ text: "Hi", tools: { search: "always" } }).success).toBe(false);
    expect(ToolState.options).toEqual(["off", "auto", "required"]);
  });

  it("refuses a turn without text", () => {
    expect(ChatTurnInput.safeParse({ tools: {} }).success).toBe(false);
  });
});

describe("Text", () => {
  it("takes a plain string: the message, no tool states, no context", () => {
    expect(Text.parse("When does the library open?")).toEqual({
      text: "When does the library open?",
      tools: {},
      context: null,
    });
  });

  it("refuses a payload that is not a string", () => {
    expect(Text.safeParse({ text: "Hi" }).success).toBe(false);
  });
});
