import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Numbering,
  referenceType,
  sourceType,
  ToolOutput,
  ValueError,
  type Element,
} from "../../../src/domain/index.js";
import { BRACKETS, FULLWIDTH } from "../../../src/runtime/index.js";
import { xml } from "../../../src/toolkit/index.js";

const Document = referenceType("document", { title: z.string() });
const Passage = sourceType("passage");
const Chunk = sourceType("chunk", { page: z.number().optional() }, Passage);
// A subtype names its parent's added fields again: the domain's factory types only the fields it adds.
const Section = referenceType("section", { title: z.string(), heading: z.string() }, Document);
const Note = referenceType("xml-note", { id2: z.string().optional() });

const BULKY =
  "Bulky waste, such as furniture, is picked up after an appointment. Each household can have it picked up for free four times a year. Each extra pickup costs 25 euros.";
const RESIDUAL = "Residual waste is collected every Tuesday morning. Put the container on the street before 7:30.";

const document = Document({ id: "waste-collection", title: "Waste collection" });
const bulky = Passage({ id: "waste-collection#2", ref: "waste-collection", text: BULKY });
const residual = Passage({ id: "waste-collection#0", ref: "waste-collection", text: RESIDUAL });

/** Show elements under the numbers of one tool result that holds them, in that order. */
function shown(elements: Element[], layout = xml(), citations = BRACKETS, numbered: Element[] = elements): string {
  return layout(elements, new Numbering([ToolOutput({ callId: "c1", elements: numbered })]), "search", citations);
}

