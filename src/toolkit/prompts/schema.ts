/**
 * The shape of a prompt file: strict zod schemas, so a misspelt field is refused instead of dropped; and
 * the error of a file that does not fit.
 */
import { z } from "zod";
import { CallerError } from "../../domain/errors.js";

/**
 * A prompt file that does not fit its agent, or a model layer that does not fit the file's base: a wrong
 * shape, invalid Jinja, an unknown variable, block, text, tool or argument. The caller's fault: fix the file.
 */
export class PromptFileError extends CallerError {}

/** What the model reads of one tool: its description and its arguments' descriptions. Unknown fields are refused. */
export const ToolTexts = z.strictObject({
  /** The tool's description, or null to keep the tool's own. */
  description: z.string().nullable().default(null),
  /** The description of each argument, by argument name. */
  arguments: z.record(z.string(), z.string()).default({}),
});

/** What the model reads of one tool, as parsed. */
export type ToolTexts = z.output<typeof ToolTexts>;

/**
 * The overrides of a prompt file for a group of models, which `endpoints` names (at least one). A layer
 * replaces only blocks and texts that the base defines; its tool texts merge over the base's.
 */
export const ModelLayer = z.strictObject({
  /** The endpoint ids of the models that the layer applies to. */
  endpoints: z.array(z.string().min(1)).min(1),
  /** The blocks of the system template that the layer replaces, by block name; `{{ super() }}` extends the base's. */
  blocks: z.record(z.string(), z.string()).default({}),
  /** The texts that the layer replaces, by key. */
  texts: z.record(z.string(), z.string()).default({}),
  /** Tool texts by tool name: a description replaces the base's, argument texts are added over the base's. */
  tools: z.record(z.string(), ToolTexts).default({}),
});

/** The overrides of a prompt file for a group of models, as parsed. */
export type ModelLayer = z.output<typeof ModelLayer>;

/** The fields of a prompt file, as its YAML document writes them. */
export const PromptFileFields = z.strictObject({
  /** The system prompt as a Jinja template, or null when the file has none. */
  system: z.string().nullable().default(null),
  /** Plain texts, by key. */
  texts: z.record(z.string(), z.string()).default({}),
  /** Texts that replace a tool's own description and argument descriptions, by tool name. */
  tools: z.record(z.string(), ToolTexts).default({}),
  /** The model layers. */
  models: z.array(ModelLayer).default([]),
});

/** The fields of a prompt file before parsing: every field but a layer's endpoints may be left out. */
export type PromptFileInput = z.input<typeof PromptFileFields>;
