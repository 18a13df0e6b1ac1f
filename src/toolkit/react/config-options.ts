/** The settings a ReActConfig takes, apart from the class so that its checks can name them without a cycle. */
import type { ChatModel } from "../../ports/model.js";
import type { CitationStrategy, Tool } from "../../runtime/contracts.js";
import type { ModelLimits } from "../context/limits.js";
import type { RenderTurn } from "../inputs/render.js";
import type { ToolStates } from "../inputs/input-types.js";
import type { PromptFile } from "../prompts/prompt-file.js";
import type { Prompt } from "../prompts/template.js";
import type { ToolDeclaration } from "./declaration.js";
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
