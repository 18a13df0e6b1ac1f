import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ValueError } from "../../../src/domain/errors.js";
import { ToolOutput } from "../../../src/domain/events.js";
import { UnboundToolError, bound, tool } from "../../../src/runtime/index.js";
import { LIBRARY, Library, Passage, readDocument, search } from "./town.js";

describe("a FunctionTool", () => {
  it("runs as a plain function, without a model, with every value given", async () => {
    const output = await search({ query: "bulky waste", library: LIBRARY, seen: [] });
    expect(output.elements.map((element) => element.id)).toEqual([
      "waste-collection",
      "waste-collection#2",
      "waste-collection#0",
    ]);
  });

  it("gets a Recorded value as a plain array in a test", async () => {
    const first = await search({ query: "dog", library: LIBRARY, seen: [] });
    const seen = first.elements.filter((element) => Passage.is(element));
    const again = await search({ query: "dog", library: LIBRARY, seen });
    expect(again.error).toBe("No new passages for these words.");
  });

  it("refuses a direct call that leaves out a value that nothing bound", async () => {
    const call = (search as unknown as (input: object) => Promise<ToolOutput>)({ query: "dog", seen: [] });
    await expect(call).rejects.toThrow(UnboundToolError);
  });

  it("makes a tool whose name the model calls it by", () => {
    expect(readDocument.name).toBe("read_document");
    expect(readDocument.description).toBe("Read all passages of one document.");
  });
});

describe("bind", () => {
  it("returns a new tool with the same name, description and limit, and leaves the tool unchanged", async () => {
    const bound = search.bind({ library: LIBRARY });
    expect(bound).not.toBe(search);
    expect(bound.name).toBe(search.name);
    expect(bound.description).toBe(search.description);
    expect(bound.limit).toBe(search.limit);
    expect(bound.def()).toEqual(search.def());
    expect(search.unbound).toEqual(["library"]);
    expect(bound.unbound).toEqual([]);
    const output = await bound({ query: "guide dog", seen: [] });
    expect(output.elements.map((element) => element.id)).toEqual(["dog-tax", "dog-tax#1", "dog-tax#0"]);
  });

  it.each([
    ["an array", [1, 2], "an array that is not frozen"],
    ["a plain object", { base: "https://example.org" }, "a plain object that is not frozen"],
    ["a Map", new Map(), "a Map"],
    ["a Set", new Set(), "a Set"],
    ["a Date", new Date(0), "a Date"],
    ["a frozen Map", Object.freeze(new Map()), "a Map"],
    [
      "a frozen object that holds an array",
      Object.freeze({ ids: [1] }),
      "a plain object that holds an array that is not frozen",
    ],
  ])("refuses %s, a value that can keep state between calls", (_, value, problem) => {
    const counted = tool({
      name: "counted",
      description: "Counts.",
      bound: { store: bound<unknown>() },
      run: async () => ToolOutput({ text: "ok" }),
    });
    expect(() => counted.bind({ store: value })).toThrow(ValueError);
    expect(() => counted.bind({ store: value })).toThrow(
      `bind refuses the value of "store" for tool "counted": it is ${problem}`,
    );
    expect(() => counted.bind({ store: value })).toThrow("keep state from one call to the next");
  });

  it("takes frozen values, class instances (unchecked), functions and primitives", () => {
    const counted = tool({
      name: "counted",
      description: "Counts.",
      bound: { store: bound<unknown>() },
      run: async () => ToolOutput({ text: "ok" }),
    });
    class Mutable {
      items: string[] = [];
    }
    for (const value of [
      Object.freeze({ ids: Object.freeze([1, 2]) }),
      Object.freeze(["a"]),
      new Mutable(),
      LIBRARY,
      () => 1,
      "text",
      4,
      null,
    ]) {
      expect(counted.bind({ store: value }).unbound).toEqual([]);
    }
  });

  it("refuses a name the tool does not declare", () => {
    const bindUnknown = () => (search.bind as (values: object) => unknown)({ libary: LIBRARY });
    expect(bindUnknown).toThrow(ValueError);
    expect(bindUnknown).toThrow('Tool "search" has no bound value "libary"; its bound values are: library.');
  });

  it("binds over a value bound before, in a new tool", async () => {
    const empty = new Library([]);
    const first = readDocument.bind({ library: empty });
    const second = (first.bind as (values: object) => typeof first)({ library: LIBRARY });
    const output = await second({ document: "dog-tax" });
    expect(output.elements).toHaveLength(3);
  });
});

describe("tool", () => {
  it("refuses a name that a model cannot call", () => {
    expect(() => tool({ name: "read document", description: "Reads.", run: async () => ToolOutput({}) })).toThrow(
      ValueError,
    );
  });

  it("refuses an argument and a bound value of the same name", () => {
    const make = () =>
      tool({
        name: "twice",
        description: "Twice.",
        args: { library: z.string() },
        bound: { library: bound<Library>() },
        run: async () => ToolOutput({}),
      });
    expect(make).toThrow('Tool "twice" declares "library" twice');
  });

  it("refuses arguments that have no JSON schema, when the tool is made", () => {
    const make = () =>
      tool({ name: "dated", description: "Dated.", args: { when: z.date() }, run: async () => ToolOutput({}) });
    expect(make).toThrow(ValueError);
  });
});

describe("withTexts", () => {
  it("gives a copy with other texts for the tool and its arguments", () => {
    const texted = search.withTexts({ description: "Find passages.", arguments: { query: "What to find." } });
    expect(texted.description).toBe("Find passages.");
    expect(texted.argumentDescriptions).toEqual({ query: "What to find." });
    expect(search.argumentDescriptions).toEqual({ query: "Words to look for in the town documents." });
    expect(texted.limit).toBe(search.limit);
  });

  it("keeps the element type of an ElementId argument", () => {
    const texted = readDocument.withTexts({ arguments: { document: "A document's number." } });
    expect(texted.def().elements).toEqual({ document: ["document"] });
    expect(texted.def().parameters).toMatchObject({
      properties: { document: { type: "string", description: "A document's number." } },
    });
  });

  it("refuses texts for an argument the model does not write", () => {
    expect(() => search.withTexts({ arguments: { library: "The library." } })).toThrow(
      'Tool "search" has no argument "library"',
    );
  });
});
