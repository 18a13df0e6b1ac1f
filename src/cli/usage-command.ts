/**
 * `soev-agents usage`: what the store's threads spent, by agent, model and day, as a table, JSON or CSV.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { storeFromEnvironment } from "../adapters/stores/from-environment.js";
import { ValueError } from "../domain/errors.js";
import { checkPriceTable, PRICES, type PriceTable } from "../domain/prices.js";
import { usageReport, type UsageRow } from "../runtime/usage-report.js";

const USAGE = `usage: soev-agents usage [--format table|json|csv] [--since DAY] [--until DAY] [--prices FILE] [--limit N]
  reads the store the worker opens (DATABASE_URL, else the SQLite file under SOEV_DATA_DIR)
  --format  table (default), json or csv
  --since, --until  days as YYYY-MM-DD (UTC), both included
  --prices  a JSON price table { "version": ..., "models": { "<model>": { "input": ..., "output": ... } } },
            dollars per million tokens; default the built-in table (${PRICES.version})
  --limit   the most threads read, newest first (default 10000)`;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const COLUMNS = [
  "day",
  "agent",
  "model",
  "calls",
  "promptTokens",
  "completionTokens",
  "cachedTokens",
  "totalTokens",
  "estimatedCalls",
  "cost",
] as const;

/** Run the command on its arguments (after "usage"); the output goes to `write`. Returns the exit code. */
export async function usageCommand(argv: readonly string[], write: (text: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      format: { type: "string", default: "table" },
      since: { type: "string" },
      until: { type: "string" },
      prices: { type: "string" },
      limit: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    write(`${USAGE}\n`);
    return 0;
  }
  const format = values.format!;
  if (!["table", "json", "csv"].includes(format))
    throw new ValueError(`--format is table, json or csv, not "${format}".\n${USAGE}`);
  for (const day of [values.since, values.until])
    if (day !== undefined && !DAY.test(day)) throw new ValueError(`a day is YYYY-MM-DD, not "${day}".\n${USAGE}`);
  const limit = values.limit === undefined ? 10_000 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new ValueError(`--limit takes a whole number above 0, not "${values.limit}".`);
  const prices = values.prices === undefined ? PRICES : priceFile(values.prices);
  const store = await storeFromEnvironment();
  try {
    const rows = await usageReport(store, { prices, limit, since: values.since, until: values.until });
    write(
      format === "json"
        ? `${JSON.stringify({ prices: prices.version, rows }, null, 2)}\n`
        : format === "csv"
          ? csv(rows)
          : table(rows, prices),
    );
    return 0;
  } finally {
    await store.close();
  }
}

function priceFile(path: string): PriceTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ValueError(`--prices ${path}: ${(error as Error).message}`);
  }
  return checkPriceTable(parsed as PriceTable, `--prices ${path}`);
}

function cells(row: UsageRow): string[] {
  return COLUMNS.map((column) => {
    const value = row[column];
    if (column === "cost") return value === null ? "" : (value as number).toFixed(6);
    return String(value);
  });
}

function csv(rows: readonly UsageRow[]): string {
  const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  return [COLUMNS.join(","), ...rows.map((row) => cells(row).map(quote).join(","))].join("\n") + "\n";
}

function table(rows: readonly UsageRow[], prices: PriceTable): string {
  if (rows.length === 0) return "No model calls in the store.\n";
  const body = [[...COLUMNS], ...rows.map(cells)];
  const widths = COLUMNS.map((_, index) => Math.max(...body.map((line) => line[index]!.length)));
  const lines = body.map((line) =>
    line
      .map((cell, index) => (index < 3 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!)))
      .join("  ")
      .trimEnd(),
  );
  const total = rows.reduce((sum, row) => sum + row.totalTokens, 0);
  const cost = rows.reduce((sum, row) => sum + (row.cost ?? 0), 0);
  const unpriced = rows.filter((row) => row.cost === null).map((row) => row.model);
  const notes = [`${total} tokens, $${cost.toFixed(4)} at prices ${prices.version}.`];
  if (unpriced.length > 0) notes.push(`No price for: ${[...new Set(unpriced)].join(", ")} (give --prices).`);
  return [...lines, "", ...notes].join("\n") + "\n";
}
