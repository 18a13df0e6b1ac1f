/** ReActAgent: a ready agent that calls tools until the model writes its final output. */
import type { z } from "zod";
import type { ElementType } from "../../domain/elements.js";
import { ModelOutput, type EventType } from "../../domain/events.js";
import type { Agent } from "../../runtime/agent.js";
import { Budget } from "../../runtime/budget.js";
import { InputDeniedError } from "../../runtime/errors.js";
import { END, Graph } from "../../runtime/graph.js";
import { LlmStep } from "../../runtime/steps/llm-step.js";
import { ToolStep } from "../../runtime/steps/tool-step.js";
import { DEFAULT_LIMITS } from "../context/limits.js";
import { MessageBuilder } from "../context/message-builder.js";
import { elementsThenText, renderedBy } from "../inputs/render.js";
import { Text, type TextTurn } from "../inputs/text.js";
import type { ReActConfig } from "./config.js";

/** The config of every turn, or a function of the resources, the parsed turn and the model name that returns it. */
export type ReActConfigSource<R, T> = ReActConfig<T> | ((resources: R, turn: T, model: string) => ReActConfig<T>);

/** The options of a ReActAgent besides its config. */
export interface ReActAgentOptions<T> {
  /** The schema each fresh input's payload parses into. Default: Text, a plain string. */
  input?: z.ZodType<T>;
  /** The element types the agent's tools record beyond the core ones. */
  elementTypes?: readonly ElementType<any, any>[];
  /** The event types the agent records beyond the core ones. */
  eventTypes?: readonly EventType<any, any>[];
}

/** The names of the two nodes of a ReAct turn. */
export const MODEL_NODE = "model";
/** The tool node of a ReAct turn. */
export const TOOLS_NODE = "tools";

/**
 * The ReAct loop: each model output with tool calls runs the tools, and the model is called again with
 * their results. The turn ends with the first output that calls no tool.
 */
export class ReActAgent<R = unknown, T = TextTurn> implements Agent<R, T> {
  readonly input: z.ZodType<T>;
  readonly elementTypes: readonly ElementType<any, any>[];
  readonly eventTypes: readonly EventType<any, any>[];
  private readonly config: ReActConfigSource<R, T>;

  constructor(config: ReActConfigSource<R, T>, options: ReActAgentOptions<T> = {}) {
    this.config = config;
    this.input = options.input ?? (Text as unknown as z.ZodType<T>);
    this.elementTypes = options.elementTypes ?? [];
    this.eventTypes = options.eventTypes ?? [];
  }

  /** Build the graph of a turn, on the model that its opening input records. */
  build(resources: R, turn: T, model: string | null): Graph {
    if (model === null) throw new InputDeniedError("The input records no model: give Input a model, such as the adapter's model name.");
    const config = typeof this.config === "function" ? this.config(resources, turn, model) : this.config;
    const context = config.context ?? new MessageBuilder();
    const limits = config.limits ?? DEFAULT_LIMITS;
    const citations = config.citations ?? null;
    const budget = new Budget({ passes: config.passes, toolRoundsAfterCap: config.toolRoundsAfterCap, resetsOnAnswer: config.resetsOnAnswer });
    const tools = [...(config.tools ?? []), ...context.addedTools];
    const prompt = config.prompt;
    const builder = context.forTurn({
      renderInput: renderedBy(this.input, config.renderInput ?? elementsThenText),
      model: config.model.resolve(model),
      prompt: (citation) => (typeof prompt === "string" ? prompt : prompt(turn, citation)),
      tools: tools.map((tool) => tool.def()),
      budget,
      citations,
      limits,
    });
    const step = context.wrap(new LlmStep({ builder, model: config.model, modelName: model }), limits);
    return new Graph()
      .addNode(MODEL_NODE, step)
      .addNode(TOOLS_NODE, new ToolStep({ tools, budget, repeats: config.repeats ?? false }))
      .addEdge(MODEL_NODE, (trace) => ((trace.byType(ModelOutput).at(-1)?.toolCalls.length ?? 0) > 0 ? TOOLS_NODE : END))
      .addEdge(TOOLS_NODE, MODEL_NODE);
  }
}
