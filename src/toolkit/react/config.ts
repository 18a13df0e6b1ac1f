/** ReActConfig: every setting of a ReActAgent for one turn. */
import type { ChatModel } from "../../ports/model.js";
import type { CitationStrategy, Tool } from "../../runtime/contracts.js";
import type { ModelLimits } from "../context/limits.js";
import type { RenderTurn } from "../inputs/render.js";
import type { ContextStrategy } from "./strategy.js";

/** A system prompt: a text, or a function of the parsed turn and the example citation (null when the model does not cite). */
export type PromptSetting<T> = string | ((turn: T, citation: string | null) => string);

/** Every setting of a ReActAgent for one turn. Only `model` and `prompt` are required; defaults in REACT_DEFAULTS. */
export interface ReActConfig<T = any> {
  /** The adapter that calls the model. */
  model: ChatModel;
  /** The system prompt. */
  prompt: PromptSetting<T>;
  /** What the model accepts. Default: a window of 32,000 tokens. */
  limits?: ModelLimits;
  /** What each model call receives. Default: a MessageBuilder with the default ContextPolicy. */
  context?: ContextStrategy;
  /** How the model cites and how its markers are read back; null: the model does not cite. */
  citations?: CitationStrategy | null;
  /** How the model reads an input of the turn. Default: elementsThenText. */
  renderInput?: RenderTurn<T>;
  /** The tools your code supplies for this turn. */
  tools?: readonly Tool[];
  /** The model calls of one turn that call tools. Default 10. */
  passes?: number;
  /** The model calls past `passes` that still get the tools. Default 1. */
  toolRoundsAfterCap?: number;
  /** Whether each Response to a Request starts the count of passes again. Default false. */
  resetsOnAnswer?: boolean;
  /** Whether a call identical to an earlier successful call of the turn runs again. Default false. */
  repeats?: boolean;
}
