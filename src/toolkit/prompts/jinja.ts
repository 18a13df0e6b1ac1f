/**
 * The Jinja engine of prompt files: nunjucks, set up as Jinja renders plain text. Nothing is escaped, a
 * variable that the render does not get fails it, and one trailing newline of a template is dropped.
 * Jinja's filters that nunjucks lacks are added (jinja-filters.ts), and every template runs sandboxed
 * (sandbox.ts): it reads data only, and renders within a budget.
 */
import nunjucks from "nunjucks";
import { JINJA_FILTERS } from "./jinja-filters.js";
import { PromptFileError } from "./schema.js";
import { checkedSize, countStep, installSandbox, safeRange, unsafeReads, withinBudget } from "./sandbox.js";

/** The name under which a layer's template extends the base template. */
export const BASE_TEMPLATE = "base";

/** A nunjucks environment over templates held in memory, by name. */
export function jinjaEnvironment(templates: Readonly<Record<string, string>> = {}): nunjucks.Environment {
  const loader = {
    getSource(name: string) {
      const source = templates[name];
      // nunjucks reads null as "no such template" (its typings say otherwise).
      if (source === undefined) return null as unknown as nunjucks.LoaderSource;
      return { src: jinjaSource(source), path: name, noCache: false };
    },
  };
  installSandbox();
  const environment = new nunjucks.Environment(loader, { autoescape: false, throwOnUndefined: true });
  for (const [name, filter] of Object.entries(JINJA_FILTERS)) environment.addFilter(name, filter);
  // Every filter counts against the render budget, and so does the text it makes.
  const filters = (environment as unknown as { filters: Record<string, (...args: unknown[]) => unknown> }).filters;
  for (const [name, filter] of Object.entries(filters)) {
    filters[name] = function (this: unknown, ...args: unknown[]) {
      countStep();
      return checkedSize(filter.apply(this, args));
    };
  }
  environment.addGlobal("range", safeRange);
  return environment;
}

/**
 * Compile `source` now, so that invalid Jinja fails here: the error names `where`. A template that reads
 * a path to constructors or prototypes is refused too, naming the line.
 */
export function compileTemplate(environment: nunjucks.Environment, source: string, where: string): nunjucks.Template {
  let template: nunjucks.Template;
  try {
    template = new nunjucks.Template(jinjaSource(source), environment, where, true);
  } catch (error) {
    throw new PromptFileError(`${where} is not valid Jinja: ${jinjaMessage(error)}`, { cause: error });
  }
  const unsafe = unsafeReads(jinjaSource(source))[0];
  if (unsafe !== undefined) {
    throw new PromptFileError(
      `${where}, line ${unsafe.line}: the template reads "${unsafe.name}", and no prompt template may read ` +
        "constructors, prototypes or names that start with __: a prompt file is data, not code. Remove it.",
    );
  }
  return template;
}

/** Render a compiled template within the render budget (sandbox.ts): nunjucks' errors are thrown as they come. */
export function renderTemplate(template: nunjucks.Template, variables: Readonly<Record<string, unknown>>): string {
  return withinBudget(() => template.render({ ...variables }));
}

/** The message of a nunjucks error on one line, without the "Template render error" headers it stacks. */
export function jinjaMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const lines = text
    .split("\n")
    .map((line) => line.replace(/^\s*Template render error:?\s*/, "").trim())
    .filter((line) => line !== "" && !/^\([^)]*\)(\s*\[Line \d+, Column \d+\])?$/.test(line));
  const position = /\[Line (\d+), Column (\d+)\]/.exec(text);
  const message = lines.join("; ") || text;
  return position === null ? message : `${message} (line ${position[1]}, column ${position[2]})`;
}

// Jinja drops one trailing newline of a template (keep_trailing_newline=False); nunjucks keeps it.
function jinjaSource(source: string): string {
  return source.replace(/\r?\n$/, "");
}

const filters = jinjaEnvironment();

/** Whether the engine has a filter of this name: Jinja refuses an unknown filter when it compiles. */
export function isKnownFilter(name: string): boolean {
  try {
    filters.getFilter(name);
    return true;
  } catch {
    return false;
  }
}
