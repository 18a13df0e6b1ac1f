import { describe, expect, it } from "vitest";
import { ValueError } from "../../../src/domain/errors.js";
import { Compact } from "../../../src/toolkit/context/compact.js";
import { results, rounds, Selection, turns } from "../../../src/toolkit/context/shrink.js";
import { Conversation, documentOf } from "../../fixtures/context-conversation.js";

/** Three turns: r1 in turn 1; r2 and r3 (one round each) in turn 2; r4 and r5 (one round, two calls) in turn 3. */
function threeTurns(): Conversation {
  return new Conversation()
    .ask("one")
    .search("a", documentOf("a", 1))
    .answer("A.")
    .ask("two")
    .search("b", documentOf("b", 1))
    .search("c", documentOf("c", 1))
    .answer("B.")
    .ask("three")
    .round(
      { name: "search", arguments: { query: "d" }, result: { elements: documentOf("d", 1) } },
      { name: "search", arguments: { query: "e" }, result: { elements: documentOf("e", 1) } },
    );
}

describe("Selection", () => {
  it("picks units as Array.prototype.slice does, negative indices counting from the end", () => {
    expect(turns.slice(0, -2).picked(5)).toEqual([0, 1, 2]);
    expect(turns.slice(-3).picked(5)).toEqual([2, 3, 4]);
    expect(turns.slice(1).picked(5)).toEqual([1, 2, 3, 4]);
    expect(turns.slice(0, -2).picked(2)).toEqual([]);
    expect(turns.at(-1).picked(5)).toEqual([4]);
    expect(turns.at(0).picked(5)).toEqual([0]);
  });

  it("selects nothing for an index out of range", () => {
    expect(turns.at(5).picked(5)).toEqual([]);
    expect(turns.at(-6).picked(5)).toEqual([]);
    expect(turns.slice(7, 9).picked(5)).toEqual([]);
    expect(turns.at(2).handles(threeTurns().trace())).toEqual(["r4", "r5"]);
    expect(turns.at(3).handles(threeTurns().trace())).toEqual([]);
  });

  it("gives the handles of the results of the selected turns, rounds or results, oldest first", () => {
    const view = threeTurns().trace();
    expect(turns.slice(0, -1).handles(view)).toEqual(["r1", "r2", "r3"]);
    expect(turns.at(-1).handles(view)).toEqual(["r4", "r5"]);
    expect(rounds.slice(0, -1).handles(view)).toEqual(["r1", "r2", "r3"]);
    expect(rounds.slice(1, 3).handles(view)).toEqual(["r2", "r3"]);
    expect(results.slice(0, -3).handles(view)).toEqual(["r1", "r2"]);
    expect(results.at(-1).handles(view)).toEqual(["r5"]);
  });

  it("gives the handles of each longer view of a thread as of that view, the same selection asked again", () => {
    // The running turn gains a result, then a turn starts: each selection reads each view as it is.
    const conversation = new Conversation().ask("one").search("a", documentOf("a", 1)).answer("A.").ask("two");
    const views = [
      conversation.search("b", documentOf("b", 1)).trace(),
      conversation.search("c", documentOf("c", 1)).trace(),
      conversation.answer("C.").ask("three").search("d", documentOf("d", 1)).trace(),
    ];
    const [every, lastTwo, all] = [turns.slice(0), results.slice(-2), results.slice(0)];
    expect(views.map((view) => every.handles(view))).toEqual([
      ["r1", "r2"],
      ["r1", "r2", "r3"],
      ["r1", "r2", "r3", "r4"],
    ]);
    // Each result is a unit of its own, kept from view to view: only the new ones are looked up.
    expect(views.map((view) => all.handles(view))).toEqual([
      ["r1", "r2"],
      ["r1", "r2", "r3"],
      ["r1", "r2", "r3", "r4"],
    ]);
    expect(all.handles(views[2]!)).toEqual(["r1", "r2", "r3", "r4"]);
    expect(views.map((view) => lastTwo.handles(view))).toEqual([
      ["r1", "r2"],
      ["r2", "r3"],
      ["r3", "r4"],
    ]);
  });

  it("refuses a unit or a key of the wrong kind", () => {
    expect(() => new Selection("days" as never, 1)).toThrow(ValueError);
    expect(() => turns.at(1.5)).toThrow(ValueError);
    expect(() => turns.slice(0, Number.NaN)).toThrow(ValueError);
  });

  it("writes itself as code", () => {
    expect(String(turns.slice(0, -2))).toBe("turns.slice(0, -2)");
    expect(String(rounds.at(-1))).toBe("rounds.at(-1)");
    expect(String(results.slice(-3))).toBe("results.slice(-3)");
  });
});

describe("Compact.keptFrom", () => {
  it("keeps from the first turn that where does not select, counting from the oldest", () => {
    const events = threeTurns().events;
    const starts = events.flatMap((event, index) => (event.type === "input" ? [index] : []));
    expect(new Compact().keptFrom(events)).toBe(starts[1]);
    expect(new Compact({ where: turns.slice(0, -1) }).keptFrom(events)).toBe(starts[2]);
  });

  it("always keeps the running turn", () => {
    const events = threeTurns().events;
    expect(new Compact({ where: turns.slice() }).keptFrom(events)).toBe(
      events.findLastIndex((event) => event.type === "input"),
    );
  });

  it("replaces nothing when where does not select the oldest turn, or there is no turn", () => {
    const events = threeTurns().events;
    expect(new Compact({ where: turns.slice(1) }).keptFrom(events)).toBe(0);
    expect(new Compact({ where: turns.slice(-2) }).keptFrom(events)).toBe(0);
    expect(new Compact().keptFrom([])).toBe(0);
  });

  it("moves back to before a call whose results it would split", () => {
    const events = new Conversation()
      .ask("one")
      .round(
        { name: "search", arguments: { query: "a" }, result: { elements: documentOf("a", 1) } },
        { name: "search", arguments: { query: "b" }, result: { elements: documentOf("b", 1) } },
      )
      .answer("A.")
      .ask("two").events;
    // results.at(0) replaces r1 only, which would split r2 from the call it shares with r1.
    const kept = new Compact({ where: results.at(0) }).keptFrom(events);
    expect(kept).toBe(1);
    expect((events[kept] as unknown as { toolCalls: unknown[] }).toolCalls).toHaveLength(2);
  });

  it("refuses a where that is not a Selection or empty instructions", () => {
    expect(() => new Compact({ where: "turns" as never })).toThrow(ValueError);
    expect(() => new Compact({ instructions: " " })).toThrow(ValueError);
  });
});
