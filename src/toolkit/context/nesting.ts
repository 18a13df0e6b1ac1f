/** The parts of one call's elements nested inside their whole, for the xml layout. */
import type { Element } from "../../domain/elements.js";

/** One element and the parts nested inside it. */
export interface Nested {
  element: Element;
  parts: Nested[];
}

/** A value that sorts parts: a number or a string; anything else counts as no value. */
export type OrderValue = number | string | undefined;

/**
 * Nest each element inside the element its `ref` names when that whole is in the same call. Roots keep
 * arrival order; the parts of one whole sort by `orderOf` (numbers before strings), and parts without a
 * value follow in arrival order. A cycle of refs is cut at its first element in arrival order.
 */
export function nest(elements: readonly Element[], orderOf: (element: Element) => OrderValue): Nested[] {
  const firstIndex = new Map<string, number>();
  elements.forEach((element, index) => {
    if (!firstIndex.has(element.id)) firstIndex.set(element.id, index);
  });
  const whole = elements.map((element, index) => {
    const found = element.ref === null || element.ref === undefined ? undefined : firstIndex.get(element.ref);
    return found === index ? undefined : found;
  });
  elements.forEach((_, index) => {
    const seen = new Set<number>();
    for (let at = whole[index]; at !== undefined && !seen.has(at); at = whole[at]) {
      if (at === index) {
        whole[index] = undefined;
        break;
      }
      seen.add(at);
    }
  });
  const nodes: Nested[] = elements.map((element) => ({ element, parts: [] }));
  const roots: Nested[] = [];
  nodes.forEach((node, index) => {
    const at = whole[index];
    (at === undefined ? roots : nodes[at]!.parts).push(node);
  });
  for (const node of nodes) node.parts = sorted(node.parts, orderOf);
  return roots;
}

function sorted(parts: Nested[], orderOf: (element: Element) => OrderValue): Nested[] {
  const keyed = parts.map((node) => ({ node, key: orderOf(node.element) }));
  const withValue = keyed.filter((entry) => entry.key !== undefined).sort((a, b) => compare(a.key!, b.key!));
  const without = keyed.filter((entry) => entry.key === undefined);
  return [...withValue, ...without].map((entry) => entry.node);
}

function compare(a: number | string, b: number | string): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a !== typeof b) return typeof a === "number" ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
