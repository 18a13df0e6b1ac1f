/**
 * FunctionTool: a tool made of one async function. The function stays callable, so a test calls the tool
 * without a model: `await search({ query: "bulky waste", library: LIBRARY, seen: [] })`.
 */
import { z } from "zod";
import { ValueError } from "../../domain/errors.js";
import type { Element, ElementType } from "../../domain/elements.js";
import type { ToolOutput } from "../../domain/events.js";
import type { JsonValue } from "../../domain/json.js";
import type { ToolDef } from "../../ports/messages.js";
import type { Limit, Tool, ToolCallContext } from "../contracts.js";
import { checkBindable, isBound, unboundError, type Bound, type BoundValues } from "./bound.js";
import { isRecorded, recordedValues, type Recorded, type RecordedValues } from "./recorded.js";
import { argumentsSchema, toolDef } from "./tool-def.js";
import type { Ask } from "./asking.js";

/** The arguments the model writes, as the tool's function gets them (parsed, with defaults). */
export type ToolArguments<A extends z.ZodRawShape> = z.output<z.ZodObject<A>>;

/** What a tool's function gets besides its input: the call's id and `ask`, to ask a person mid-call. */
export interface ToolRunContext {
  /** The id of the call, or null when a test calls the tool directly. */
  callId: string | null;
  /** Ask a person (see Question). A test that calls the tool directly passes its own. */
  ask: Ask;
  /** Aborts the call. */
  signal?: AbortSignal;
  /** Tells the runner the call is alive (a Temporal activity heartbeat). */
  heartbeat?: () => void;
}

/** What `tool` takes. */
export interface ToolSpec<
  A extends z.ZodRawShape,
  B extends Record<string, Bound<any>>,
  R extends Record<string, Recorded<any>>,
> {
  /** The name the model calls the tool by: letters, digits, "_" and "-", at most 64. */
  name: string;
  /** What the model reads about the tool. */
  description: string;
  /** The zod fields the model writes; their `.describe()` texts are the descriptions the model reads. */
  args?: A;
  /** The values the application's code gives with `.bind({...})`, such as `{ library: bound<Library>() }`. */
  bound?: B;
  /** The values the runtime fills from the running turn before each call, such as `{ seen: Recorded(Passage) }`. */
  recorded?: R;
  /** The tool's per-turn limit, such as `atMost(2, { calls: "search", error: "..." })`. Default none. */
  limit?: Limit | null;
  /** Whether a call identical to an earlier successful call of the turn runs again; null or absent follows the agent. */
  repeats?: boolean | null;
  /**
   * Whether a call waits for a person's approval before it runs: always (true), never (false, the default),
   * or as a function of the call's arguments says. Denied, the model reads that it was denied and why.
   */
  needsApproval?: boolean | ((args: ToolArguments<A>) => boolean);
  /** Whether a server lists the tool's definition, such as an MCP server's tool (see Tool.listed). Default false. */
  listed?: boolean;
  /** The function: one object with the arguments, the bound values and the Recorded values; then the call's context. */
  run: (input: ToolArguments<A> & BoundValues<B> & RecordedValues<R>, context: ToolRunContext) => Promise<ToolOutput>;
}

/**
 * A tool made by `tool`. Call it with every value as one object to run it without a model. `B` are the
 * values still to bind, `R` the Recorded values (plain arrays in a test).
 */
export interface FunctionTool<
  A extends z.ZodRawShape = z.ZodRawShape,
  B = Record<string, unknown>,
  R = Record<string, readonly Element[]>,
> extends Tool {
  (input: ToolArguments<A> & B & R, context?: Partial<ToolRunContext>): Promise<ToolOutput>;
  readonly args: z.ZodObject<A, z.core.$strict>;
  /** The element type of each Recorded value, by name. */
  readonly recorded: Readonly<Record<string, ElementType<any, any>>>;
  /** The names of every bound value, bound or not. */
  readonly boundNames: readonly string[];
  /**
   * A new tool with the same name, description and limit and these values bound. Refuses a name the tool
   * does not declare and a value that can change between calls (see checkBindable); class instances are not checked.
   */
  bind<K extends keyof B & string>(values: Pick<B, K>): FunctionTool<A, Omit<B, K>, R>;
  withTexts(texts: { description?: string | null; arguments?: Record<string, string> }): FunctionTool<A, B, R>;
}

