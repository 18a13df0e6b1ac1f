/** Conformance of TraceStore.threads: newest first by first event ts then id, paged with `before`. */
import { afterEach, describe, expect, it } from "vitest";
import type { StoredEvent } from "../../../../src/domain/events.js";
import { event, events, type OpenStore, type StoreFixture } from "./support.js";

function first(ts: string, label: string): StoredEvent[] {
  return [
    { ...event({ label }), seq: 0, ts },
    { ...event({ label: `${label}-2` }), seq: 1, ts: "2030-01-01T00:00:00.000Z" },
  ];
}

/** The threads part of the suite. */
export function threadsConformance(open: OpenStore): void {
  describe("threads", () => {
    let fixture: StoreFixture;
    afterEach(async () => fixture?.close());

    it("lists threads newest first by their first event's ts, then id, each with its first event, in pages", async () => {
      fixture = await open();
      const { store } = fixture;
      await store.load("a", first("2024-01-01T00:00:00.000Z", "a"));
      await store.load("b", first("2024-01-02T00:00:00.000Z", "b"));
      await store.load("c", first("2024-01-02T00:00:00.000Z", "c"));
      await store.load("d", first("2024-01-03T00:00:00.000Z", "d"));
      await store.append("now", events(1));
      await store.acquire("leased-only", { owner: "x", ttl: 60 });
      const all = await store.threads({ limit: 100 });
      expect(all.map(([id]) => id)).toEqual(["now", "d", "c", "b", "a"]);
      expect(all[1]![1]).toEqual({ ...first("2024-01-03T00:00:00.000Z", "d")[0], seq: 0 });
      const pages: string[][] = [];
      let before: string | null = null;
      for (;;) {
        const page: [string, StoredEvent][] = await store.threads({ limit: 2, before });
        if (page.length === 0) break;
        pages.push(page.map(([id]) => id));
        before = page.at(-1)![0];
      }
      expect(pages).toEqual([["now", "d"], ["c", "b"], ["a"]]);
      expect(await store.threads({ limit: 0 })).toEqual([]);
    });

    it("gives an empty page for a cursor it does not hold, and stops listing a deleted thread", async () => {
      fixture = await open();
      const { store } = fixture;
      await store.load("a", first("2024-01-01T00:00:00.000Z", "a"));
      await store.load("b", first("2024-01-02T00:00:00.000Z", "b"));
      expect(await store.threads({ limit: 10, before: "unknown" })).toEqual([]);
      await store.delete("b");
      expect((await store.threads({ limit: 10 })).map(([id]) => id)).toEqual(["a"]);
      expect(await store.threads({ limit: 10, before: "b" })).toEqual([]);
    });

    it("lists a principal's threads only: those opened by an Input of that principal, newest first, in pages", async () => {
      fixture = await open();
      const { store } = fixture;
      const opened = (ts: string, principal: string | null, type = "input"): StoredEvent[] => [
        { ...event({ payload: "hi", model: null, principal }), type, actor: "user", seq: 0, ts },
      ];
      await store.load("alice-1", opened("2024-01-01T00:00:00.000Z", "alice"));
      await store.load("bob-1", opened("2024-01-02T00:00:00.000Z", "bob"));
      await store.load("alice-2", opened("2024-01-03T00:00:00.000Z", "alice"));
      await store.load("nobody", opened("2024-01-04T00:00:00.000Z", null));
      await store.load("note", opened("2024-01-05T00:00:00.000Z", "alice", "note"));
      await store.load("alice-3", opened("2024-01-06T00:00:00.000Z", "alice"));
      const ids = async (options: { limit: number; before?: string | null; principal?: string | null }) =>
        (await store.threads(options)).map(([id]) => id);
      expect(await ids({ limit: 10, principal: "alice" })).toEqual(["alice-3", "alice-2", "alice-1"]);
      expect(await ids({ limit: 2, principal: "alice" })).toEqual(["alice-3", "alice-2"]);
      expect(await ids({ limit: 2, principal: "alice", before: "alice-2" })).toEqual(["alice-1"]);
      expect(await ids({ limit: 10, principal: "bob" })).toEqual(["bob-1"]);
      expect(await ids({ limit: 10, principal: "carol" })).toEqual([]);
      expect(await ids({ limit: 10, principal: null })).toHaveLength(6);
      expect((await store.threads({ limit: 1, principal: "bob" }))[0]![1].payload).toEqual({
        payload: "hi",
        model: null,
        principal: "bob",
      });
    });

    it("orders ids with the same first ts by code point, as SQL's binary collation does", async () => {
      fixture = await open();
      const { store } = fixture;
      const ts = "2024-05-05T00:00:00.000Z";
      for (const id of ["\uFFFD", "\u{1F600}", "Z", "a", "é"]) await store.load(id, first(ts, id));
      expect((await store.threads({ limit: 10 })).map(([id]) => id)).toEqual(["\u{1F600}", "\uFFFD", "é", "a", "Z"]);
    });
  });
}
