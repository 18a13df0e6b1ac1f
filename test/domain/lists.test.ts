import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appended, extendsList, lineageOf, madeFrom, sharedLength } from "../../src/domain/lists.js";

const items = (count: number, from = 0) => Array.from({ length: count }, (_, index) => ({ item: from + index }));

describe("extendsList", () => {
  it("answers again for a list that grew since it was compared with the same longer list", () => {
    const list = items(4);
    const earlier = list.slice(0, 2);
    expect(extendsList(earlier, list)).toBe(true);
    earlier.push(list[3]!);
    expect(extendsList(earlier, list)).toBe(false);
    expect(extendsList(list.slice(0, 3), list)).toBe(true);
  });

  it("answers from the lineage of appended lists, without comparing their items", () => {
    const base = items(3);
    let list: readonly { item: number }[] = base;
    for (let step = 0; step < 10; step += 1) list = appended(list, items(2, 100 + 2 * step));
    // Changed in place (which a trace's lists never are): only a lineage can still say the list extends it.
    (base as { item: number }[])[0] = { item: -1 };
    expect(extendsList(base, list)).toBe(true);
    expect(extendsList(items(3), list)).toBe(false);
  });

  it("tells lists appended to the same list apart", () => {
    const base = items(3);
    const [one, two] = [appended(base, items(1, 10)), appended(base, items(1, 20))];
    expect([extendsList(base, one), extendsList(base, two)]).toEqual([true, true]);
    expect([extendsList(one, two), extendsList(two, one)]).toEqual([false, false]);
    const longer = appended(two, items(2, 30));
    expect([extendsList(two, longer), extendsList(base, longer), extendsList(one, longer)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("answers for lists appended to shorter ones again and again, past the lineages it keeps", () => {
    // Each list is appended to after another list was: each starts a lineage of its own, one deeper each time.
    const lists: (readonly { item: number }[])[] = [items(2)];
    const others: (readonly { item: number }[])[] = [];
    for (let step = 0; step < 40; step += 1) {
      others.push(appended(lists.at(-1)!, items(1, 1_000 + step)));
      lists.push(appended(lists.at(-1)!, items(1, 2_000 + step)));
    }
    expect(lists.map((list) => extendsList(lists[0]!, list))).toEqual(lists.map(() => true));
    expect(lists.map((list) => extendsList(lists[5]!, list))).toEqual(lists.map((_, index) => index >= 5));
    expect(others.map((other) => extendsList(other, lists.at(-1)!))).toEqual(others.map(() => false));
  });

  it("answers as comparing item by item, whatever lists were appended to which", () => {
    const shared = items(4, 1_000);
    // Each step appends to one of the lists made so far: new items, or items another list holds too.
    const steps = fc.array(fc.record({ from: fc.nat(), count: fc.integer({ min: 0, max: 3 }), reuse: fc.boolean() }), {
      maxLength: 30,
    });
    fc.assert(
      fc.property(steps, fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 40 }), (made, asked) => {
        const lists: (readonly { item: number }[])[] = [items(2)];
        made.forEach(({ from, count, reuse }, step) => {
          const added = reuse ? shared.slice(0, count) : items(count, 10 * step);
          lists.push(appended(lists[from % lists.length]!, added));
        });
        const compared = (earlier: readonly unknown[], next: readonly unknown[]) =>
          earlier.length <= next.length && earlier.every((item, index) => next[index] === item);
        for (const [earlier, next] of asked) {
          const [a, b] = [lists[earlier % lists.length]!, lists[next % lists.length]!];
          expect(extendsList(a, b)).toBe(compared(a, b));
        }
      }),
    );
  });
});

describe("lineageOf", () => {
  it("is shared by the lists appended to a lineage's longest list, and not by lists made apart or off its end", () => {
    const base = appended([], items(2));
    const longer = appended(base, items(2, 10));
    const longest = appended(longer, items(1, 20));
    expect(lineageOf(base)).toBeDefined();
    expect(lineageOf(longer)).toBe(lineageOf(base));
    expect(lineageOf(longest)).toBe(lineageOf(base));
    // Appended to a list shorter than the longest: a lineage of its own.
    expect(lineageOf(appended(base, items(1, 30)))).not.toBe(lineageOf(base));
    expect(lineageOf(items(2))).toBeUndefined();
  });
});

describe("sharedLength", () => {
  it("tells how many first items a list that kept part of another shares with it, and with the lists made from it", () => {
    const base = appended([], items(5));
    // The first three of base kept, two new items after them.
    const cut = appended(base, items(2, 10), 3);
    expect(cut).toEqual([...base.slice(0, 3), ...items(2, 10)]);
    expect([sharedLength(base, cut), madeFrom(base, cut), extendsList(base, cut)]).toEqual([3, false, false]);
    const longer = appended(cut, items(1, 20));
    expect([sharedLength(base, longer), sharedLength(cut, longer), madeFrom(cut, longer)]).toEqual([3, 5, true]);
    // All of base kept: the list extends it.
    expect(sharedLength(base, appended(base, items(1, 30), 5))).toBe(5);
    expect(sharedLength(base, items(5))).toBe(0);
  });
});
