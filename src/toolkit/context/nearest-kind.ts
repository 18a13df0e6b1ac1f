/** The setting of the nearest registered type: a subtype uses its closest registered ancestor's setting. */
import type { Kind } from "../../domain/kinds.js";

/** The value registered for a value's own type, else for its closest registered ancestor, or undefined. */
export function nearestKind<V>(byType: ReadonlyMap<Kind<any>, V>, value: object): V | undefined {
  let best: { depth: number; setting: V } | undefined;
  for (const [type, setting] of byType) {
    if (!type.is(value)) continue;
    const depth = depthOf(type);
    if (best === undefined || depth > best.depth) best = { depth, setting };
  }
  return best?.setting;
}

function depthOf(type: Kind<any>): number {
  let depth = 0;
  for (let ancestor = type.parent; ancestor; ancestor = ancestor.parent) depth += 1;
  return depth;
}
