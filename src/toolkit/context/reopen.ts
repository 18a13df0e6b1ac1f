/**
 * Reopen: the tool that shows the model again what the context policy shortened or removed. It records
 * only which elements and whole results to show; the MessageBuilder draws them from where they were recorded.
 */
import { z } from "zod";
import { Element } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import { Reopened } from "../../domain/events.js";
import type { ToolDef } from "../../ports/messages.js";
import { InvalidQueryError } from "../../ports/errors.js";
import type { Limit, Tool, ToolCallContext } from "../../runtime/contracts.js";
import { tool, type FunctionTool } from "../../runtime/tools/function-tool.js";
import { ElementId, ResultHandle } from "../../runtime/tools/ids.js";

const NOTHING_NAMED = "Name at least one element number in elements or one result handle in results.";

/** The fields of the reopen arguments: elements by number, whole results by handle. */
const REOPEN_FIELDS = {
  elements: z
    .array(ElementId(Element))
    .default([])
    .describe("The numbers of the elements to show again, such as passages that show without text."),
  results: z
    .array(ResultHandle())
    .default([])
    .describe('The handles of the results to show again whole, such as "r12".'),
};

/**
 * The arguments the model writes to reopen: element numbers and result handles. The LlmStep records the
 * real id of each element and the call id of each result. Parsing refuses arguments that name nothing or
 * hold a field of another name.
 */
export const ReopenArguments = z
  .strictObject(REOPEN_FIELDS)
  .refine((value) => value.elements.length + value.results.length > 0, NOTHING_NAMED);
/** The parsed arguments of reopen, with real ids and call ids. */
export type ReopenArguments = z.output<typeof ReopenArguments>;

/** What the model reads about reopen by default. */
export const REOPEN_DESCRIPTION =
  "Show again what was shortened or left out of earlier results to save space: elements by their numbers, such as " +
  "passages that show without text, or whole results by their handles, such as r1. Use it instead of searching again.";

/** The settings of Reopen. */
export interface ReopenOptions {
  /** The name the model calls the tool by. Default "reopen". */
  name?: string;
  /** What the model reads about the tool. */
  description?: string;
  /** The schema of the arguments the model writes: ReopenArguments, or an object schema with its elements and results fields. */
  arguments?: z.ZodObject<any>;
}

/**
 * The tool that shows the model again what a shrink shortened or removed. A ContextPolicy holds it as
 * `reopen`; the builder offers it from the first model call that shortens a result or follows a summary,
 * until the turn's tools are withdrawn. Each element shows inside its whole, each whole result under its
 * handle, cut at its tool's cap. Nothing earlier in the conversation changes.
 */
export class Reopen implements Tool {
  readonly name: string;
  readonly description: string;
  /** The schema of the arguments, with the rule that they name something. */
  readonly arguments: z.ZodObject<any>;
  readonly limit: Limit | null = null;
  readonly repeats: boolean | null = null;
  readonly unbound: readonly string[] = [];
  private readonly made: FunctionTool;

  /** @throws ValueError for a bad name or description, or arguments without elements and results fields. */
  constructor(options: ReopenOptions = {}) {
    this.name = options.name ?? "reopen";
    this.description = options.description ?? REOPEN_DESCRIPTION;
    this.arguments = options.arguments ?? ReopenArguments;
    const shape = (this.arguments as Partial<z.ZodObject<any>>).shape as Record<string, z.ZodType> | undefined;
    if (
      !(this.arguments instanceof z.ZodObject) ||
      shape === undefined ||
      !("elements" in shape) ||
      !("results" in shape)
    ) {
      throw new ValueError(
        "Reopen's arguments must be an object schema with the fields elements and results, such as ReopenArguments.",
      );
    }
    // tool() checks the name and description, and makes the definition the model reads.
    this.made = tool({
      name: this.name,
      description: this.description,
      args: shape,
      run: (values) => this.run(values as ReopenArguments),
    });
  }

  /** The strict schema of the arguments, as the tool step parses them. */
  get args(): z.ZodObject<any> {
    return this.made.args;
  }

  /** The argument descriptions the model reads, by argument name. */
  get argumentDescriptions(): Readonly<Record<string, string>> {
    return this.made.argumentDescriptions;
  }

  /** The definition offered to the model: elements hold element numbers, results hold handles. */
  def(): ToolDef {
    return this.made.def();
  }

  /** A copy with other texts. */
  withTexts(texts: { description?: string | null; arguments?: Record<string, string> }): Reopen {
    const shape = { ...(this.arguments.shape as Record<string, z.ZodType>) };
    for (const [name, text] of Object.entries(texts.arguments ?? {})) {
      const field = shape[name];
      if (field === undefined)
        throw new ValueError(
          `Tool "${this.name}" has no argument "${name}"; it has: ${Object.keys(shape).join(", ")}.`,
        );
      shape[name] = field.describe(text);
    }
    return new Reopen({
      name: this.name,
      description: texts.description ?? this.description,
      arguments: z.strictObject(shape),
    });
  }

  /** Run one call with arguments parsed and mapped to real ids, as the tool step does. */
  invoke(args: Record<string, unknown>, context: ToolCallContext): Promise<Reopened> {
    return this.made.invoke(args, context) as Promise<Reopened>;
  }

  /**
   * Record which elements and results to show again: a Reopened result that names them, with no copy of their content.
   * @throws InvalidQueryError when the arguments name nothing or do not fit: the model reads why.
   */
  run(values: ReopenArguments): Promise<Reopened> {
    const parsed = this.arguments.safeParse(values);
    const named = parsed.success ? (parsed.data as ReopenArguments) : null;
    if (named === null || named.elements.length + named.results.length === 0) {
      return Promise.reject(
        new InvalidQueryError(`The arguments of ${this.name} name nothing to show again. ${NOTHING_NAMED}`),
      );
    }
    return Promise.resolve(Reopened({ reopenedElements: [...named.elements], reopenedResults: [...named.results] }));
  }
}
