/** ReActConfig: every setting of a ReActAgent for one turn, with its defaults in REACT_DEFAULTS. */
import type { ChatModel } from "../../ports/model.js";
import { BUDGET_DEFAULTS } from "../../runtime/budget.js";
import type { CitationStrategy, Tool } from "../../runtime/contracts.js";
import { limitsOfModel } from "../context/known-limits.js";
import { DEFAULT_LIMITS, type ModelLimits } from "../context/limits.js";
import { MessageBuilder } from "../context/message-builder.js";
import { elementsThenText, type RenderTurn } from "../inputs/render.js";
import type { ToolStates } from "../inputs/input-types.js";
import { checkConfig } from "./config-checks.js";
import { ToolDeclaration } from "./declaration.js";
import type { ContextStrategy } from "./strategy.js";

import type { PromptSetting, ReActConfigOptions, ToolStatesOf } from "./config-options.js";

export type { PromptSetting, ToolStatesOf, ReActConfigOptions };

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
