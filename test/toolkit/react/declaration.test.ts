import { describe, expect, it } from "vitest";
import { ValueError } from "../../../src/domain/errors.js";
import { REQUIRED_TOOL_INSTRUCTION, ToolDeclaration } from "../../../src/toolkit/index.js";

describe("ToolDeclaration", () => {
  it("defaults to the state auto, unlocked, with the documented instruction", () => {
    const declaration = new ToolDeclaration({ name: "search" });
    expect(declaration.default).toBe("auto");
    expect(declaration.locked).toBe(false);
    expect(declaration.requiredToolInstruction).toBe("Use the {tool} tool for this message.");
    expect(REQUIRED_TOOL_INSTRUCTION).toBe("Use the {tool} tool for this message.");
    expect(declaration.instruction).toBe("Use the search tool for this message.");
  });

  it("gives the state that the turn asks, or its default when the turn names none", () => {
    const declaration = new ToolDeclaration({ name: "search", default: "off" });
    expect(declaration.state({})).toBe("off");
    expect(declaration.state({ lookup: "required" })).toBe("off");
    expect(declaration.state({ search: "required" })).toBe("required");
    expect(declaration.state({ search: "auto" })).toBe("auto");
  });

  it("gives its default when it is locked, whatever the turn asks", () => {
    const declaration = new ToolDeclaration({ name: "search", default: "required", locked: true });
    expect(declaration.state({ search: "off" })).toBe("required");
  });

  it("writes the tool's name in place of each {tool} of its own instruction", () => {
    const declaration = new ToolDeclaration({
      name: "search",
      requiredToolInstruction: "Call {tool} first; {tool} knows the town. Keep {braces: 1} as they are.",
    });
    expect(declaration.instruction).toBe("Call search first; search knows the town. Keep {braces: 1} as they are.");
  });

  it("refuses an instruction with a placeholder other than {tool}", () => {
    expect(() => new ToolDeclaration({ name: "search", requiredToolInstruction: "Use {name} now." })).toThrow(
      ValueError,
    );
    expect(() => new ToolDeclaration({ name: "search", requiredToolInstruction: "Use {tool} for {}." })).toThrow(
      /\{\}/,
    );
  });

  it("refuses an empty name and a default that is no ToolState", () => {
    expect(() => new ToolDeclaration({ name: "" })).toThrow(ValueError);
    expect(() => new ToolDeclaration({ name: "search", default: "always" as never })).toThrow(/off.*auto.*required/);
  });
});
