/** ReActAgent: a ready agent that calls tools until the model writes its final output. */
import type { z } from "zod";
import type { ElementType } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import { ModelOutput, type EventType } from "../../domain/events.js";
import { accepted, type Agent } from "../../runtime/agent.js";
import type { ExplainedForm } from "../../runtime/contracts.js";
import { explainCall } from "../../runtime/replay.js";
import type { Trace } from "../../domain/trace.js";
import { Budget } from "../../runtime/budget.js";
import { InputDeniedError } from "../../runtime/errors.js";
import { END, Graph } from "../../runtime/graph.js";
import { LlmStep } from "../../runtime/steps/llm-step.js";
import type { ToolDef } from "../../ports/messages.js";
import { ToolStep } from "../../runtime/steps/tool-step.js";
import { renderedBy, type RenderInput } from "../inputs/render.js";
import { Text, type TextTurn } from "../inputs/input-types.js";
import { hasTurnField } from "../inputs/turn-fields.js";
import { PromptFile } from "../prompts/prompt-file.js";
import { Prompts } from "../prompts/prompts.js";
import type { TemplatePrompt } from "../prompts/template.js";
import { ReActConfig, type ReActConfigOptions } from "./config.js";
import { withInstructions, systemPrompt } from "./instructions.js";
import { offeredTools, requiredInstructions } from "./turn-tools.js";

/**
 * A function that builds the config of one turn from the thread's resources, the parsed turn and the
 * model that the turn's input names. It refuses a turn by throwing InputDeniedError.
 */
export type ReActConfigFunction<R, T> = (
  resources: R,
  turn: T,
  model: string,
) => ReActConfig<T> | ReActConfigOptions<T>;

/** The config of every turn, or a function that builds the config of each turn. */
export type ReActConfigSource<R, T> = ReActConfig<T> | ReActConfigOptions<T> | ReActConfigFunction<R, T>;

/** The options of a ReActAgent besides its config. */
export interface ReActAgentOptions<T> {
  /** The zod schema that each fresh input's payload parses into. Default: Text, a plain string. */
  input?: z.ZodType<T>;
  /** The element types that the agent's tools record beyond the core ones. */
  elementTypes?: readonly ElementType<any, any>[];
  /** The event types that the agent records beyond the core ones. */
  eventTypes?: readonly EventType<any, any>[];
}

/** The options of ReActAgent.explain. */
export interface ExplainOptions<R> {
  /** The thread's resources, which a config function reads; default undefined. */
  resources?: R;
}

/** The model node of a ReAct turn. */
export const MODEL_NODE = "model";
/** The tool node of a ReAct turn. */
export const TOOLS_NODE = "tools";

// The field of the turn that each default reads.
const DEFAULT_READS = { renderInput: "text", toolStates: "tools" } as const;

/**
 * The ReAct loop: each model output with tool calls runs the tools, and the model is called again with
 * their results; the turn ends with the first output that calls no tool. Register it in an AgentCatalog.
 *
 * A config object is checked when the agent is made, a config function's config at each build. The
 * defaults renderInput and toolStates read the turn's `text` and `tools` fields: an input type whose zod
 * schema shows it lacks one is refused (ValueError). A schema that cannot show it (a transform, a loose
 * object, z.any()) is checked on the parsed turn at build, before any model call.
 *
 * @example
 * ```ts
 * import { sourceType } from "soev-agents/domain";
 * import type { ChatModel } from "soev-agents/ports";
 * import type { Tool } from "soev-agents/runtime";
 * import { BRACKETS, ReActAgent, ReActConfig } from "soev-agents/toolkit";
 *
 * declare const model: ChatModel;
 * declare const search: Tool;
 * const Passage = sourceType("passage");
 * const config = new ReActConfig({ model, prompt: "Answer from the documents; cite like [1].", tools: [search], citations: BRACKETS });
 * const assistant = new ReActAgent(config, { elementTypes: [Passage] });
 * ```
 */
