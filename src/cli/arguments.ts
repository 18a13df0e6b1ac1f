/** What several commands read from their arguments and the store: whole numbers, and the store's threads. */
import { ValueError } from "../domain/errors.js";
import type { TraceStore } from "../ports/store.js";

/**
 * `text` as a whole number from 1, for the option named `option`.
 * @throws ValueError when it is not one.
 */
export function positiveInteger(text: string, option: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new ValueError(`${option} takes a whole number from 1, not "${text}".`);
  return value;
}

/** The ids of the store's threads, newest first, at most `limit`. */
export async function storeThreadIds(store: TraceStore, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let before: string | null = null;
  while (ids.length < limit) {
    const page = await store.threads({ limit: Math.min(100, limit - ids.length), before });
    if (page.length === 0) break;
    ids.push(...page.map(([id]) => id));
    before = page.at(-1)![0];
  }
  return ids;
}
