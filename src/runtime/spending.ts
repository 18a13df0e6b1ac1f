/**
 * Budgets a turn keeps: per turn and per thread, in tokens and in dollars, and a cap on model calls per turn.
 * Checked from the trace before each model call and before an input is recorded, so a crash or a retry can never
 * spend past one: the trace holds every call that was made.
 */
import { CallerError, ValueError } from "../domain/errors.js";
import type { Event } from "../domain/events.js";
import { costOfEvents, PRICES, type PriceTable } from "../domain/prices.js";
import { opensTurn, usageOf } from "../domain/usage.js";

/** The limits of an agent's spending; each is optional. Tokens are prompt plus completion tokens. */
export interface SpendingLimits {
  turnTokens?: number;
  threadTokens?: number;
  /** US dollars, under the catalog's price table. */
  turnCost?: number;
  threadCost?: number;
  modelCallsPerTurn?: number;
}

/** A budget was spent: the turn ends with this Failure, or a thread over its budget refuses new input. */
export class BudgetExceededError extends CallerError {
  constructor(
    readonly budget: keyof SpendingLimits,
    readonly spent: number,
    readonly limit: number,
  ) {
    super(
      `The ${budget} budget is spent: ${formatted(budget, spent)} of ${formatted(budget, limit)}. ` +
        `No further model call is made; raise the limit in the catalog's spending to go on.`,
      { details: { budget, spent, limit } },
    );
  }
}

function formatted(budget: keyof SpendingLimits, amount: number): string {
  if (budget === "turnCost" || budget === "threadCost") return `$${amount.toFixed(4)}`;
  return budget === "modelCallsPerTurn" ? `${amount} calls` : `${amount} tokens`;
}

const LIMITS = ["turnTokens", "threadTokens", "turnCost", "threadCost", "modelCallsPerTurn"] as const;

/** An agent's limits with the prices they are counted at. */
export class Spending {
  readonly limits: Readonly<SpendingLimits>;
  readonly prices: PriceTable;

  constructor(limits: SpendingLimits, prices: PriceTable = PRICES) {
    for (const [name, value] of Object.entries(limits)) {
      if (!(LIMITS as readonly string[]).includes(name))
        throw new ValueError(`Unknown spending limit "${name}": use one of ${LIMITS.join(", ")}.`);
      if (typeof value !== "number" || !(value > 0))
        throw new ValueError(`The spending limit ${name} must be a number above 0, not ${String(value)}.`);
    }
    this.limits = Object.freeze({ ...limits });
    this.prices = prices;
  }

  /** Before a model call: the running turn and the thread must both be under every limit. */
  checkCall(thread: readonly Event[]): void {
    const start = thread.findLastIndex(opensTurn);
    const turn = start < 0 ? [] : thread.slice(start);
    this.check("turn", turn);
    this.check("thread", thread);
    const calls = usageOf(turn).calls;
    const cap = this.limits.modelCallsPerTurn;
    if (cap !== undefined && calls >= cap) throw new BudgetExceededError("modelCallsPerTurn", calls, cap);
  }

  /** Before an input is recorded: a thread over one of its limits takes no more. */
  checkInput(thread: readonly Event[]): void {
    this.check("thread", thread);
  }

  private check(scope: "turn" | "thread", events: readonly Event[]): void {
    const tokensLimit = this.limits[`${scope}Tokens`];
    if (tokensLimit !== undefined) {
      const tokens = usageOf(events).totalTokens;
      if (tokens >= tokensLimit) throw new BudgetExceededError(`${scope}Tokens`, tokens, tokensLimit);
    }
    const costLimit = this.limits[`${scope}Cost`];
    if (costLimit !== undefined) {
      // A call of a model the table has no price for counts nothing: the catalog's table should name it.
      const cost = costOfEvents(events, this.prices).dollars;
      if (cost >= costLimit) throw new BudgetExceededError(`${scope}Cost`, cost, costLimit);
    }
  }
}