export class ReActAgent<R = unknown, T = TextTurn> implements Agent<R, T> {
  readonly input: z.ZodType<T>;
  readonly elementTypes: readonly ElementType<any, any>[];
  readonly eventTypes: readonly EventType<any, any>[];
  private readonly source: ReActConfig<T> | ReActConfigFunction<R, T>;
  private readonly fields: Readonly<Record<"text" | "tools", boolean | null>>;
  // One RenderInput per config: the builder keeps its renders of the inputs while the function is the same.
  private readonly renderInputs = new WeakMap<ReActConfig<T>, RenderInput>();

  /**
   * @throws ValueError or PromptFileError: a config object with a bad setting (see ReActConfig), or one that
   *   keeps the default renderInput or toolStates while the input type has no `text` or `tools` field.
   * @throws PromptFileError when a config object's PromptFile gives texts, for any model, to a tool not in
   *   `tools` or to an argument that the model does not write.
   */
  constructor(config: ReActConfigSource<R, T>, options: ReActAgentOptions<T> = {}) {
    this.input = options.input ?? (Text as unknown as z.ZodType<T>);
    this.elementTypes = options.elementTypes ?? [];
    this.eventTypes = options.eventTypes ?? [];
    this.fields = { text: hasTurnField(this.input, "text"), tools: hasTurnField(this.input, "tools") };
    if (typeof config === "function") {
      this.source = config;
      return;
    }
    const checked = ReActConfig.from(config);
    this.checkDefaults(checked, null);
    if (checked.prompt instanceof PromptFile) {
      for (const model of [null, ...checked.prompt.endpoints]) checked.prompt.forModel(model).described(checked.tools);
    }
    this.source = checked;
  }

  /** The declarations of a config object's tools; null when the agent builds each turn's config with a function. */
  get declarations(): ReActConfig<T>["declarations"] | null {
    return typeof this.source === "function" ? null : this.source.declarations;
  }

  /**
   * Build the graph of a turn, on the model that its opening input records: a model node and a tool node,
   * with the turn's budget of passes.
   * @throws InputDeniedError when the input records no model, the config function refuses the turn, or the
   *   turn names a tool that was never declared, asks another state of a locked one, or requires one that
   *   `tools` leaves out.
   * @throws ValueError when a config function's config is bad or keeps a default that reads a field the turn lacks.
   * @throws PromptFileError when the PromptFile gives the turn's model texts for a tool not in `tools`, or
   *   for an argument that the model does not write.
   */
  build(resources: R, turn: T, model: string | null): Graph {
    if (model === null) {
      throw new InputDeniedError(
        "The input records no model: give the Input a model, such as the name of the model the turn runs on.",
      );
    }
    const config = this.configFor(resources, turn, model);
    this.checkDefaults(config, turn);
    const modelName = config.model.resolve(model);
    const limits = config.limitsFor(modelName);
    // A prompt file gives the texts of the turn's model: its system template and its tools' texts.
    const prompt = config.prompt instanceof PromptFile ? config.prompt.forModel(modelName) : config.prompt;
    const supplied = prompt instanceof Prompts ? prompt.described(config.tools) : config.tools;
    const offered = offeredTools(config.declarations, config.toolStates(turn), supplied);
    const budget = new Budget({
      passes: config.passes,
      toolRoundsAfterCap: config.toolRoundsAfterCap,
      resetsOnAnswer: config.resetsOnAnswer,
    });
    const parts = {
      renderInput: this.renderInput(config),
      model: modelName,
      prompt: systemPrompt(prompt, turn),
      budget,
      citations: config.citations,
      limits,
    };
    const builderFor = (tools: readonly ToolDef[]) => config.context.forTurn({ ...parts, tools });
    const defs = offered.map((tool) => tool.def());
    // A server's tools (MCP) may change between turns: the call records them, and replay builds from the record.
    const listedTools = offered.some((tool) => tool.listed === true) ? { offered: defs, builderFor } : undefined;
    const llmStep = new LlmStep({ builder: builderFor(defs), model: config.model, modelName: model, listedTools });
    const step = config.context.wrap(llmStep, limits);
    return new Graph()
      .addNode(MODEL_NODE, step)
      .addNode(
        TOOLS_NODE,
        new ToolStep({ tools: [...offered, ...config.context.addedTools], budget, repeats: config.repeats }),
      )
      .addEdge(MODEL_NODE, (trace) => ((trace.lastOf(ModelOutput)?.toolCalls.length ?? 0) > 0 ? TOOLS_NODE : END))
      .addEdge(TOOLS_NODE, (trace) => (budget.spent(trace) ? END : MODEL_NODE));
  }

