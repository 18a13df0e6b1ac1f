/** A prompt file: every text that an agent's models read, with a layer of overrides per group of models. */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { compileTemplate, isKnownFilter } from "./jinja.js";
import { PromptFileError, type ModelLayer, PromptFileFields, type PromptFileInput, type ToolTexts } from "./schema.js";
import { ALWAYS_KNOWN, Prompts } from "./prompts.js";
import { templateReads, type TemplateReads } from "./template-reads.js";

/**
 * One agent's prompts: a Jinja system template, plain texts and tool texts, with a layer of overrides per
 * group of models. A layer replaces blocks of the template (or extends them with `{{ super() }}`) and texts
 * that the base defines, and merges tool texts over the base's. Tool and argument names are checked when
 * the texts are applied (`Prompts.described`), because only the agent knows its tools.
 *
 * Construction validates everything and throws PromptFileError naming the file: another shape (unknown
 * fields included), invalid Jinja, an unknown filter, a layer that replaces a block or a text the base
 * does not define, or two layers that name one endpoint.
 *
 * @example
 * ```ts
 * import type { ChatModel } from "soev-agents/ports";
 * import { PromptFile, ReActConfig } from "soev-agents/toolkit";
 *
 * declare const model: ChatModel;
 * const prompt = await PromptFile.load("prompts/assistant.yaml");
 * const config = new ReActConfig({ model, prompt });
 * console.log(prompt.forModel("gpt-4.1-mini").system);
 * ```
 */
export class PromptFile {
  /** The system prompt as a Jinja template (plain text: nothing is escaped), or null when the file has none. */
  readonly system: string | null;
  /** Plain texts, by key. Their placeholders are filled by the code that reads them. */
  readonly texts: Readonly<Record<string, string>>;
  /** Texts that replace a tool's own description and argument descriptions, by tool name. */
  readonly tools: Readonly<Record<string, ToolTexts>>;
  /** The model layers. */
  readonly models: readonly ModelLayer[];
  /** The names of the system template's blocks. */
  readonly blocks: ReadonlySet<string>;
  /** Every endpoint that a model layer names. */
  readonly endpoints: ReadonlySet<string>;
  /** Where the file came from (its path, or a name given to `parse`): error messages name it. */
  readonly origin: string;
  private readonly reads: TemplateReads | null;
  // Prompts by layer index (-1 for the base): a model call asks for them at each call.
  private readonly resolved = new Map<number, Prompts>();

  constructor(fields: PromptFileInput, origin = "the prompt file") {
    this.origin = origin;
    const parsed = PromptFileFields.safeParse(fields);
    if (!parsed.success) {
      throw new PromptFileError(
        `${origin} does not have the shape of a prompt file:\n${z.prettifyError(parsed.error)}`,
        {
          cause: parsed.error,
        },
      );
    }
    const { system, texts, tools, models } = parsed.data;
    this.reads = system === null ? null : this.checkedTemplate(system, "the system template");
    const blocks = new Set(this.reads?.blocks ?? []);
    const endpoints = new Map<string, number>();
    models.forEach((layer, index) => {
      const where = `model layer ${index + 1} (${layer.endpoints.join(", ")})`;
      for (const [name, block] of Object.entries(layer.blocks)) {
        if (!blocks.has(name)) {
          this.refuse(
            `${where} replaces block "${name}", which the base system template does not define (${listed(blocks)})`,
          );
        }
        this.checkedTemplate(block, `block "${name}" of ${where}`);
      }
      for (const key of Object.keys(layer.texts)) {
        if (!(key in texts))
          this.refuse(
            `${where} replaces text "${key}", which the base does not define (${listed(Object.keys(texts))})`,
          );
      }
      for (const endpoint of layer.endpoints) {
        const other = endpoints.get(endpoint);
        if (other !== undefined && other !== index) {
          this.refuse(
            `${where} names endpoint "${endpoint}", which model layer ${other + 1} names already: an endpoint belongs to one layer`,
          );
        }
        endpoints.set(endpoint, index);
      }
    });
    this.system = system;
    this.texts = Object.freeze(texts);
    this.tools = Object.freeze(tools);
    this.models = Object.freeze(models);
    this.blocks = blocks;
    this.endpoints = new Set(endpoints.keys());
  }

