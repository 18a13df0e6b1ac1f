/** Tutorial 2: the town documents as elements, a search tool and a tool that takes an element number. */
import { z } from "zod";
import { ToolOutput, referenceType, sourceType } from "../../../src/domain/index.js";
import { ElementId, Recorded, atMost, bound, tool } from "../../../src/runtime/index.js";
import type { Library, Section } from "../01-first-agent/library.js";

/** A town document: the model can name it by number, but not cite it. */
export const Document = referenceType("document", { title: z.string() });

/** A passage of a document: the model read it and can cite it. */
export const Passage = sourceType("passage");

/** A section of the library as the document it is part of. */
export function asDocument(section: Section) {
  return Document({ id: section.document, title: section.title });
}

/** A section of the library as a passage. */
export function asPassage(section: Section) {
  return Passage({ id: section.id, ref: section.document, text: section.text });
}

/** Search the town documents; leave out passages the turn showed already; at most two searches a turn. */
export const search = tool({
  name: "search",
  description:
    "Search the town documents for passages. Returns the passages and the documents that they are part " +
    "of. Use it to find the facts for each answer.",
  args: { query: z.string().min(1).describe("Words to look for in the town documents.") },
  bound: { library: bound<Library>() },
  recorded: { seen: Recorded(Passage) },
  limit: atMost(2, { calls: "search", error: "You searched twice. Answer with what you found." }),
  async run({ query, library, seen }) {
    const shown = new Set(seen.map((passage) => passage.id));
    const found = library.search(query).filter((section) => !shown.has(section.id));
    if (found.length === 0)
      return ToolOutput({ error: "No new passages for these words. Try other words, or answer with what you found." });
    const documents = new Map(found.map((section) => [section.document, asDocument(section)]));
    return ToolOutput({ elements: [...documents.values(), ...found.map(asPassage)] });
  },
});

/** Read every passage of one document, named by its number. */
export const readDocument = tool({
  name: "read_document",
  description: "Read all passages of one document. Use it when the passages that search found are not enough.",
  args: { document: ElementId(Document).describe("The number of a document that search found.") },
  bound: { library: bound<Library>() },
  async run({ document, library }) {
    const sections = library.document(document);
    return ToolOutput({ elements: [asDocument(sections[0]!), ...sections.map(asPassage)] });
  },
});
