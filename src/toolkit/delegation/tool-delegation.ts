/** ToolDelegation: a tool that the parent's model calls to hand off a task, one task per call. */
import { z } from "zod";
import { ValueError } from "../../domain/errors.js";
import type { Event, TaskInput, ToolOutput } from "../../domain/events.js";
import type { JsonValue } from "../../domain/json.js";
import type { Trace } from "../../domain/trace.js";
import type { ToolDef } from "../../ports/messages.js";
import type { Limit } from "../../runtime/contracts.js";
import type { Delegation } from "../../runtime/tools/delegation.js";
import type { Graph } from "../../runtime/graph.js";
import { argumentsSchema, toolDef } from "../../runtime/tools/tool-def.js";
import { delegationArguments } from "./arguments.js";
import { handBackEvent, type TaskResult } from "./hand-back.js";
import { handOffEvents } from "./hand-offs.js";

/** The settings of a ToolDelegation. */
export interface ToolDelegationOptions<I> {
  /** The name that the parent's model calls the delegation by: letters, digits, "_" and "-", at most 64. */
  name: string;
  /** What the parent's model reads about the delegation. */
  description: string;
  /** The zod schema of the task's input. Its fields are the arguments; any other schema is the one `input` argument. */
  input: z.ZodType<I>;
  /** Builds a task's graph from the parsed input and the model that the task names (null when it names none). */
  build: (input: I, model: string | null) => Graph;
  /** Reads the task's result from its stream's trace after it ended. Default: the content of its last event when that is a ModelOutput, else null. */
  result?: TaskResult | null;
  /** The JSON Schema that each result must fit, or null for any result. */
  resultSchema?: Record<string, JsonValue> | null;
  /** The descriptions the model reads of the arguments, by name, in place of those of the input's fields. */
  argumentDescriptions?: Record<string, string>;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A tool that the parent's model calls to hand off a task: each call runs as a task on a stream of its own,
 * on the graph that `build` makes for its input and model, and its result comes back as the call's
 * ToolOutput. Put it in the tools of the parent's tool step (ReActConfig.tools); its `spec` is what the
 * parent's model is offered. A task that names no model runs on the model of the parent's latest input.
 *
 * The model is shown the input's fields as the arguments. An ElementId field is shown as the number of an
 * element of its type, which the parent's LlmStep turns into the element's real id. An input that is not
 * an object is shown under one `input` argument. A call whose arguments do not fit gets an error as its
 * result and starts no task.
 */
export class ToolDelegation<I = unknown> implements Delegation {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<I>;
  /** Builds a task's graph from the parsed input and the model that the task names (null when it names none). */
  readonly build: (input: I, model: string | null) => Graph;
  readonly result: TaskResult | null;
  readonly resultSchema: Record<string, JsonValue> | null;
  /** The arguments the parent's model writes, ElementId fields included. */
  readonly args: z.ZodObject<any, z.core.$strict>;
  readonly limit: Limit | null = null;
  readonly repeats: boolean | null = null;
  readonly unbound: readonly string[] = Object.freeze([]);
  readonly argumentDescriptions: Readonly<Record<string, string>>;
  /** The definition of the delegation that the parent's model is offered. */
  readonly spec: ToolDef;
  private readonly options: ToolDelegationOptions<I>;
  private readonly wrapped: boolean;

  /**
   * @throws ValueError for a bad name, description, input, build, result or resultSchema, an argument
   *   description of no argument, an input without a JSON Schema, or an ElementId field the runtime cannot
   *   fill: inside another object, inside a collection other than an array, or in a union other than with null.
   */
  constructor(options: ToolDelegationOptions<I>) {
    const { name, description, input, build } = options;
    if (typeof name !== "string" || !NAME.test(name)) {
      throw new ValueError(
        `A delegation's name must be 1 to 64 letters, digits, "_" or "-", not ${JSON.stringify(name)}.`,
      );
    }
    if (typeof description !== "string" || description.trim() === "")
      throw new ValueError(`ToolDelegation "${name}" needs a description the model reads.`);
    if (!(input instanceof z.ZodType))
      throw new ValueError(
        `ToolDelegation "${name}": input must be a zod schema, such as z.object({ question: z.string() }).`,
      );
    if (typeof build !== "function")
      throw new ValueError(
        `ToolDelegation "${name}" needs a build function from the task's input and model to a Graph.`,
      );
    const result = options.result ?? null;
    if (result !== null && typeof result !== "function")
      throw new ValueError(`ToolDelegation "${name}": result must be a function of the task's trace, or null.`);
    const resultSchema = options.resultSchema ?? null;
    checkResultSchema(name, resultSchema);
    const { args, wrapped } = delegationArguments(name, input);
    this.options = options;
    this.name = name;
    this.description = description;
    this.input = input;
    this.build = build;
    this.result = result;
    this.resultSchema = resultSchema;
    this.wrapped = wrapped;
    this.args = described(name, args, options.argumentDescriptions ?? {});
    const parameters = parametersOf(name, this.args);
    const properties = (parameters.properties ?? {}) as Record<string, { description?: unknown }>;
    this.argumentDescriptions = Object.freeze(
      Object.fromEntries(
        Object.entries(properties).flatMap(([field, property]) =>
          typeof property.description === "string" ? [[field, property.description]] : [],
        ),
      ),
    );
    this.spec = toolDef(this, parameters);
  }

