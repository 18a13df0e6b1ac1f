/** ContextStrategy: the context management of a ReActAgent, what each model call of a turn receives. */
import type { ToolDef } from "../../ports/messages.js";
import type { Budget } from "../../runtime/budget.js";
import type { CitationStrategy, ContextBuilder, Step, Tool } from "../../runtime/contracts.js";
import type { LlmStep } from "../../runtime/steps/llm-step.js";
import type { ModelLimits } from "../context/limits.js";
import type { RenderInput } from "../inputs/render.js";

/** The parts of one turn that a ReActAgent gives its context strategy. */
export interface TurnParts {
  /** How an Input renders as a user message, with the instructions its tools ask for. */
  renderInput: RenderInput;
  /** The name of the model the turn runs on. */
  model: string;
  /** The system prompt as a function of an example citation, or null for none. */
  prompt: ((citation: string | null) => string) | null;
  /** The tools the turn offers. */
  tools: readonly ToolDef[];
  /** The turn's budget: its withdrawsTools says when to offer no tools. */
  budget: Budget;
  citations: CitationStrategy | null;
  limits: ModelLimits;
}

/**
 * The context management of a ReActAgent, in three parts that depend on each other: the builder of each
 * turn, the tools the strategy offers itself (such as reopen), and its wrap of the model step (such as
 * compaction). MessageBuilder is the default.
 */
export interface ContextStrategy {
  /** The tools the strategy offers itself; the turn's tool step runs them. */
  readonly addedTools: readonly Tool[];
  /** The context builder of one turn. */
  forTurn(parts: TurnParts): ContextBuilder;
  /** The model step with the strategy's own steps around it, or the step itself. */
  wrap(step: LlmStep, limits: ModelLimits): Step;
}
