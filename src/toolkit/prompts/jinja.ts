/**
 * The Jinja engine of prompt files: nunjucks' parser makes the syntax tree (jinja-syntax.ts), and our
 * interpreter evaluates it (jinja-interpreter.ts) as Jinja renders plain text: nothing is escaped, a
 * value output that is undefined fails the render, and one trailing newline of a template is dropped.
 * No template is ever compiled to JavaScript. Every render runs within a budget (sandbox.ts).
 */
import { isKnownFilter as knownFilter } from "./jinja-filters.js";
import { renderTree } from "./jinja-interpreter.js";
import { parseJinja, refuseUnsafe, unsafeNodes, type JinjaNode } from "./jinja-syntax.js";
import { PromptFileError } from "./schema.js";

/** The name under which a layer's template extends the base template. */
export const BASE_TEMPLATE = "base";

/** A parsed and checked template, with the templates it may extend: what `renderTemplate` renders. */
export interface CompiledTemplate {
  /** The template's syntax tree. */
  readonly tree: JinjaNode;
  /** The templates an `extends` of it may name, parsed and checked too. */
  readonly templates: ReadonlyMap<string, JinjaNode>;
}

/**
 * Parse `source` now and check it, so that invalid Jinja and unsafe names fail here: the error names
 * `where` and the line. `templates` are those it may extend (only a template given them may `extends`).
 */
export function compileTemplate(
  source: string,
  where: string,
  templates: Readonly<Record<string, string>> = {},
): CompiledTemplate {
  const parsed = new Map<string, JinjaNode>();
  for (const [name, text] of Object.entries(templates))
    parsed.set(name, checkedTree(text, `${where} (${name})`, false));
  return { tree: checkedTree(source, where, parsed.size > 0), templates: parsed };
}

function checkedTree(source: string, where: string, allowExtends: boolean): JinjaNode {
  let tree: JinjaNode;
  try {
    tree = parseJinja(jinjaSource(source));
  } catch (error) {
    throw new PromptFileError(`${where} is not valid Jinja: ${jinjaMessage(error)}`, { cause: error });
  }
  refuseUnsafe(unsafeNodes(tree, allowExtends), where);
  return tree;
}

/** Render a compiled template with `variables`, within the render budget; errors are thrown as they come. */
export function renderTemplate(template: CompiledTemplate, variables: Readonly<Record<string, unknown>>): string {
  return renderTree({ tree: template.tree, templates: template.templates, variables });
}

/** The message of an engine error on one line, with its line and column when it has them. */
export function jinjaMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const lines = text
    .split("\n")
    .map((line) => line.replace(/^\s*Template render error:?\s*/, "").trim())
    .filter((line) => line !== "" && !/^\([^)]*\)(\s*\[Line \d+, Column \d+\])?$/.test(line));
  const position = /\[Line (\d+), Column (\d+)\]/.exec(text);
  const message = lines.join("; ") || text;
  const named =
    error instanceof Error && error.name !== "Error" && error.name !== "Template render error"
      ? `${error.name}: ${message}`
      : message;
  return position === null ? named : `${named} (line ${position[1]}, column ${position[2]})`;
}

// Jinja drops one trailing newline of a template (keep_trailing_newline=False); the parser keeps it.
function jinjaSource(source: string): string {
  return source.replace(/\r?\n$/, "");
}

/** Whether the engine has a filter of this name: Jinja refuses an unknown filter when it compiles. */
export function isKnownFilter(name: string): boolean {
  return knownFilter(name);
}
