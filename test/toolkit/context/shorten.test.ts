import { describe, expect, it } from "vitest";
import { ValueError } from "../../../src/domain/errors.js";
import { ToolOutput } from "../../../src/domain/events.js";
import {
  jsonCap,
  asRecorded,
  dropText,
  shortened,
  sources,
  cap,
  firstWords,
} from "../../../src/toolkit/context/forms.js";
import { ModelLimits, Tokens } from "../../../src/toolkit/context/limits.js";
import { ShortenError } from "../../../src/toolkit/context/errors.js";
import { Chunk, Doc } from "../../fixtures/context-conversation.js";

const limits = new ModelLimits({ window: new Tokens(1_000), charactersPerToken: 4 });
const doc = Doc({ id: "d", title: "D" });
const first = Chunk({ id: "d#0", ref: "d", text: "Residual waste is collected every Tuesday morning." });
const second = Chunk({ id: "d#1", ref: "d", text: "Paper goes in the blue container." });
const output = ToolOutput({ callId: "c1", text: "Found two.", data: { hits: 2 }, elements: [doc, first, second] });

describe("the built-in Shorten functions", () => {
  it("asRecorded shows the result as recorded", () => {
    expect(asRecorded(output, limits)).toBe(output);
  });

  it("dropText removes the text of each Source and keeps everything else; the recorded result does not change", () => {
    const made = dropText(output, limits);
    expect(made.elements.map((element) => element.text)).toEqual([undefined, "", ""]);
    expect(made.elements.map((element) => element.id)).toEqual(["d", "d#0", "d#1"]);
    expect([made.text, made.data, made.callId]).toEqual(["Found two.", { hits: 2 }, "c1"]);
    expect(output.elements[1]!.text).toBe(first.text);
  });

  it("sources applies a ShortenText to the text of each Source only", () => {
    const made = sources(firstWords(3))(output, limits);
    expect(made.elements.map((element) => element.text)).toEqual([undefined, "Residual waste is…", "Paper goes in…"]);
    expect(made.text).toBe("Found two.");
  });
});

describe("cap", () => {
  it("keeps a text that fits", () => {
    expect(cap(new Tokens(100))(first.text, limits)).toBe(first.text);
  });

  it("cuts before the word that the limit falls in, and says about how many tokens it left out", () => {
    // 4 tokens of 4 characters: the limit falls at character 16, inside "is".
    expect(cap(new Tokens(4))(first.text, limits)).toBe("Residual waste [… about 9 more tokens not shown]");
    // At character 20, inside "collected".
    expect(cap(new Tokens(5))(first.text, limits)).toBe("Residual waste is [… about 9 more tokens not shown]");
  });

  it("takes its own cut text", () => {
    expect(cap(new Tokens(2), "(cut: {tokens})")("abcdefgh ijklmnop qrstuvwx", limits)).toBe("abcdefgh (cut: 5)");
  });

  it("refuses a limit that is not Tokens", () => {
    expect(() => cap(4 as never)).toThrow(ValueError);
  });
});

describe("firstWords", () => {
  it("keeps the first words with one space between them, then …", () => {
    expect(firstWords(2)("one  two\nthree", limits)).toBe("one two…");
    expect(firstWords(3)("one two three", limits)).toBe("one two three");
  });

  it("refuses a count below 1", () => {
    expect(() => firstWords(0)).toThrow(ValueError);
  });
});

describe("jsonCap", () => {
  it("moves data that is too long into the text as cut JSON", () => {
    const big = ToolOutput({
      text: "Rows:",
      data: { rows: Array.from({ length: 50 }, (_, index) => ({ index, name: `row ${index}` })) },
    });
    const made = jsonCap(new Tokens(10))(big, limits);
    expect(made.data).toBeNull();
    expect(made.text!.startsWith('Rows:\n{"rows":[{"index":0,"name":"row 0"}')).toBe(true);
    expect(made.text).toMatch(/\[… about \d+ more tokens not shown\]$/);
  });

  it("keeps short data and a result without data", () => {
    expect(jsonCap(new Tokens(10))(output, limits)).toBe(output);
    const plain = ToolOutput({ text: "x" });
    expect(jsonCap(new Tokens(1))(plain, limits)).toBe(plain);
  });
});

describe("shortened: the rule of every Shorten", () => {
  it("passes a function that keeps the elements and the error", () => {
    expect(shortened(dropText, output, limits, "search").elements).toHaveLength(3);
  });

  it("refuses a function that removes, adds or reorders an element", () => {
    const removes = (result: ToolOutput) => ({ ...result, elements: result.elements.slice(1) });
    const reorders = (result: ToolOutput) => ({ ...result, elements: [...result.elements].reverse() });
    const adds = (result: ToolOutput) => ({ ...result, elements: [...result.elements, doc] });
    for (const shorten of [removes, reorders, adds])
      expect(() => shortened(shorten, output, limits, "search")).toThrow(ShortenError);
  });

  it("keeps the recorded header whatever header the function's copy has", () => {
    const renamed = shortened((result) => ({ ...result, callId: "other", text: "short" }), output, limits, "search");
    expect(renamed).toMatchObject({ callId: output.callId, type: output.type, stream: output.stream, text: "short" });
    // A copy that kept the header is taken as it is.
    const copy = { ...output, text: "short" };
    expect(shortened(() => copy, output, limits, "search")).toBe(copy);
  });

  it("refuses a function that changes the error", () => {
    const failed = ToolOutput({ callId: "c2", error: "No such document." });
    expect(() => shortened((result) => ({ ...result, error: null }), failed, limits, "read_document")).toThrow(
      /changed its error/,
    );
  });
});