interface ToolState {
  name: string;
  description: string;
  args: z.ZodObject<any, z.core.$strict>;
  parameters: Record<string, JsonValue>;
  boundNames: readonly string[];
  values: Readonly<Record<string, unknown>>;
  recorded: Readonly<Record<string, Recorded<Element>>>;
  limit: Limit | null;
  repeats: boolean | null;
  needsApproval: (args: Record<string, unknown>) => boolean;
  listed: boolean;
  run: (input: Record<string, unknown>, context: ToolRunContext) => Promise<ToolOutput>;
}

/** No fields: the default of a tool that declares no args, bound or recorded values. */
type Empty = Record<never, never>;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Make a FunctionTool. Bad settings fail here, before any model call.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { sourceType, ToolOutput } from "soev-agents/domain";
 * import { atMost, bound, Recorded, tool } from "soev-agents/runtime";
 *
 * const Passage = sourceType("passage");
 * const search = tool({
 *   name: "search",
 *   description: "Search the documents for passages.",
 *   args: { query: z.string().min(1).describe("Words to look for.") },
 *   bound: { index: bound<{ find(query: string): { id: string; text: string }[] }>() },
 *   recorded: { seen: Recorded(Passage) },
 *   limit: atMost(2, { calls: "search", error: "You searched twice. Answer with what you found." }),
 *   async run({ query, index, seen }) {
 *     const shown = new Set(seen.map((passage) => passage.id));
 *     const found = index.find(query).filter((hit) => !shown.has(hit.id));
 *     return ToolOutput({ elements: found.map((hit) => Passage(hit)) });
 *   },
 * });
 * // A test calls it without a model; an agent gets it bound: search.bind({ index }).
 * const output = await search({ query: "permit", index: { find: () => [] }, seen: [] });
 * ```
 */
export function tool<
  A extends z.ZodRawShape = Empty,
  B extends Record<string, Bound<any>> = Empty,
  R extends Record<string, Recorded<any>> = Empty,
>(spec: ToolSpec<A, B, R>): FunctionTool<A, BoundValues<B>, RecordedValues<R>> {
  const name = spec.name;
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new ValueError(`A tool's name must be 1 to 64 letters, digits, "_" or "-", not ${JSON.stringify(name)}.`);
  }
  if (typeof spec.description !== "string" || spec.description.trim() === "")
    throw new ValueError(`Tool "${name}" needs a description the model reads.`);
  if (typeof spec.run !== "function") throw new ValueError(`Tool "${name}" needs a run function.`);
  const shape = spec.args ?? {};
  const boundDeclarations = spec.bound ?? {};
  const recorded = spec.recorded ?? {};
  const taken = new Set<string>();
  const groups = [
    { group: "args", fields: shape, fits: (value: unknown) => value instanceof z.ZodType, expected: "a zod schema" },
    { group: "bound", fields: boundDeclarations, fits: isBound, expected: "bound<T>()" },
    { group: "recorded", fields: recorded, fits: isRecorded, expected: "Recorded(Type)" },
  ];
  for (const { group, fields, fits, expected } of groups) {
    for (const [field, value] of Object.entries(fields)) {
      if (taken.has(field))
        throw new ValueError(`Tool "${name}" declares "${field}" twice: args, bound and recorded need distinct names.`);
      if (!fits(value)) throw new ValueError(`Tool "${name}": ${group}.${field} must be ${expected}.`);
      taken.add(field);
    }
  }
  const limit = spec.limit ?? null;
  if (limit !== null && typeof limit.check !== "function")
    throw new ValueError(`Tool "${name}": limit must be a Limit, such as atMost(2, {...}).`);
  const repeats = spec.repeats ?? null;
  if (repeats !== null && typeof repeats !== "boolean")
    throw new ValueError(`Tool "${name}": repeats must be true, false or null.`);
  const approval = spec.needsApproval ?? false;
  if (typeof approval !== "boolean" && typeof approval !== "function")
    throw new ValueError(`Tool "${name}": needsApproval must be true, false or a function of the arguments.`);
  const args = z.strictObject(shape);
  return make<A, BoundValues<B>, RecordedValues<R>>({
    name,
    description: spec.description,
    args,
    parameters: schemaOf(name, args),
    boundNames: Object.keys(boundDeclarations),
    values: {},
    recorded,
    limit,
    repeats,
    needsApproval: typeof approval === "boolean" ? () => approval : (approval as unknown as ToolState["needsApproval"]),
    listed: spec.listed === true,
    run: spec.run as ToolState["run"],
  });
}

