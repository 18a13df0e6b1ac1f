/**
 * The town documents of the tutorials: a small, frozen library with a word-overlap search. Every
 * tutorial imports it from here.
 */

/** One section of a town document. */
export interface Section {
  /** The section's id: its document's id, "#", and its index, such as "waste-collection#2". */
  readonly id: string;
  readonly document: string;
  readonly title: string;
  readonly text: string;
}

/** A frozen set of town documents. A tool can take it as a bound value: it never changes. */
export class Library {
  readonly sections: readonly Section[];

  constructor(documents: readonly { id: string; title: string; sections: readonly string[] }[]) {
    this.sections = Object.freeze(
      documents.flatMap((document) =>
        document.sections.map((text, index) =>
          Object.freeze({ id: `${document.id}#${index}`, document: document.id, title: document.title, text }),
        ),
      ),
    );
    Object.freeze(this);
  }

  /** The sections that share words with the query, the most shared words first, then in library order. */
  search(query: string): Section[] {
    const wanted = new Set(words(query));
    return this.sections
      .map((section, index) => ({
        section,
        index,
        score: words(section.text).filter((word, at, all) => wanted.has(word) && all.indexOf(word) === at).length,
      }))
      .filter((found) => found.score > 0)
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .map((found) => found.section);
  }

  /** Every section of one document, in order. */
  document(id: string): Section[] {
    return this.sections.filter((section) => section.document === id);
  }

  /** One section by its id. */
  section(id: string): Section {
    const section = this.sections.find((candidate) => candidate.id === id);
    if (!section) throw new Error(`No section "${id}" in the library.`);
    return section;
  }
}

/** Words too common to search by. */
const COMMON = new Set(
  "a an and are at be can do does for have how i in is it much my of on or the to up what when where which who".split(
    " ",
  ),
);

/** Lower-case words without common ones, a plural "s" taken off so "permits" finds "permit". */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? [])
    .filter((word) => !COMMON.has(word))
    .map((word) => (word.length > 3 && word.endsWith("s") ? word.slice(0, -1) : word));
}

/** The documents of the town of Springfield. */
export const LIBRARY = new Library([
  {
    id: "waste-collection",
    title: "Waste collection",
    sections: [
      "Residual waste is collected every Tuesday morning. Put the container on the street before 7:30.",
      "Paper and cardboard go in the blue container, which is emptied every other Friday.",
      "Bulky waste, such as furniture, is picked up after an appointment. Each household can have it picked up for free four times a year. Each extra pickup costs 25 euros.",
    ],
  },
  {
    id: "parking-permits",
    title: "Parking permits",
    sections: [
      "A resident parking permit costs 120 euros a year.",
      "Each household can have at most two resident parking permits.",
      "Apply for a permit on the town website. The permit starts on the day after the payment.",
    ],
  },
  {
    id: "dog-tax",
    title: "Dog tax",
    sections: ["The dog tax is 95 euros a year for each dog.", "Register a new dog at the town hall within two weeks."],
  },
]);
