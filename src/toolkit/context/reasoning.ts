/** Reasoning: which reasoning of earlier model outputs the MessageBuilder sends back to the model. */

/**
 * Which reasoning of earlier model outputs is sent back. It counts toward the context like any text.
 * CURRENT_TURN lets a model continue its reasoning between the calls of a turn; when a new turn starts, the
 * earlier turn's reasoning is dropped, so the prompt cache misses once in each turn.
 */
export enum Reasoning {
  /** Send no reasoning back. The default of ContextPolicy. */
  NEVER = "never",
  /** Send back the reasoning of the model outputs of the running turn. */
  CURRENT_TURN = "current_turn",
  /** Send back the reasoning of every model output. */
  ALWAYS = "always",
}

/** Send no reasoning of earlier model outputs back to the model, Reasoning.NEVER. */
export const NEVER = Reasoning.NEVER;
/** Send back the reasoning of the model outputs of the running turn, Reasoning.CURRENT_TURN. */
export const CURRENT_TURN = Reasoning.CURRENT_TURN;
/** Send back the reasoning of every earlier model output, Reasoning.ALWAYS. */
export const ALWAYS = Reasoning.ALWAYS;
