import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ValueError } from "../../../src/domain/errors.js";
import { ToolOutput } from "../../../src/domain/events.js";
import { Numbering } from "../../../src/domain/numbering.js";
import { Graph } from "../../../src/runtime/graph.js";
import { ElementId } from "../../../src/runtime/index.js";
import { isDelegation, mapArguments, resultHandles } from "../../../src/internal/index.js";
import { ToolDelegation } from "../../../src/toolkit/index.js";
import { Document, Passage } from "../../../examples/tutorials/02-citations/tools.js";

const build = () => new Graph();
const delegation = (input: z.ZodType, options: { name?: string } = {}) =>
  new ToolDelegation({ name: options.name ?? "research", description: "Research a question.", input, build });

describe("a delegation's spec", () => {
  it("offers the input's fields as the arguments, with their descriptions", () => {
    const spec = delegation(
      z.object({ question: z.string().describe("What to find out."), depth: z.number().int().default(1) }),
    ).spec;
    expect(spec.name).toBe("research");
    expect(spec.description).toBe("Research a question.");
    expect(spec.parameters).toEqual({
      type: "object",
      properties: {
        question: { type: "string", description: "What to find out." },
        depth: { type: "integer", default: 1, minimum: expect.any(Number), maximum: expect.any(Number) },
      },
      required: ["question"],
      additionalProperties: false,
    });
    expect(spec.elements).toEqual({});
  });

  it("shows an ElementId field as the number of an element of its type, and the LlmStep maps the number to the real id", () => {
    const research = delegation(
      z.object({
        document: ElementId(Document),
        passages: z.array(ElementId(Passage)).optional(),
        also: z.union([ElementId(Document), z.null()]),
      }),
    );
    expect(research.spec.parameters.properties).toMatchObject({
      document: { type: "string", description: "The number of a document." },
      passages: { type: "array", items: { type: "string", description: "The number of a passage." } },
    });
    expect(research.spec.elements).toEqual({ document: ["document"], passages: ["passage"], also: ["document"] });
    const shown = ToolOutput({
      callId: "c0",
      elements: [
        Document({ id: "waste", title: "Waste" }),
        Passage({ id: "waste#1", ref: "waste", text: "Bulky waste." }),
      ],
    });
    const call = { id: "c1", name: "research", arguments: { document: 1, passages: ["2"], also: null } };
    const mapped = mapArguments(call, research.spec, new Numbering([shown]), resultHandles([shown]));
    expect(mapped.arguments).toEqual({ document: "waste", passages: ["waste#1"], also: null });
  });

  it("shows an input that is not an object under one `input` argument", () => {
    expect(delegation(z.string().describe("The question.")).spec.parameters).toEqual({
      type: "object",
      properties: { input: { type: "string", description: "The question." } },
      required: ["input"],
      additionalProperties: false,
    });
    expect(delegation(ElementId(Document)).spec.elements).toEqual({ input: ["document"] });
  });

  it.each([
    ["inside another object", z.object({ where: z.object({ document: ElementId(Document) }) })],
    ["inside an array of arrays", z.object({ documents: z.array(z.array(ElementId(Document))) })],
    ["inside a collection other than an array", z.object({ documents: z.tuple([ElementId(Document)]) })],
    ["inside a collection other than an array", z.object({ documents: z.record(z.string(), ElementId(Document)) })],
    ["inside a collection other than an array", z.object({ documents: z.set(ElementId(Document)) })],
    ["in a union with a type other than null", z.object({ document: z.union([ElementId(Document), z.number()]) })],
    ["behind a transform", z.object({ document: ElementId(Document).transform((id) => id.toUpperCase()) })],
  ])("refuses an ElementId %s, which the runtime cannot fill", (where, input) => {
    expect(() => delegation(input)).toThrow(ValueError);
    expect(() => delegation(input)).toThrow(where);
  });

  it("refuses a bad name, an empty description, a schema that is no zod schema and a result schema it cannot check", () => {
    const input = z.object({ question: z.string() });
    expect(() => delegation(input, { name: "research the town" })).toThrow(ValueError);
    expect(() => new ToolDelegation({ name: "research", description: " ", input, build })).toThrow(/description/);
    expect(
      () => new ToolDelegation({ name: "research", description: "R.", input: { question: "string" } as never, build }),
    ).toThrow(/zod schema/);
    expect(
      () => new ToolDelegation({ name: "research", description: "R.", input, build, resultSchema: { type: "bogus" } }),
    ).toThrow(/resultSchema/);
  });

  it("is a Tool that a ToolStep tells from a plain tool, and keeps being one with other texts", async () => {
    const research = delegation(z.object({ question: z.string().describe("What to find out.") }));
    const described = research.withTexts({
      description: "Ask the researcher.",
      arguments: { question: "The question, in full." },
    });
    expect(isDelegation(research)).toBe(true);
    expect(isDelegation(described)).toBe(true);
    expect(described.spec.description).toBe("Ask the researcher.");
    expect(described.argumentDescriptions).toEqual({ question: "The question, in full." });
    expect(() => research.withTexts({ arguments: { topic: "A topic." } })).toThrow(/no argument "topic"/);
    await expect(research.invoke()).rejects.toThrow(/runs? as tasks/);
  });
});
