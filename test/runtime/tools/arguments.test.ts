import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Input, ModelOutput, ToolOutput, type ToolCall } from "../../../src/domain/events.js";
import { Numbering } from "../../../src/domain/numbering.js";
import { mapArguments, resultHandles, shownArguments, toolDef } from "../../../src/internal/index.js";
import { FIRST_RESULT, LIBRARY, asDocument, asPassage, readDocument } from "./town.js";
import { reopenTool } from "./reopen.js";

const events = [
  Input({ payload: "How often is bulky waste picked up?" }),
  ModelOutput({ toolCalls: [{ id: "c1", name: "search", arguments: { query: "bulky waste" } }] }),
  ToolOutput({ callId: "c1", elements: FIRST_RESULT }),
  ModelOutput({ toolCalls: [{ id: "c2", name: "search", arguments: { query: "dog" } }] }),
  ToolOutput({ callId: "c2", elements: [asDocument(LIBRARY.sections[2]!), asPassage(LIBRARY.sections[2]!)] }),
];
const numbering = new Numbering(events);
const handles = resultHandles(events);
const call = (name: string, args: ToolCall["arguments"]): ToolCall => ({ id: "c3", name, arguments: args });

describe("mapArguments", () => {
  it("replaces the number of an element of an accepted type with its real id", () => {
    const def = toolDef(readDocument);
    expect(mapArguments(call("read_document", { document: "1" }), def, numbering, handles).arguments).toEqual({
      document: "waste-collection",
    });
    expect(mapArguments(call("read_document", { document: 4 }), def, numbering, handles).arguments).toEqual({
      document: "dog-tax",
    });
  });

  it("leaves a number that names nothing, or an element of another type, as written", () => {
    const def = toolDef(readDocument);
    expect(mapArguments(call("read_document", { document: "9" }), def, numbering, handles).arguments).toEqual({
      document: "9",
    });
    expect(mapArguments(call("read_document", { document: "2" }), def, numbering, handles).arguments).toEqual({
      document: "2",
    });
    expect(mapArguments(call("read_document", { document: "dog tax" }), def, numbering, handles).arguments).toEqual({
      document: "dog tax",
    });
  });

  it("maps lists of numbers and handles, and leaves other arguments alone", () => {
    const def = reopenTool.def();
    const mapped = mapArguments(
      call("reopen", { elements: ["2", "9", 5], results: ["r2", "r7"], note: "1" }),
      def,
      numbering,
      handles,
    );
    expect(mapped.arguments).toEqual({
      elements: ["waste-collection#2", "9", "dog-tax#0"],
      results: ["c2", "r7"],
      note: "1",
    });
    expect(mapped.id).toBe("c3");
  });

  it("maps a handle only as the thread writes it", () => {
    const written = ["r1", " r2 ", "r01", "r+1", "r1.0", "r1e0", "r0", "r", "R1", "rr1"];
    const mapped = mapArguments(call("reopen", { results: written }), reopenTool.def(), numbering, handles);
    expect(mapped.arguments).toEqual({ results: ["c1", "c2", ...written.slice(2)] });
  });
});

describe("shownArguments", () => {
  it("gives back the call as the model wrote it", () => {
    const def = reopenTool.def();
    const written = call("reopen", { elements: ["1", "3", "9"], results: ["r1", "r2", "r5"] });
    const recorded = mapArguments(written, def, numbering, handles);
    expect(recorded.arguments).toEqual({
      elements: ["waste-collection", "waste-collection#0", "9"],
      results: ["c1", "c2", "r5"],
    });
    expect(shownArguments(recorded, def, numbering, handles)).toEqual(written);
  });

  it("round-trips any numbers and handles the thread has", () => {
    const def = reopenTool.def();
    const numbers = fc.array(fc.integer({ min: 1, max: numbering.size }).map(String));
    const written = fc.array(fc.constantFrom("r1", "r2"));
    fc.assert(
      fc.property(numbers, written, (elements, results) => {
        const original = call("reopen", { elements, results });
        const shown = shownArguments(mapArguments(original, def, numbering, handles), def, numbering, handles);
        expect(shown).toEqual(original);
      }),
    );
  });
});
