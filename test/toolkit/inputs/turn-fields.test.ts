import { z } from "zod";
import { describe, expect, it } from "vitest";
import { hasTurnField } from "../../../src/toolkit/inputs/turn-fields.js";
import { ChatTurnInput, Text } from "../../../src/toolkit/index.js";

describe("hasTurnField", () => {
  it("knows the fields of Text and ChatTurnInput", () => {
    for (const type of [Text, ChatTurnInput]) {
      expect([hasTurnField(type, "text"), hasTurnField(type, "tools"), hasTurnField(type, "context")]).toEqual([
        true,
        true,
        true,
      ]);
      expect(hasTurnField(type, "question")).toBe(false);
    }
  });

  it("reads an object's shape through defaults, optionals and pipes into objects", () => {
    const Turn = z.strictObject({ text: z.string() });
    expect(hasTurnField(Turn.default({ text: "" }), "text")).toBe(true);
    expect(
      hasTurnField(
        z
          .string()
          .pipe(z.transform((text) => ({ text })))
          .pipe(Turn),
        "text",
      ),
    ).toBe(true);
    expect(hasTurnField(Turn.optional(), "tools")).toBe(false);
  });

  it("needs the field in every option of a union, and in either side of an intersection", () => {
    const withText = z.object({ text: z.string() });
    const withQuestion = z.object({ question: z.string() });
    expect(
      hasTurnField(z.union([withText, withText.extend({ tools: z.record(z.string(), z.string()) })]), "text"),
    ).toBe(true);
    expect(hasTurnField(z.union([withText, withQuestion]), "text")).toBe(false);
    expect(hasTurnField(z.intersection(withQuestion, withText), "text")).toBe(true);
  });

  it("cannot say for a transform, a loose object without the field, a record or z.any()", () => {
    expect(
      hasTurnField(
        z.string().transform((text) => ({ text })),
        "text",
      ),
    ).toBeNull();
    expect(hasTurnField(z.looseObject({ question: z.string() }), "text")).toBeNull();
    expect(hasTurnField(z.record(z.string(), z.string()), "text")).toBeNull();
    expect(hasTurnField(z.any(), "text")).toBeNull();
  });

  it("says a string or an array has no fields", () => {
    expect(hasTurnField(z.string(), "text")).toBe(false);
    expect(hasTurnField(z.array(z.string()), "text")).toBe(false);
  });
});
