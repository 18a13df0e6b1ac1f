/** ReActConfig: every setting of a ReActAgent for one turn, with its defaults in REACT_DEFAULTS. */
import type { ChatModel } from "../../ports/model.js";
import { BUDGET_DEFAULTS } from "../../runtime/budget.js";
import type { CitationStrategy, Tool } from "../../runtime/contracts.js";
import { limitsOfModel } from "../context/known-limits.js";
import { DEFAULT_LIMITS, type ModelLimits } from "../context/limits.js";
import { MessageBuilder } from "../context/message-builder.js";
import { elementsThenText, type RenderTurn } from "../inputs/render.js";
import type { ToolStates } from "../inputs/input-types.js";
import type { PromptFile } from "../prompts/prompt-file.js";
import type { Prompt } from "../prompts/template.js";
import { checkConfig } from "./config-checks.js";
import { ToolDeclaration } from "./declaration.js";
import type { ContextStrategy } from "./strategy.js";

/**
 * The system prompt of a ReActConfig: a text, a PromptFile (the texts of the turn's model; its template
 * reads only `citation`), or a function of the parsed turn and the example citation (null when the model
 * does not cite), such as one that promptTemplate made.
 */
export type PromptSetting<T> = string | PromptFile | Prompt<T>;

/** A function of the parsed turn that returns the state that the turn asks of each tool, by name. */
export type ToolStatesOf<T> = (turn: T) => ToolStates;

/** The settings of a ReActConfig: only `model` and `prompt` are required; the others default to REACT_DEFAULTS. */
export interface ReActConfigOptions<T = any> {
  /** The adapter that calls the model. */
  model: ChatModel;
  /** The system prompt: a text, a PromptFile, or a function of the parsed turn and the example citation. */
  prompt: PromptSetting<T>;
  /**
   * What the model accepts. Default: those of the turn's model in the known limits (limitsOfModel: GPT-4.1 a
   * window of 1,047,576 tokens, Claude Sonnet 4.5 200,000), else a window of 32,000 tokens (DEFAULT_LIMITS).
   */
  limits?: ModelLimits;
  /** What each model call receives. Default: a MessageBuilder with the default ContextPolicy. */
  context?: ContextStrategy;
  /** How the model is told to cite and how its markers are read back, such as BRACKETS; null (the default): it does not cite. */
  citations?: CitationStrategy | null;
  /** How the model reads an input of the agent. Default: elementsThenText, which needs a `text` field. */
  renderInput?: RenderTurn<T>;
  /** The tools that the agent has; null (the default) declares each of `tools` with the state "auto". */
  declared?: readonly ToolDeclaration[] | null;
  /** The tools that your code supplies for this turn; each must be declared. Default none. */
  tools?: readonly Tool[];
  /** The state the turn asks of each tool. Default: the turn's `tools` field, as ChatTurnInput holds it. */
  toolStates?: ToolStatesOf<T>;
  /** The model calls of one turn that call tools and whose calls run. Default 10. */
  passes?: number;
  /** The model calls past `passes` that still get the tools. Default 1; at least 0. */
  toolRoundsAfterCap?: number;
  /** Whether each Response to a Request starts the count of passes again. Default false: the count covers the whole turn. */
  resetsOnAnswer?: boolean;
  /** Whether a call identical to an earlier successful call of the turn runs again, for tools that do not say. Default false. */
  repeats?: boolean;
}

/** The default toolStates: the turn's `tools` field, as ChatTurnInput holds it (none when the field is absent). */
function toolsField(turn: unknown): ToolStates {
  const tools = turn !== null && typeof turn === "object" ? (turn as { tools?: unknown }).tools : undefined;
  return (tools ?? {}) as ToolStates;
}