describe("xml", () => {
  it("shows tutorial 2's first search result byte for byte", () => {
    expect(shown([document, bulky, residual])).toBe(
      `<document id="1" title="Waste collection">
<passage id="2" cite="[2]">${BULKY}</passage>
<passage id="3" cite="[3]">${RESIDUAL}</passage>
</document>`,
    );
  });

  it("shows a Source without text as a self-closing tag that keeps its cite", () => {
    const compressed = { ...residual, text: "" };
    expect(shown([document, bulky, compressed])).toContain(`<passage id="3" cite="[3]"/>`);
  });

  it("shows a Reference on its own as a self-closing tag, without cite", () => {
    expect(shown([document])).toBe(`<document id="1" title="Waste collection"/>`);
  });

  it("writes the cite attribute with the model's strategy, and none when the model does not cite", () => {
    expect(shown([bulky], xml(), FULLWIDTH)).toBe(`<passage id="1" cite="【1】">${BULKY}</passage>`);
    const layout = xml();
    expect(layout([bulky], new Numbering([ToolOutput({ elements: [bulky] })]), null, null)).toBe(
      `<passage id="1">${BULKY}</passage>`,
    );
    expect(shown([bulky], xml({ cite: null }))).toBe(`<passage id="1">${BULKY}</passage>`);
    expect(shown([bulky], xml({ cite: "marker" }))).toBe(`<passage id="1" marker="[1]">${BULKY}</passage>`);
  });

  it("names the whole by the tag of the element under its number when the whole is not in the same call", () => {
    const numbered = [document, bulky, residual];
    expect(shown([residual, bulky], xml(), BRACKETS, numbered)).toBe(
      `<passage id="3" cite="[3]" document="1">${RESIDUAL}</passage>\n<passage id="2" cite="[2]" document="1">${BULKY}</passage>`,
    );
    const tagged = xml({ tags: new Map([[Document, "doc"]]) });
    expect(shown([bulky], tagged, BRACKETS, numbered)).toBe(`<passage id="2" cite="[2]" doc="1">${BULKY}</passage>`);
  });

  it("never shows the real id of a whole that has no number", () => {
    const orphan = Passage({ id: "p", ref: "never-shown", text: "x" });
    expect(shown([orphan])).toBe(`<passage id="1" cite="[1]">x</passage>`);
  });

  it("nests parts in arrival order, and by `order` with the parts without a value after them", () => {
    const pages = [
      Chunk({ id: "c3", ref: "waste-collection", text: "three", page: 3 }),
      Chunk({ id: "cx", ref: "waste-collection", text: "none" }),
      Chunk({ id: "c1", ref: "waste-collection", text: "one", page: 1 }),
    ];
    const arrival = shown([document, ...pages]);
    expect(arrival.split("\n").map((line) => line.replace(/ page="\d"/, ""))).toEqual([
      `<document id="1" title="Waste collection">`,
      `<chunk id="2" cite="[2]">three</chunk>`,
      `<chunk id="3" cite="[3]">none</chunk>`,
      `<chunk id="4" cite="[4]">one</chunk>`,
      `</document>`,
    ]);
    const ordered = shown([document, ...pages], xml({ order: new Map([[Chunk, "page"]]) }));
    expect(ordered.split("\n").slice(1, 4)).toEqual([
      `<chunk id="4" cite="[4]" page="1">one</chunk>`,
      `<chunk id="2" cite="[2]" page="3">three</chunk>`,
      `<chunk id="3" cite="[3]">none</chunk>`,
    ]);
  });

  it("sorts by a properties path for a type and its subtypes, and leaves roots in arrival order", () => {
    const layout = xml({ order: new Map([[Passage, "properties.chunkIndex"]]) });
    const second = Passage({ id: "b", ref: "waste-collection", text: "b", properties: { chunkIndex: 2 } });
    const first = Chunk({ id: "a", ref: "waste-collection", text: "a", properties: { chunkIndex: 1 } });
    const loose = Passage({ id: "z", text: "z", properties: { chunkIndex: 0 } });
    expect(shown([loose, document, second, first], layout).split("\n")).toEqual([
      `<passage id="1" cite="[1]" chunkIndex="0">z</passage>`,
      `<document id="2" title="Waste collection">`,
      `<chunk id="4" cite="[4]" chunkIndex="1">a</chunk>`,
      `<passage id="3" cite="[3]" chunkIndex="2">b</passage>`,
      `</document>`,
    ]);
  });

  it("nests over several levels, and keeps the roots in arrival order", () => {
    const section = Section({ id: "s", ref: "waste-collection", title: "Waste", heading: "Bulky" });
    const part = Passage({ id: "p", ref: "s", text: "text" });
    expect(shown([part, document, section])).toBe(
      `<document id="2" title="Waste collection">\n<section id="3" title="Waste" heading="Bulky">\n<passage id="1" cite="[1]">text</passage>\n</section>\n</document>`,
    );
  });

  it("cuts a cycle of refs at its first element, and shows every element once, a self-reference as a root", () => {
    const first = Passage({ id: "a", ref: "b", text: "first" });
    const second = Passage({ id: "b", ref: "a", text: "second" });
    const itself = Passage({ id: "c", ref: "c", text: "itself" });
    expect(shown([first, second, itself])).toBe(
      `<passage id="1" cite="[1]" passage="2">first\n<passage id="2" cite="[2]">second</passage>\n</passage>\n` +
        `<passage id="3" cite="[3]" passage="3">itself</passage>`,
    );
  });

  it("shows a part inside a Source after the Source's text", () => {
    const whole = Passage({ id: "w", text: "whole" });
    const part = Passage({ id: "p", ref: "w", text: "part" });
    expect(shown([whole, part])).toBe(
      `<passage id="1" cite="[1]">whole\n<passage id="2" cite="[2]">part</passage>\n</passage>`,
    );
  });

  it("shows every added field and every property as an attribute", () => {
    const chunk = Chunk({
      id: "c",
      text: "t",
      page: 4,
      properties: { modified: "2024-05-01", score: 0.5, "page size": "A4" },
    });
    expect(shown([chunk])).toBe(
      `<chunk id="1" cite="[1]" page="4" modified="2024-05-01" score="0.5" page_size="A4">t</chunk>`,
    );
  });

  it("shows only the listed paths of a type that `fields` names, and of its subtypes", () => {
    const layout = xml({ fields: new Map([[Passage, { "properties.modified": "date" }]]) });
    const chunk = Chunk({ id: "c", text: "t", page: 4, properties: { modified: "2024-05-01", score: 1 } });
    const passage = Passage({ id: "p", text: "u" });
    expect(shown([chunk, passage], layout)).toBe(
      `<chunk id="1" cite="[1]" date="2024-05-01">t</chunk>\n<passage id="2" cite="[2]">u</passage>`,
    );
    expect(shown([document], layout)).toBe(`<document id="1" title="Waste collection"/>`);
  });

  it("uses the tag of the nearest type that `tags` names", () => {
    const layout = xml({
      tags: new Map([
        [Passage, "p"],
        [Chunk, "c"],
      ]),
    });
    const chunk = Chunk({ id: "c", text: "t" });
    expect(shown([bulky, chunk], layout)).toBe(`<p id="1" cite="[1]">${BULKY}</p>\n<c id="2" cite="[2]">t</c>`);
  });

  it("takes settings as [type, value] pairs as well as a Map, and refuses other shapes", () => {
    const layout = xml({
      tags: [
        [Document, "doc"],
        [Passage, "p"],
      ],
    });
    expect(shown([document, bulky], layout)).toBe(
      `<doc id="1" title="Waste collection">\n<p id="2" cite="[2]">${BULKY}</p>\n</doc>`,
    );
    expect(() => xml({ tags: { document: "doc" } as never })).toThrow(ValueError);
    expect(() => xml({ order: [["passage", "text"]] as never })).toThrow(/keyed by element types/);
  });

  it("shows a field named like the element's own attributes with data- before it", () => {
    const note = Note({ id: "n", properties: { id: "own", cite: "x", document: "d", plain: "p" } });
    const part = Passage({ id: "p", ref: "waste-collection", text: "t", properties: { document: "d" } });
    const numbered = [document, note, part];
    expect(shown([note], xml(), BRACKETS, numbered)).toBe(
      `<xml-note id="2" data-id="own" data-cite="x" document="d" plain="p"/>`,
    );
    expect(shown([part], xml(), BRACKETS, numbered)).toBe(
      `<passage id="3" cite="[3]" document="1" data-document="d">t</passage>`,
    );
    const listed = xml({ fields: new Map([[Document, { title: "id" }]]) });
    expect(shown([document], listed)).toBe(`<document id="1" data-id="Waste collection"/>`);
  });

  it("escapes text and attribute values", () => {
    const tricky = Document({ id: "d", title: `Fish & "chips" <b>'s</b>` });
    const part = Passage({ id: "p", ref: "d", text: 'a < b & c > d "q"' });
    expect(shown([tricky, part])).toBe(
      `<document id="1" title="Fish &amp; &quot;chips&quot; &lt;b&gt;&#39;s&lt;/b&gt;">\n<passage id="2" cite="[2]">a &lt; b &amp; c &gt; d "q"</passage>\n</document>`,
    );
  });

  it("escapes a text that holds only one of &, < and >", () => {
    for (const [text, escaped] of [
      ["fish & chips", "fish &amp; chips"],
      ["a < b", "a &lt; b"],
      ["a > b", "a &gt; b"],
    ] as const) {
      const part = Passage({ id: "p", text });
      expect(shown([part])).toBe(`<passage id="1" cite="[1]">${escaped}</passage>`);
    }
  });

  it("escapes an attribute value that holds only one of &, <, >, \" and '", () => {
    for (const [title, escaped] of [
      ["fish & chips", "fish &amp; chips"],
      ["a < b", "a &lt; b"],
      ["a > b", "a &gt; b"],
      ['the "best"', "the &quot;best&quot;"],
      ["it's", "it&#39;s"],
    ] as const) {
      const document = Document({ id: "d", title });
      expect(shown([document])).toBe(`<document id="1" title="${escaped}"/>`);
    }
  });

  it("refuses a path in fields or order that does not start with a field of its type", () => {
    expect(() => xml({ fields: new Map([[Document, { titel: "title" }]]) })).toThrow(ValueError);
    expect(() => xml({ order: new Map([[Passage, "chunkIndex"]]) })).toThrow(/does not start with one of its fields/);
    expect(() => xml({ order: new Map([[Passage, "properties."]]) })).toThrow(ValueError);
    expect(() => xml({ fields: new Map([[Document, { "properties.modified": "date" }]]) })).not.toThrow();
  });

  it("refuses a tag or attribute name that is not an XML name", () => {
    expect(() => xml({ tags: new Map([[Document, "my doc"]]) })).toThrow(ValueError);
    expect(() => xml({ fields: new Map([[Document, { title: "1title" }]]) })).toThrow(ValueError);
  });

  it("refuses an element that has no number in the thread", () => {
    expect(() => shown([bulky], xml(), BRACKETS, [document])).toThrow(/has no number in the thread/);
  });
});
