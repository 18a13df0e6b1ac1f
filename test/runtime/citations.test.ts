import { describe, expect, it } from "vitest";
import { z } from "zod";
import { inserted, Numbering, referenceType, sourceType, ToolOutput, ValueError } from "../../src/domain/index.js";
import { BRACKETS, FULLWIDTH, parseMarkers, readMarkers } from "../../src/runtime/index.js";

const Document = referenceType("cite-test-document", { title: z.string() });
const Passage = sourceType("cite-test-passage");

const roundTrip = (text: string): string => {
  const { content, markers } = parseMarkers(text);
  return inserted(
    content,
    markers.map((marker) => [marker.at, marker.text] as const),
  );
};

describe("writing markers", () => {
  it("BRACKETS writes [4], and [4][5] for two sources", () => {
    expect(BRACKETS.write(4)).toBe("[4]");
    expect(BRACKETS.writeAll([4, 5])).toBe("[4][5]");
  });

  it("FULLWIDTH writes 【4】, and 【4】【5】 for two sources", () => {
    expect(FULLWIDTH.write(4)).toBe("【4】");
    expect(FULLWIDTH.writeAll([4, 5])).toBe("【4】【5】");
  });

  it("refuses a number that is not a whole number of at least 1", () => {
    expect(() => BRACKETS.write(0)).toThrow(ValueError);
    expect(() => FULLWIDTH.write(1.5)).toThrow(ValueError);
  });
});

describe("reading markers", () => {
  it.each([
    ["[4]", [4]],
    ["[4, 5]", [4, 5]],
    ["[4,5]", [4, 5]],
    ["[4;5]", [4, 5]],
    ["[ 4 ; 5 ]", [4, 5]],
    ["【4】", [4]],
    ["【4†source】", [4]],
    ["【4, 5】", [4, 5]],
  ])("reads %s with both strategies", (marker, numbers) => {
    for (const strategy of [BRACKETS, FULLWIDTH]) {
      const { content, markers } = strategy.parse(`It is free${marker}.`);
      expect(content).toBe("It is free.");
      expect(markers).toEqual([{ at: 10, text: marker, numbers }]);
    }
  });

  it("reads adjacent markers as one marker each", () => {
    const { content, markers } = BRACKETS.parse("Free four times a year [4][5].");
    expect(content).toBe("Free four times a year.");
    expect(markers).toEqual([
      { at: 22, text: " [4]", numbers: [4] },
      { at: 22, text: "[5]", numbers: [5] },
    ]);
  });

  it("cuts the space before a marker out of the content, into the marker's text", () => {
    const { content, markers } = BRACKETS.parse(
      "picked up for free four times a year [2]. An extra pickup costs 25 euros [2].",
    );
    expect(content).toBe("picked up for free four times a year. An extra pickup costs 25 euros.");
    expect(markers.map((marker) => [marker.at, marker.text])).toEqual([
      [36, " [2]"],
      [68, " [2]"],
    ]);
    expect(content.slice(0, 36)).toBe("picked up for free four times a year");
  });

  it("keeps one space between words when a marker stands between them", () => {
    expect(BRACKETS.parse("free [2] and more").content).toBe("free and more");
    expect(BRACKETS.parse("free [2]more").content).toBe("free more");
  });

  it("takes the spaces after a marker that starts a line", () => {
    const { content, markers } = BRACKETS.parse("[1] First.\n[2][3] Second.");
    expect(content).toBe("First.\nSecond.");
    expect(markers).toEqual([
      { at: 0, text: "[1] ", numbers: [1] },
      { at: 7, text: "[2]", numbers: [2] },
      { at: 7, text: "[3] ", numbers: [3] },
    ]);
  });

  it("leaves Markdown links, empty brackets and words in brackets in the content", () => {
    const text = "See [the site](https://example.org), [1](x), [] and [note].";
    expect(BRACKETS.parse(text)).toEqual({ content: text, markers: [] });
  });

  it.each([
    "You can have bulky waste picked up for free four times a year [2]. An extra pickup costs 25 euros [2].",
    "Free [4][5], paid 【6†source】; see [7, 8].",
    "[1] Starts a line.\n  [2] indented\nends with a marker [3]",
    "glued[1]word and [2]word and word [3]\n\n[4]",
    "no markers at all",
  ])("gives the text back exactly with inserted: %s", (text) => {
    expect(roundTrip(text)).toBe(text);
  });
});

describe("readMarkers", () => {
  const numbering = new Numbering([
    ToolOutput({
      callId: "call-1",
      elements: [
        Document({ id: "waste-collection", title: "Waste collection" }),
        Passage({ id: "waste-collection#2", ref: "waste-collection", text: "Bulky waste..." }),
      ],
    }),
  ]);

  it("resolves a number to the real id of the Source it names", () => {
    const { content, markers } = readMarkers("Four times a year [2].", BRACKETS, numbering);
    expect(content).toBe("Four times a year.");
    expect(markers).toEqual([{ at: 17, text: " [2]", cited: [{ written: 2, source: "waste-collection#2" }] }]);
  });

  it("records a Reference and a number that names nothing with source null", () => {
    const { markers } = readMarkers("A document [1], and nothing 【9】.", FULLWIDTH, numbering);
    expect(markers.map((marker) => marker.cited)).toEqual([
      [{ written: 1, source: null }],
      [{ written: 9, source: null }],
    ]);
  });

  it("resolves each number of a marker that cites several", () => {
    const { markers } = readMarkers("Both [1, 2].", BRACKETS, numbering);
    expect(markers[0]?.cited).toEqual([
      { written: 1, source: null },
      { written: 2, source: "waste-collection#2" },
    ]);
  });
});