/** The defaults of a ReActConfig, in one place. A config keeps a default when its setting is this very value. */
export const REACT_DEFAULTS: Readonly<Omit<Required<ReActConfigOptions>, "model" | "prompt">> = Object.freeze({
  limits: DEFAULT_LIMITS,
  context: new MessageBuilder(),
  citations: null,
  renderInput: elementsThenText,
  declared: null,
  tools: Object.freeze([]) as readonly Tool[],
  toolStates: toolsField,
  // The budget's defaults are the Budget's own: 10 passes, 1 tool round after the cap, no reset on answers.
  passes: BUDGET_DEFAULTS.passes,
  toolRoundsAfterCap: BUDGET_DEFAULTS.toolRoundsAfterCap,
  resetsOnAnswer: BUDGET_DEFAULTS.resetsOnAnswer,
  repeats: false,
});

/**
 * Every setting of a ReActAgent for one turn, except its input type. `declared` lists the tools the agent
 * has, `tools` the tools your code supplies, `toolStates` the state the turn asks of each: a declared tool
 * is offered when it is supplied and its state is not "off", in the order of `declared`.
 *
 * Construction validates the settings (ValueError, PromptFileError), so a bad config fails before any
 * model call: see checkConfig.
 *
 * @example
 * ```ts
 * import type { ChatModel } from "soev-agents/ports";
 * import type { Tool } from "soev-agents/runtime";
 * import { BRACKETS, ContextPolicy, MessageBuilder, ReActConfig } from "soev-agents/toolkit";
 *
 * declare const model: ChatModel;
 * declare const search: Tool;
 * const config = new ReActConfig({
 *   model,
 *   prompt: "Answer from the documents. Cite each fact like [1].",
 *   tools: [search],
 *   citations: BRACKETS,
 *   passes: 4,
 *   context: new MessageBuilder({ policy: new ContextPolicy() }),
 * });
 * ```
 */
export class ReActConfig<T = any> {
  readonly model: ChatModel;
  readonly prompt: PromptSetting<T>;
  readonly limits: ModelLimits;
  readonly context: ContextStrategy;
  readonly citations: CitationStrategy | null;
  readonly renderInput: RenderTurn<T>;
  readonly declared: readonly ToolDeclaration[] | null;
  readonly tools: readonly Tool[];
  readonly toolStates: ToolStatesOf<T>;
  readonly passes: number;
  readonly toolRoundsAfterCap: number;
  readonly resetsOnAnswer: boolean;
  readonly repeats: boolean;
  /** The declarations of the agent's tools: `declared`, or one "auto" declaration per tool of `tools` when it is null. */
  readonly declarations: readonly ToolDeclaration[];

  constructor(options: ReActConfigOptions<T>) {
    const settings = { ...REACT_DEFAULTS, ...definedOnly(options) } as Required<ReActConfigOptions<T>>;
    checkConfig(settings);
    this.model = settings.model;
    this.prompt = settings.prompt;
    this.limits = settings.limits;
    this.context = settings.context;
    this.citations = settings.citations;
    this.renderInput = settings.renderInput;
    this.declared = settings.declared === null ? null : Object.freeze([...settings.declared]);
    this.tools = Object.freeze([...settings.tools]);
    this.toolStates = settings.toolStates;
    this.passes = settings.passes;
    this.toolRoundsAfterCap = settings.toolRoundsAfterCap;
    this.resetsOnAnswer = settings.resetsOnAnswer;
    this.repeats = settings.repeats;
    this.declarations =
      this.declared ?? Object.freeze(this.tools.map((tool) => new ToolDeclaration({ name: tool.name })));
  }

  /** The limits of a turn on `model`: the config's own, or when it keeps the default, the model's known limits. */
  limitsFor(model: string): ModelLimits {
    return this.keepsDefault("limits") ? limitsOfModel(model) : this.limits;
  }

  /** The config itself, or a new config of these settings. */
  static from<T>(config: ReActConfig<T> | ReActConfigOptions<T>): ReActConfig<T> {
    return config instanceof ReActConfig ? config : new ReActConfig(config);
  }

  /** Whether a setting keeps its default. */
  keepsDefault(setting: "renderInput" | "toolStates" | "limits"): boolean {
    return this[setting] === REACT_DEFAULTS[setting];
  }
}

// An option left undefined takes its default; null is a value of its own (citations, declared).
function definedOnly<O extends object>(options: O): Partial<O> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<O>;
}
