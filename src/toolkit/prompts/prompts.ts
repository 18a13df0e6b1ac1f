/** The texts of one prompt file for one model, which PromptFile.forModel resolves. */
import { createHash } from "node:crypto";
import { canonicalJson } from "../../domain/json.js";
import type { Tool } from "../../runtime/contracts.js";
import { BASE_TEMPLATE, compileTemplate, jinjaMessage, renderTemplate, type CompiledTemplate } from "./jinja.js";
import { PromptFileError, type ToolTexts } from "./schema.js";
import { templateReads } from "./template-reads.js";

/** The fields of Prompts. */
export interface PromptsFields {
  /** The base system template, or null when the file has none. */
  template: string | null;
  /** The blocks of the template that the model's layer replaces, by block name. Empty for the base. */
  blocks?: Readonly<Record<string, string>>;
  /** The plain texts, by key: the base's, with the layer's over them. */
  texts?: Readonly<Record<string, string>>;
  /** The tool texts, by tool name: the base's, with the layer's merged over them. */
  tools?: Readonly<Record<string, ToolTexts>>;
}

/** The texts of one prompt file for one model: the system template with the layer's blocks, texts and tool texts. */
export class Prompts {
  /** The base system template, or null when the file has none. */
  readonly template: string | null;
  /** The blocks that the model's layer replaces, by block name. */
  readonly blocks: Readonly<Record<string, string>>;
  /** The plain texts, by key. */
  readonly texts: Readonly<Record<string, string>>;
  /** The tool texts, by tool name. */
  readonly tools: Readonly<Record<string, ToolTexts>>;
  /** The name of this set of texts: the first 16 hex characters of a SHA-256 of what the model reads. */
  readonly digest: string;
  /** The template that `system` renders: the base, or a template that extends it with the block overrides. */
  readonly source: string;
  private readonly compiled: CompiledTemplate | null;
  private readonly variables: readonly string[];

  constructor(fields: PromptsFields) {
    this.template = fields.template;
    this.blocks = Object.freeze({ ...fields.blocks });
    this.texts = Object.freeze({ ...fields.texts });
    this.tools = Object.freeze(
      Object.fromEntries(
        Object.entries(fields.tools ?? {}).map(([name, texts]) => [
          name,
          Object.freeze({ description: texts.description ?? null, arguments: Object.freeze({ ...texts.arguments }) }),
        ]),
      ),
    );
    if (this.template === null && Object.keys(this.blocks).length > 0) {
      throw new PromptFileError(
        `the blocks ${Object.keys(this.blocks).join(", ")} replace blocks of a system template, but there is none: ` +
          "give a template, or leave the blocks out",
      );
    }
    this.source = this.template === null ? "" : extendingSource(this.template, this.blocks);
    this.digest = createHash("sha256")
      .update(canonicalJson({ template: this.template, blocks: this.blocks, texts: this.texts, tools: this.tools }))
      .digest("hex")
      .slice(0, 16);
    if (this.template === null) {
      this.compiled = null;
      this.variables = [];
    } else {
      const bases: Record<string, string> =
        Object.keys(this.blocks).length === 0 ? {} : { [BASE_TEMPLATE]: this.template };
      this.compiled = compileTemplate(this.source, "the system template", bases);
      const base = templateReads(this.template);
      this.variables = Object.keys(this.blocks).length === 0 ? base.variables : readsWithBlocks(base, this.blocks);
    }
  }

  /**
   * Return the system prompt: the template, with the layer's blocks in it, rendered with `variables`.
   * Throws PromptFileError when the file has no system template, or the template reads a variable not given.
   */
  system(variables: Readonly<Record<string, unknown>> = {}): string {
    if (this.compiled === null) {
      throw new PromptFileError("the prompt file has no system template: add a `system` template to the file");
    }
    const missing = this.variables.filter((name) => !(name in variables) && !ALWAYS_KNOWN.has(name));
    if (missing.length > 0) {
      throw new PromptFileError(
        `the system template reads ${missing.map((name) => `"${name}"`).join(", ")}, which the render was not given`,
      );
    }
    try {
      return renderTemplate(this.compiled, variables);
    } catch (error) {
      throw new PromptFileError(`the system template failed to render: ${jinjaMessage(error)}`, { cause: error });
    }
  }

  /** Return the text under `key`, as the file writes it. Throws PromptFileError when the file defines no such text. */
  text(key: string): string {
    const text = this.texts[key];
    if (text === undefined) {
      const keys = Object.keys(this.texts);
      throw new PromptFileError(
        `the prompt file defines no text "${key}" (it defines ${keys.length === 0 ? "none" : keys.join(", ")})`,
      );
    }
    return text;
  }

  /**
   * Return `tools` in the same order, each tool the file gives texts as a copy with those texts, the others
   * as the same objects. Throws PromptFileError for texts of a tool not in `tools`, or of an argument that
   * the model does not write.
   */
  described(tools: readonly Tool[]): Tool[] {
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const problems: string[] = [];
    for (const [name, texts] of Object.entries(this.tools)) {
      const tool = byName.get(name);
      if (tool === undefined) {
        problems.push(
          `texts for tool "${name}", which the agent does not have (its tools: ${[...byName.keys()].join(", ") || "none"})`,
        );
        continue;
      }
      const written = Object.keys(tool.args.shape);
      for (const argument of Object.keys(texts.arguments)) {
        if (!written.includes(argument)) {
          problems.push(
            `texts for argument "${argument}" of tool "${name}", which the model does not write (it writes ${written.join(", ") || "none"})`,
          );
        }
      }
    }
    if (problems.length > 0) throw new PromptFileError(`the prompt file gives ${problems.join("; and ")}`);
    return tools.map((tool) => {
      const texts = this.tools[tool.name];
      return texts === undefined
        ? tool
        : tool.withTexts({ description: texts.description, arguments: { ...texts.arguments } });
    });
  }
}

/** Names that Jinja always resolves without the render giving them. */
export const ALWAYS_KNOWN: ReadonlySet<string> = new Set(["super", "self", "range", "cycler", "joiner"]);

// The template of a layer: the base, extended with each block override.
function extendingSource(template: string, blocks: Readonly<Record<string, string>>): string {
  const names = Object.keys(blocks);
  if (names.length === 0) return template;
  const overrides = names.map((name) => `{% block ${name} %}${blocks[name]}{% endblock %}`);
  return [`{% extends "${BASE_TEMPLATE}" %}`, ...overrides].join("\n");
}

// The variables a layer's render reads: the base template's, and each override's own (they may use the base's sets).
function readsWithBlocks(base: ReturnType<typeof templateReads>, blocks: Readonly<Record<string, string>>): string[] {
  const variables = new Set(base.variables);
  for (const block of Object.values(blocks)) {
    for (const name of templateReads(block).variables) if (!base.assigned.includes(name)) variables.add(name);
  }
  return [...variables];
}