  /** The definition offered to the parent's model: `spec`. */
  def(): ToolDef {
    return this.spec;
  }

  /** A copy with other texts: a new description and argument descriptions (a PromptFile's texts). */
  withTexts(texts: { description?: string | null; arguments?: Record<string, string> }): ToolDelegation<I> {
    return new ToolDelegation({
      ...this.options,
      description: texts.description ?? this.description,
      argumentDescriptions: { ...this.options.argumentDescriptions, ...texts.arguments },
    });
  }

  /**
   * Build the graph of the task that `task` heads: `build` with its payload parsed into `input` and the
   * model it names.
   * @throws ValueError when the payload no longer fits `input` (the input type changed since the hand-off).
   */
  graphFor(task: TaskInput): Graph {
    const parsed = this.input.safeParse(task.payload);
    if (!parsed.success) {
      throw new ValueError(
        `The task of call "${task.callId}" has a payload that does not fit the input of ${this.name}: ${parsed.error.issues[0]?.message ?? "invalid"}.`,
      );
    }
    return this.build(parsed.data, task.model);
  }

  /**
   * One event for each call of this delegation in the parent stream's latest model output, in call order:
   * a TaskInput on the call's own stream (recording the call's id and the schema its result must fit), or a
   * ToolOutput with the reason as its error for a call whose arguments do not fit, which starts no task.
   */
  handOffs(parent: Trace): Event[] {
    return handOffEvents(
      { name: this.name, input: this.input, args: this.args, wrapped: this.wrapped, expects: this.resultSchema },
      parent,
    );
  }

  /**
   * The result of the task whose stream's trace is `child`, after it ended: one ToolOutput linked to the
   * call by its id. See handBackEvent for what it holds.
   */
  handBack(child: Trace): Event[] {
    return [handBackEvent(this.name, child, this.result)];
  }

  /** Never called: a delegation's calls run as tasks. It throws, so code that runs it as a plain tool fails clearly. */
  invoke(): Promise<ToolOutput> {
    return Promise.reject(
      new ValueError(`${this.name} is a ToolDelegation: its calls run as tasks in a ToolStep, not through invoke.`),
    );
  }
}

function checkResultSchema(name: string, schema: Record<string, JsonValue> | null): void {
  if (schema === null) return;
  if (typeof schema !== "object" || Array.isArray(schema))
    throw new ValueError(`ToolDelegation "${name}": resultSchema must be a JSON Schema object, or null.`);
  try {
    z.fromJSONSchema(schema as z.core.JSONSchema.JSONSchema);
  } catch (error) {
    throw new ValueError(
      `ToolDelegation "${name}": resultSchema is not a JSON Schema that can be checked (${(error as Error).message}).`,
      { cause: error },
    );
  }
}

function described(
  name: string,
  args: z.ZodObject<any, z.core.$strict>,
  texts: Record<string, string>,
): z.ZodObject<any, z.core.$strict> {
  if (Object.keys(texts).length === 0) return args;
  const shape: Record<string, z.ZodType> = { ...(args.shape as Record<string, z.ZodType>) };
  for (const [field, text] of Object.entries(texts)) {
    const schema = shape[field];
    if (schema === undefined)
      throw new ValueError(
        `ToolDelegation "${name}" has no argument "${field}"; it has: ${Object.keys(shape).join(", ") || "none"}.`,
      );
    shape[field] = schema.describe(text);
  }
  return z.strictObject(shape);
}

function parametersOf(name: string, args: z.ZodObject<any>): Record<string, JsonValue> {
  try {
    return argumentsSchema(args);
  } catch (error) {
    throw new ValueError(
      `ToolDelegation "${name}": its input has no JSON Schema (${(error as Error).message}). Use fields that JSON can hold.`,
      { cause: error },
    );
  }
}
