/**
 * usageReport: what a store's threads spent, by agent, model and day, from their recorded model calls alone (no
 * catalog needed: the core event types read every ModelOutput).
 */
import { ModelOutput } from "../domain/events.js";
import { costOf, PRICES, priceOf, type PriceTable } from "../domain/prices.js";
import { EventTypes } from "../domain/registry.js";
import { added, NO_USAGE, usageOfCall, type UsageTotals } from "../domain/usage.js";
import { wireTypeName } from "../domain/wire-format.js";
import type { TraceStore } from "../ports/store.js";

/** One row of the report: an agent's calls of one model on one day (UTC), summed. */
export interface UsageRow extends UsageTotals {
  agent: string;
  model: string;
  /** YYYY-MM-DD, in UTC. */
  day: string;
  /** US dollars, null when the price table has no price for the model. */
  cost: number | null;
}

/** Options of usageReport. */
export interface UsageReportOptions {
  /** The prices costs are counted at. Default PRICES. */
  prices?: PriceTable;
  /** The most threads read, newest first. Default 10,000. */
  limit?: number;
  /** Only the calls of days from this one on (YYYY-MM-DD). */
  since?: string;
  /** Only the calls of days up to this one (YYYY-MM-DD). */
  until?: string;
}

const MODEL_OUTPUT = wireTypeName(ModelOutput.name);

/** The spend of the store's threads by agent, model and day, sorted by day, agent and model. */
export async function usageReport(store: TraceStore, options: UsageReportOptions = {}): Promise<UsageRow[]> {
  const prices = options.prices ?? PRICES;
  const types = new EventTypes();
  const rows = new Map<string, UsageRow>();
  for (const [threadId, first] of await threadsOf(store, options.limit ?? 10_000)) {
    const agent = first.origin ?? "(unknown)";
    for await (const { event } of store.read(threadId)) {
      if (event.type !== MODEL_OUTPUT) continue;
      const output = types.decode(event) as ModelOutput;
      const day = (event.ts ?? "").slice(0, 10);
      if ((options.since && day < options.since) || (options.until && day > options.until)) continue;
      const model = output.model ?? "(unknown)";
      const key = JSON.stringify([day, agent, model]);
      const row = rows.get(key) ?? { agent, model, day, ...NO_USAGE, cost: 0 };
      const usage = usageOfCall(output);
      const price = priceOf(prices, output.model);
      rows.set(key, {
        ...row,
        ...added(row, usage),
        cost: price === null || row.cost === null ? null : row.cost + costOf(usage, price),
      });
    }
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

async function threadsOf(store: TraceStore, limit: number) {
  const threads: Awaited<ReturnType<TraceStore["threads"]>> = [];
  let before: string | null = null;
  while (threads.length < limit) {
    const page = await store.threads({ limit: Math.min(100, limit - threads.length), before });
    if (page.length === 0) break;
    threads.push(...page);
    before = page.at(-1)![0];
  }
  return threads;
}
