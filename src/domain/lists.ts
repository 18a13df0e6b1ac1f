/**
 * Lists that grow: a trace's lists of events are made by appending to a shorter trace's, and never change.
 * `appended` remembers which list a list was made from, so that `extendsList` answers a thread's lists from
 * that lineage instead of comparing thousands of events.
 */

/**
 * The lists made one from another by appending. Each list on a lineage is a prefix of the longest one made
 * on it (`tip`); a list appended to a shorter one than the tip starts a lineage of its own, which holds the
 * lists of its parent up to `at`. Only these small objects are held, never the lists themselves.
 */
interface Lineage {
  tip: number;
  readonly parent: { readonly lineage: Lineage; readonly at: number } | null;
  /** How many parents it has: a lineage that would have more than MAX_PARENTS has none, so a chain stays short. */
  readonly depth: number;
}

const lineages = new WeakMap<readonly unknown[], { readonly lineage: Lineage; readonly length: number }>();

/** The most parents a lineage has: a list appended past them is compared item by item. */
const MAX_PARENTS = 32;

/**
 * The first `kept` items of `base` (all of them by default) followed by `added`, as a new list (or `base` itself when
 * it is all kept and nothing is added), remembered as sharing those items with `base`: a list that keeps all of
 * `base` extends it.
 */
export function appended<T>(base: readonly T[], added: readonly T[], kept = base.length): readonly T[] {
  if (added.length === 0 && kept === base.length) return base;
  // concat makes the list at its length at once; a spread grows it as it goes.
  const list = (kept === base.length ? base : base.slice(0, kept)).concat(added);
  let from = lineages.get(base);
  if (from === undefined || from.length !== base.length)
    lineages.set(base, (from = { lineage: { tip: base.length, parent: null, depth: 0 }, length: base.length }));
  const { lineage: parent } = from;
  const lineage =
    parent.tip === kept
      ? parent
      : parent.depth < MAX_PARENTS
        ? { tip: kept, parent: { lineage: parent, at: kept }, depth: parent.depth + 1 }
        : { tip: kept, parent: null, depth: 0 };
  lineage.tip = list.length;
  lineages.set(list, { lineage, length: list.length });
  return list;
}

/**
 * The lineage a list made by `appended` lies on, as a key for what was found of its lists: of two lists on one
 * lineage, the shorter is a prefix of the longer. Undefined for a list made apart.
 */
export function lineageOf(list: readonly unknown[]): object | undefined {
  const place = lineages.get(list);
  return place !== undefined && place.length === list.length ? place.lineage : undefined;
}

/** Whether `next` starts with every item of `earlier`, the same objects in the same order. */
export function extendsList<T>(earlier: readonly T[], next: readonly T[]): boolean {
  if (earlier === next) return true;
  if (next.length < earlier.length) return false;
  if (madeFrom(earlier, next)) return true;
  // The folds and caches of one build each ask this of the same two lists: the answer is found once. Lists
  // only grow, so the same two lists at the same lengths hold the same items.
  const known = comparisons.get(earlier);
  if (known?.next === next && known.lengths[0] === earlier.length && known.lengths[1] === next.length)
    return known.extends;
  let found = true;
  for (let index = earlier.length - 1; index >= 0 && found; index -= 1) found = next[index] === earlier[index];
  comparisons.set(earlier, { next, lengths: [earlier.length, next.length], extends: found });
  return found;
}

// The last list each list was compared with, at which lengths, and the answer.
const comparisons = new WeakMap<
  readonly unknown[],
  { next: readonly unknown[]; lengths: [number, number]; extends: boolean }
>();

/**
 * Whether `next` was made by `appended` from `earlier`, or from a list made from it, and so starts with it.
 * False when the lineages do not tell (lists made apart, or `earlier` goes on past where `next` left its
 * lineage): extendsList then compares them.
 */
export function madeFrom(earlier: readonly unknown[], next: readonly unknown[]): boolean {
  return lineages.has(earlier) && sharedLength(earlier, next) === earlier.length;
}

/**
 * How many first items `next` shares with `earlier` as far as their lineages tell (lists `appended` made one from
 * another): at least that many are the same objects. 0 when the lineages do not tell.
 */
export function sharedLength(earlier: readonly unknown[], next: readonly unknown[]): number {
  const [before, after] = [lineages.get(earlier), lineages.get(next)];
  if (before === undefined || after === undefined) return 0;
  if (before.length !== earlier.length || after.length !== next.length) return 0;
  // At most MAX_PARENTS up.
  let lineage = after.lineage;
  let holds = after.length;
  while (lineage !== before.lineage) {
    if (lineage.parent === null) return 0;
    holds = Math.min(holds, lineage.parent.at);
    lineage = lineage.parent.lineage;
  }
  return Math.min(before.length, holds);
}