  /** Load the prompt file at `path`, a YAML document in UTF-8. */
  static async load(path: string): Promise<PromptFile> {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      throw new PromptFileError(`cannot read the prompt file ${path}: ${(error as Error).message}`, { cause: error });
    }
    return PromptFile.parse(text, path);
  }

  /** Load the prompt file at `path` synchronously, for code that builds its config at startup. */
  static loadSync(path: string): PromptFile {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new PromptFileError(`cannot read the prompt file ${path}: ${(error as Error).message}`, { cause: error });
    }
    return PromptFile.parse(text, path);
  }

  /** Parse a prompt file from YAML text; `origin` names it in error messages. An empty document is an empty file. */
  static parse(text: string, origin = "the prompt file"): PromptFile {
    let document: unknown;
    try {
      document = parseYaml(text);
    } catch (error) {
      throw new PromptFileError(`${origin} is not valid YAML: ${(error as Error).message}`, { cause: error });
    }
    return new PromptFile((document ?? {}) as PromptFileInput, origin);
  }

  /**
   * Refuse a system template or block override that reads a variable outside `known`, so that a renamed
   * variable fails when the agent is built, not mid-chat. `super` and `self` are always allowed.
   */
  checkVariables(known: Iterable<string>): void {
    const allowed = new Set([...known, ...ALWAYS_KNOWN]);
    const unknown = (reads: string[]) => reads.filter((name) => !allowed.has(name));
    const problems: string[] = [];
    if (this.reads !== null) {
      const base = unknown(this.reads.variables);
      if (base.length > 0) problems.push(`the system template reads ${quoted(base)}`);
    }
    this.models.forEach((layer, index) => {
      for (const [name, block] of Object.entries(layer.blocks)) {
        const reads = unknown(templateReads(block).variables).filter(
          (variable) => !this.reads?.assigned.includes(variable),
        );
        if (reads.length > 0)
          problems.push(
            `block "${name}" of model layer ${index + 1} (${layer.endpoints.join(", ")}) reads ${quoted(reads)}`,
          );
      }
    });
    if (problems.length > 0) {
      const names = [...known];
      throw new PromptFileError(
        `${this.origin}: ${problems.join("; ")}, but the agent supplies only ${names.length === 0 ? "no variables" : quoted(names)}`,
      );
    }
  }

  /** Return the texts that `model` reads: the base, with the layer that names `model` over it. A model no layer names (or null) gets the base. */
  forModel(model?: string | null): Prompts {
    const layer = model == null ? undefined : this.models.find((candidate) => candidate.endpoints.includes(model));
    const key = layer === undefined ? -1 : this.models.indexOf(layer);
    let prompts = this.resolved.get(key);
    if (prompts === undefined) {
      prompts = this.resolve(layer);
      this.resolved.set(key, prompts);
    }
    return prompts;
  }

  private resolve(layer: ModelLayer | undefined): Prompts {
    if (layer === undefined) return new Prompts({ template: this.system, texts: this.texts, tools: this.tools });
    const tools: Record<string, ToolTexts> = { ...this.tools };
    for (const [name, texts] of Object.entries(layer.tools)) {
      const base = tools[name];
      tools[name] = {
        description: texts.description ?? base?.description ?? null,
        arguments: { ...base?.arguments, ...texts.arguments },
      };
    }
    return new Prompts({
      template: this.system,
      blocks: layer.blocks,
      texts: { ...this.texts, ...layer.texts },
      tools,
    });
  }

  // Compile a template now (invalid Jinja fails at load), and check its filters exist.
  private checkedTemplate(source: string, what: string): TemplateReads {
    compileTemplate(source, `${what} in ${this.origin}`);
    const reads = templateReads(source);
    const unknownFilters = reads.filters.filter((name) => !isKnownFilter(name));
    if (unknownFilters.length > 0) this.refuse(`${what} applies the unknown filter ${quoted(unknownFilters)}`);
    return reads;
  }

  private refuse(problem: string): never {
    throw new PromptFileError(`${this.origin}: ${problem}`);
  }
}

function quoted(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}

function listed(names: Iterable<string>): string {
  const all = [...names];
  return all.length === 0 ? "it defines none" : `it defines ${quoted(all)}`;
}
