// The tool tests' town: tutorial 2's element types on a smaller library, and search and read_document
// with the short texts that the tests assert.
import { z } from "zod";
import { ToolOutput, type Event } from "../../../src/domain/events.js";
import { Trace, turnEvents } from "../../../src/domain/trace.js";
import type { ToolCallContext } from "../../../src/runtime/contracts.js";
import { ElementId, Recorded, atMost, bound, tool } from "../../../src/runtime/index.js";
import type { Section } from "../../../examples/tutorials/01-first-agent/library.js";
import { Document, Passage, asDocument, asPassage } from "../../../examples/tutorials/02-citations/tools.js";

export { Document, Passage, asDocument, asPassage };

/** A library whose fields never change: the value that tools get bound to. */
export class Library {
  readonly sections: readonly Section[];

  constructor(sections: readonly Section[]) {
    this.sections = Object.freeze(sections.map((section) => Object.freeze({ ...section })));
    Object.freeze(this);
  }

  search(query: string): Section[] {
    const words = query.toLowerCase().split(/\s+/);
    const score = (section: Section) => words.filter((word) => section.text.toLowerCase().includes(word)).length;
    return this.sections.filter((section) => score(section) > 0).sort((a, b) => score(b) - score(a));
  }

  document(id: string): Section[] {
    return this.sections.filter((section) => section.document === id);
  }
}

export const LIBRARY = new Library([
  {
    id: "waste-collection#0",
    document: "waste-collection",
    title: "Waste collection",
    text: "Residual waste is collected every Tuesday morning.",
  },
  {
    id: "waste-collection#2",
    document: "waste-collection",
    title: "Waste collection",
    text: "Bulky waste is picked up four times a year.",
  },
  { id: "dog-tax#0", document: "dog-tax", title: "Dog tax", text: "Each dog costs 120 euros a year." },
  { id: "dog-tax#1", document: "dog-tax", title: "Dog tax", text: "A guide dog costs nothing." },
]);

export const search = tool({
  name: "search",
  description: "Search the town documents for passages.",
  args: { query: z.string().min(1).describe("Words to look for in the town documents.") },
  bound: { library: bound<Library>() },
  recorded: { seen: Recorded(Passage) },
  limit: atMost(2, { calls: "search", error: "You searched twice. Answer with what you found." }),
  run: async ({ query, library, seen }) => {
    const shown = new Set(seen.map((passage) => passage.id));
    const found = library.search(query).filter((section) => !shown.has(section.id));
    if (found.length === 0) return ToolOutput({ error: "No new passages for these words." });
    const documents = new Map(found.map((section) => [section.document, asDocument(section)]));
    return ToolOutput({ elements: [...documents.values(), ...found.map(asPassage)] });
  },
});

export const readDocument = tool({
  name: "read_document",
  description: "Read all passages of one document.",
  args: { document: ElementId(Document).describe("The number of a document that search found.") },
  bound: { library: bound<Library>() },
  run: async ({ document, library }) => {
    const sections = library.document(document);
    return ToolOutput({ elements: [asDocument(sections[0]!), ...sections.map(asPassage)] });
  },
});

/** The context of one call: the whole trace, and the running turn (from the last input). */
export function contextOf(events: readonly Event[], callId: string, repeats?: boolean): ToolCallContext {
  const trace = Trace.of(events);
  const turn = turnEvents(events);
  return repeats === undefined ? { trace, turn, callId } : { trace, turn, callId, repeats };
}

/** The elements of a search for "bulky waste": document 1, passages 2 and 3 (numbers in a fresh thread). */
export const FIRST_RESULT = [
  asDocument(LIBRARY.sections[0]!),
  asPassage(LIBRARY.sections[1]!),
  asPassage(LIBRARY.sections[0]!),
];