function schemaOf(name: string, args: z.ZodObject<any>): Record<string, JsonValue> {
  try {
    return argumentsSchema(args);
  } catch (error) {
    throw new ValueError(
      `Tool "${name}": its arguments have no JSON schema (${(error as Error).message}). Use fields that JSON can hold.`,
      { cause: error },
    );
  }
}

function make<A extends z.ZodRawShape, B, R>(state: ToolState): FunctionTool<A, B, R> {
  const unbound = Object.freeze(state.boundNames.filter((name) => !(name in state.values)));
  const call = async (input: Record<string, unknown>, context: Partial<ToolRunContext> = {}): Promise<ToolOutput> => {
    const missing = unbound.filter((name) => !(name in input));
    if (missing.length > 0) throw unboundError(state.name, missing);
    return state.run({ ...input, ...state.values }, { callId: null, ask: noPerson(state.name), ...context });
  };
  const properties = (state.parameters.properties ?? {}) as Record<string, { description?: unknown }>;
  const members = {
    description: state.description,
    args: state.args,
    limit: state.limit,
    repeats: state.repeats,
    needsApproval: state.needsApproval,
    listed: state.listed,
    unbound,
    boundNames: state.boundNames,
    recorded: Object.freeze(
      Object.fromEntries(Object.entries(state.recorded).map(([name, declaration]) => [name, declaration.type])),
    ),
    argumentDescriptions: Object.freeze(
      Object.fromEntries(
        Object.entries(properties).flatMap(([name, property]) =>
          typeof property.description === "string" ? [[name, property.description]] : [],
        ),
      ),
    ),
    def: (): ToolDef => toolDef(state, state.parameters),
    bind: (values: Record<string, unknown>) => make(bindValues(state, values)),
    withTexts: (texts: { description?: string | null; arguments?: Record<string, string> }) =>
      make(withTexts(state, texts)),
    invoke: async (args: Record<string, unknown>, context: ToolCallContext): Promise<ToolOutput> => {
      if (unbound.length > 0) throw unboundError(state.name, unbound);
      return state.run(
        { ...args, ...recordedValues(state.recorded, context.turn, context.callId), ...state.values },
        {
          callId: context.callId,
          ask: context.ask ?? noPerson(state.name),
          signal: context.signal,
          heartbeat: context.heartbeat,
        },
      );
    },
  };
  for (const [key, value] of Object.entries({ name: state.name, ...members })) {
    Object.defineProperty(call, key, { value, enumerable: key !== "name", writable: false, configurable: false });
  }
  return Object.freeze(call) as unknown as FunctionTool<A, B, R>;
}

// A tool called without a runner has no person to ask: a test passes its own `ask`.
function noPerson(name: string): Ask {
  return () =>
    Promise.reject(
      new ValueError(`Tool "${name}" asked a person, but no runner runs it: pass { ask } as the second argument.`),
    );
}

function bindValues(state: ToolState, values: Record<string, unknown>): ToolState {
  if (values === null || typeof values !== "object")
    throw new ValueError(`${state.name}.bind takes one object of values, such as { library: LIBRARY }.`);
  for (const [name, value] of Object.entries(values)) {
    if (!state.boundNames.includes(name)) {
      const declared = state.boundNames.join(", ") || "none";
      throw new ValueError(`Tool "${state.name}" has no bound value "${name}"; its bound values are: ${declared}.`, {
        details: { tool: state.name, name },
      });
    }
    checkBindable(state.name, name, value);
  }
  return { ...state, values: Object.freeze({ ...state.values, ...values }) };
}

function withTexts(
  state: ToolState,
  texts: { description?: string | null; arguments?: Record<string, string> },
): ToolState {
  const shape: Record<string, z.ZodType> = { ...(state.args.shape as Record<string, z.ZodType>) };
  for (const [name, text] of Object.entries(texts.arguments ?? {})) {
    const field = shape[name];
    if (field === undefined) {
      throw new ValueError(
        `Tool "${state.name}" has no argument "${name}" that the model writes; it has: ${Object.keys(shape).join(", ") || "none"}.`,
      );
    }
    shape[name] = field.describe(text);
  }
  const args = z.strictObject(shape);
  return {
    ...state,
    description: texts.description ?? state.description,
    args,
    parameters: schemaOf(state.name, args),
  };
}
