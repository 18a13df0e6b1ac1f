/**
 * What model calls cost: a price table per model, versioned, so that a recorded turn's cost can be recomputed under
 * any table (today's, or the one of the day it ran). Prices are in US dollars per million tokens.
 */
import { ValueError } from "./errors.js";
import { ModelOutput, type Event, type Usage } from "./events.js";
import { usageOfCall } from "./usage.js";

/** A model's prices, in US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  /** Input tokens read from the provider's prompt cache; `input` when absent. */
  cachedInput?: number;
  output: number;
  /** Reasoning tokens, part of the output; `output` when absent. */
  reasoning?: number;
}

/** A price table: its version (the date its prices were read) and the price of each model by name. */
export interface PriceTable {
  version: string;
  models: Readonly<Record<string, ModelPrice>>;
}

/**
 * The built-in table, as the providers' price pages gave them on its version's date. Give the catalog a table of
 * your own (`prices`) for the prices you pay; names match with or without a `provider:` prefix and a date suffix.
 */
export const PRICES: PriceTable = Object.freeze({
  version: "2026-12-01",
  models: Object.freeze({
    "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
    "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
    "gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
    "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
    "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
    o3: { input: 2, cachedInput: 0.5, output: 8 },
    "o4-mini": { input: 1.1, cachedInput: 0.275, output: 4.4 },
    "claude-sonnet-4-5": { input: 3, cachedInput: 0.3, output: 15 },
    "claude-opus-4-1": { input: 15, cachedInput: 1.5, output: 75 },
    "claude-haiku-4-5": { input: 1, cachedInput: 0.1, output: 5 },
    "gemini-2.5-pro": { input: 1.25, cachedInput: 0.31, output: 10 },
    "gemini-2.5-flash": { input: 0.3, cachedInput: 0.075, output: 2.5 },
  }),
});

/** Check a price table given in options: a version, and prices that are numbers of 0 or more. */
export function checkPriceTable(table: PriceTable, name: string): PriceTable {
  if (typeof table?.version !== "string" || typeof table.models !== "object" || table.models === null)
    throw new ValueError(`${name} must be a price table: { version: "2026-12-01", models: { "gpt-4.1": { ... } } }.`);
  for (const [model, price] of Object.entries(table.models))
    for (const field of ["input", "cachedInput", "output", "reasoning"] as const) {
      const value = price[field];
      const optional = field === "cachedInput" || field === "reasoning";
      if ((value === undefined && optional) || (typeof value === "number" && value >= 0)) continue;
      throw new ValueError(`${name}: the ${field} price of "${model}" must be dollars per million tokens, 0 or more.`);
    }
  return table;
}

/** The price of a model by name: exact, else without a `provider:` prefix, else without a `-YYYY-MM-DD` suffix. */
export function priceOf(table: PriceTable, model: string | null): ModelPrice | null {
  if (model === null) return null;
  const bare = model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
  const undated = bare.replace(/-\d{4}-?\d{2}-?\d{2}$/, "");
  return table.models[model] ?? table.models[bare] ?? table.models[undated] ?? null;
}

/** What a call with `usage` cost at `price`, in US dollars. */
export function costOf(usage: Usage, price: ModelPrice): number {
  const cached = usage.cachedTokens ?? 0;
  const reasoning = usage.reasoningTokens ?? 0;
  const dollars =
    (usage.promptTokens - cached) * price.input +
    cached * (price.cachedInput ?? price.input) +
    (usage.completionTokens - reasoning) * price.output +
    reasoning * (price.reasoning ?? price.output);
  return dollars / 1_000_000;
}

/** What some model calls cost: the dollars of those whose model the table prices, and how many it does not. */
export interface CallsCost {
  dollars: number;
  unpricedCalls: number;
}

/** What the model outputs among `events` cost under `table`, in US dollars. */
export function costOfEvents(events: readonly Event[], table: PriceTable): CallsCost {
  const cost = { dollars: 0, unpricedCalls: 0 };
  for (const event of events) {
    if (!ModelOutput.is(event)) continue;
    const price = priceOf(table, event.model);
    if (price === null) cost.unpricedCalls += 1;
    else cost.dollars += costOf(usageOfCall(event), price);
  }
  return cost;
}