  /**
   * Why each shrunk result has its form at a recorded model call of a thread: the turn's graph is built
   * again from the input that opened it (and `resources`, for a config function), and the call's context
   * builder explains the trace before the call. Empty when nothing is shrunk or the builder has no limits.
   * A call on a task's stream is explained by the builder of the delegation's graph.
   *
   * @example
   * ```ts
   * import { ModelOutput, type Trace } from "soev-agents/domain";
   * import type { ReActAgent } from "soev-agents/toolkit";
   *
   * declare const agent: ReActAgent;
   * declare const trace: Trace;
   * for (const shrunk of await agent.explain(trace, trace.byType(ModelOutput).at(-1)!)) {
   *   console.log(shrunk.result, shrunk.form, String(shrunk.by), shrunk.at);
   * }
   * ```
   * @throws ValueError when `call` is not a ModelOutput of `trace`.
   * @throws InputDeniedError, ValueError or PromptFileError when the turn's graph cannot be built, as `build`.
   */
  explain(trace: Trace, call: ModelOutput, options: ExplainOptions<R> = {}): Promise<readonly ExplainedForm[]> {
    return explainCall(trace, call, (input) =>
      this.build(options.resources as R, accepted(this.input, input)[1], input.model),
    );
  }

  private configFor(resources: R, turn: T, model: string): ReActConfig<T> {
    if (typeof this.source !== "function") return this.source;
    const built = this.source(resources, turn, model);
    if (built === null || typeof built !== "object")
      throw new ValueError(
        "The config function must return a ReActConfig, or throw InputDeniedError to refuse the turn.",
      );
    return ReActConfig.from(built);
  }

  /**
   * Each input renders with the config's renderInput, then the instructions of the tools that it required
   * itself: an earlier input keeps the instructions of its own turn, not those of the running one.
   */
  private renderInput(config: ReActConfig<T>): RenderInput {
    let render = this.renderInputs.get(config);
    if (render === undefined) {
      render = renderedBy(
        this.input,
        withInstructions(config.renderInput, (turn) =>
          requiredInstructions(config.declarations, config.toolStates(turn)),
        ),
      );
      this.renderInputs.set(config, render);
    }
    return render;
  }

  // A default that reads a field the input type lacks: refused now, or on the parsed turn when the schema cannot say.
  private checkDefaults(config: ReActConfig<T>, turn: T | null): void {
    for (const setting of ["renderInput", "toolStates"] as const) {
      if (!config.keepsDefault(setting)) continue;
      const field = DEFAULT_READS[setting];
      const known = this.fields[field];
      const lacks =
        known === false || (known === null && turn !== null && !(typeof turn === "object" && field in turn));
      if (lacks) {
        throw new ValueError(
          `The config keeps the default ${setting}, which reads the turn's "${field}" field, and the agent's input type has none: ` +
            `give the config a ${setting} of its own, or an input type with a "${field}" field.`,
        );
      }
    }
    // A promptTemplate says which fields it reads: {context} without a context field would write nothing, silently.
    const reads = typeof config.prompt === "function" ? ((config.prompt as Partial<TemplatePrompt>).reads ?? []) : [];
    for (const field of reads) {
      const known = hasTurnField(this.input, field);
      const lacks =
        known === false ||
        (known === null && turn !== null && !(typeof turn === "object" && turn !== null && field in turn));
      if (lacks) {
        throw new ValueError(
          `The prompt writes {${field}}, the turn's "${field}" field, and the agent's input type has none: ` +
            `give the agent an input type with a "${field}" field (such as ChatTurnInput), or remove {${field}} from the template.`,
        );
      }
    }
  }
}
