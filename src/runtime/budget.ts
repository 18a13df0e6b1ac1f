/** Budget: how many model calls of a turn may call tools, and when the tools are withdrawn. */
import { ModelOutput, Response, type Event } from "../domain/events.js";
import { ValueError } from "../domain/errors.js";
import type { Trace } from "../domain/trace.js";

/** The settings of a Budget. */
export interface BudgetOptions {
  /** The model calls of one turn that call tools and whose calls run. Default 10. */
  passes?: number;
  /** The model calls past `passes` that still get the tools. Default 1; at least 0. */
  toolRoundsAfterCap?: number;
  /** Whether each Response to a Request starts the count again. Default false. */
  resetsOnAnswer?: boolean;
}

/** The defaults of a Budget, in one place. */
export const BUDGET_DEFAULTS = { passes: 10, toolRoundsAfterCap: 1, resetsOnAnswer: false } as const;

/**
 * The count of a turn's tool-calling passes. A model output whose calls are past `passes` gets a directive
 * to finish as each call's result; after `toolRoundsAfterCap` such calls, the model is offered no tools.
 */
export class Budget {
  readonly passes: number;
  readonly toolRoundsAfterCap: number;
  readonly resetsOnAnswer: boolean;

  constructor(options: BudgetOptions = {}) {
    const settings = { ...BUDGET_DEFAULTS, ...options };
    if (!Number.isInteger(settings.passes) || settings.passes < 0)
      throw new ValueError(`passes must be a whole number of at least 0, not ${settings.passes}.`);
    if (!Number.isInteger(settings.toolRoundsAfterCap) || settings.toolRoundsAfterCap < 0) {
      throw new ValueError(
        `toolRoundsAfterCap must be a whole number of at least 0, not ${settings.toolRoundsAfterCap}.`,
      );
    }
    this.passes = settings.passes;
    this.toolRoundsAfterCap = settings.toolRoundsAfterCap;
    this.resetsOnAnswer = settings.resetsOnAnswer;
  }

  /** The tool-calling model outputs that count, in the running turn of a stream's trace. */
  counted(trace: Trace): ModelOutput[] {
    return countedEvents(trace.turn, this.resetsOnAnswer).filter(
      (event): event is ModelOutput => ModelOutput.is(event) && event.toolCalls.length > 0,
    );
  }

  /** Whether the calls of `output` (a tool-calling output of the running turn) are past the cap and do not run. */
  pastCap(trace: Trace, output: ModelOutput): boolean {
    const index = this.counted(trace).indexOf(output);
    return index >= this.passes;
  }

  /**
   * Whether a model called tools even on the call that was offered none: the turn ends after their
   * directives, so a model that ignores the withdrawal cannot loop.
   */
  spent(trace: Trace): boolean {
    return this.counted(trace).length > this.passes + this.toolRoundsAfterCap;
  }

  /** Whether the next model call of the stream is offered no tools, so it writes its final output. */
  withdrawsTools(trace: Trace): boolean {
    return this.counted(trace).length >= this.passes + this.toolRoundsAfterCap;
  }
}

function countedEvents(turn: readonly Event[], resetsOnAnswer: boolean): readonly Event[] {
  if (!resetsOnAnswer) return turn;
  // The last answer of the running turn, looked for from the end.
  for (let index = turn.length - 1; index > 0; index--) {
    if (Response.is(turn[index]!)) return turn.slice(index);
  }
  return turn;
}
