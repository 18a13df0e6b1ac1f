import { describe, expect, it } from "vitest";
import { Element, referenceType } from "../../../src/domain/elements.js";
import { Reopened } from "../../../src/domain/events.js";
import { ElementId, ResultHandle, tool } from "../../../src/runtime/index.js";
import { toolDef } from "../../../src/internal/index.js";
import { Document, readDocument, search } from "./town.js";
import { reopenTool } from "./reopen.js";

describe("toolDef", () => {
  it("gives the JSON schema of what the model writes, and the element types of each ElementId argument", () => {
    expect(toolDef(readDocument)).toEqual({
      name: "read_document",
      description: "Read all passages of one document.",
      parameters: {
        type: "object",
        properties: { document: { type: "string", description: "The number of a document that search found." } },
        required: ["document"],
        additionalProperties: false,
      },
      elements: { document: ["document"] },
      results: [],
    });
  });

  it("hides bound and Recorded values from the model", () => {
    const def = search.def();
    expect(def.parameters).toEqual({
      type: "object",
      properties: { query: { type: "string", minLength: 1, description: "Words to look for in the town documents." } },
      required: ["query"],
      additionalProperties: false,
    });
    expect(JSON.stringify(def)).not.toMatch(/library|seen|\$schema/);
  });

  it("names lists of element numbers and of result handles", () => {
    const def = reopenTool.def();
    expect(def.results).toEqual(["results"]);
    expect(def.elements.elements).toEqual(
      expect.arrayContaining(["element", "source", "reference", "document", "passage"]),
    );
    expect(def.parameters).toMatchObject({
      properties: {
        elements: {
          type: "array",
          items: { type: "string" },
          description: "The numbers of the elements to show again.",
        },
        results: { type: "array", items: { type: "string" } },
      },
      additionalProperties: false,
    });
    expect(def.parameters.required).toBeUndefined();
  });

  it("accepts a subtype declared after the tool was made", () => {
    const Memo = referenceType("memo", {}, Document);
    expect(readDocument.def().elements.document).toEqual(["document", Memo.name]);
  });

  it("gives the same definition again until a subtype of a type it names is declared", () => {
    const before = readDocument.def();
    expect(readDocument.def()).toBe(before);
    const Note = referenceType("note", {}, Document);
    const after = readDocument.def();
    expect(after).not.toBe(before);
    expect(after.elements.document).toEqual([...before.elements.document!, Note.name]);
    expect(readDocument.def()).toBe(after);
  });

  it("gives an ElementId a description when the tool gives none", () => {
    const open = tool({
      name: "open",
      description: "Open.",
      args: { item: ElementId(Element), result: ResultHandle() },
      run: async () => Reopened({}),
    });
    expect(open.def().parameters).toMatchObject({
      properties: {
        item: { type: "string", description: "The number of an element." },
        result: { type: "string", description: "The handle of a result, such as r3." },
      },
    });
  });
});
