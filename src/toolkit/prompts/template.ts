/** The system prompt as a function of the turn, and `promptTemplate`, which makes one from a text. */

/**
 * A function that writes the system prompt of a turn. It gets the parsed input of the turn, and an example
 * of the citations of the model about to be called (such as "[1]"), or null when the model does not cite.
 */
export type Prompt<T = unknown> = (turn: T, citation: string | null) => string;

/** A Prompt that `promptTemplate` made: it also says which fields of the turn it reads. */
export type TemplatePrompt = Prompt & {
  /** The template it writes. */
  readonly template: string;
  /** The fields of the turn that the template reads: ["context"] when it holds {context}, else none. */
  readonly reads: readonly string[];
};

// One regex over the template: text that the turn brings is never scanned again for placeholders.
const PLACEHOLDER = /\{(citation|context)\}/g;

/**
 * Return a prompt that writes `template` with the citation example and the turn's context in it.
 *
 * `{citation}` becomes the example of the model's citations; `{context}` becomes the turn's `context`
 * field, trimmed. Each is empty when it is null. A ReActAgent whose input type has no `context` field
 * refuses a template with `{context}` (it reads `reads`), rather than write nothing silently. Other braces
 * stay; the result is trimmed.
 */
export function promptTemplate(template: string): TemplatePrompt {
  const reads = template.includes("{context}") ? ["context"] : [];
  const prompt = (turn: unknown, citation: string | null): string =>
    template
      .replace(PLACEHOLDER, (_match, name: string) => (name === "citation" ? (citation ?? "") : contextOf(turn)))
      .trim();
  return Object.assign(prompt, { template, reads: Object.freeze(reads) });
}

function contextOf(turn: unknown): string {
  if (turn === null || typeof turn !== "object") return "";
  const context = (turn as { context?: unknown }).context;
  return typeof context === "string" ? context.trim() : "";
}
