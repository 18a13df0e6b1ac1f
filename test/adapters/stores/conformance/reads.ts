/** Conformance of read (without follow), readBackwards, load and delete, and of unknown thread ids. */
import { afterEach, describe, expect, it } from "vitest";
import { ValueError } from "../../../../src/domain/errors.js";
import type { StoredEvent } from "../../../../src/domain/events.js";
import { collect, event, events, take, threadId, type OpenStore, type StoreFixture } from "./support.js";

/** Sealed events as an export of another store would give them. */
function sealed(): StoredEvent[] {
  return [
    { ...event({ i: 0 }), seq: 0, ts: "2024-03-01T10:00:00.000Z" },
    { ...event({ i: 1 }, "task"), seq: 0, ts: "2024-03-01T10:00:01.000Z" },
    { ...event({ i: 2 }), seq: 1, ts: "2024-03-01T12:00:02.500+02:00" },
  ];
}

/** The read part of the suite. */
export function readConformance(open: OpenStore): void {
  describe("read, readBackwards, load and delete", () => {
    let fixture: StoreFixture;
    afterEach(async () => fixture?.close());

    it("reads past a position, and readBackwards yields the same entries reversed, stopping where the reader stops", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      await store.append(thread, events(3));
      await store.append(thread, events(2, 3, "task"));
      const all = await collect(store.read(thread));
      expect((await collect(store.read(thread, { after: 2 }))).map((entry) => entry.position)).toEqual([3, 4, 5]);
      expect(await collect(store.read(thread, { after: 5 }))).toEqual([]);
      expect(await collect(store.read(thread, { after: 99 }))).toEqual([]);
      expect(await collect(store.readBackwards(thread))).toEqual([...all].reverse());
      expect((await take(store.readBackwards(thread), 2)).map((entry) => entry.position)).toEqual([5, 4]);
    });

    it("yields nothing for an unknown thread in read and readBackwards, and an unknown id changes nothing on delete", async () => {
      fixture = await open();
      const { store } = fixture;
      const kept = threadId();
      await store.append(kept, events(2));
      expect(await collect(store.read(threadId("unknown")))).toEqual([]);
      expect(await collect(store.read(threadId("unknown"), { after: 3 }))).toEqual([]);
      expect(await collect(store.readBackwards(threadId("unknown")))).toEqual([]);
      expect(await store.lease(threadId("unknown"))).toBeNull();
      await store.delete(threadId("unknown"));
      expect(await collect(store.read(kept))).toHaveLength(2);
      expect((await store.threads({ limit: 10 })).map(([id]) => id)).toEqual([kept]);
    });

    it("refuses a bad thread id or position with ValueError", async () => {
      fixture = await open();
      const { store } = fixture;
      await expect(collect(store.read(""))).rejects.toBeInstanceOf(ValueError);
      await expect(collect(store.readBackwards(""))).rejects.toBeInstanceOf(ValueError);
      await expect(collect(store.read(threadId(), { after: -1 }))).rejects.toBeInstanceOf(ValueError);
      await expect(collect(store.read(threadId(), { after: 1.5 }))).rejects.toBeInstanceOf(ValueError);
      await expect(store.append("", events(1))).rejects.toBeInstanceOf(ValueError);
      await expect(store.threads({ limit: -1 })).rejects.toBeInstanceOf(ValueError);
    });

    it("restores a log with load: events keep seq and ts, take positions 1..n, replace the old log, and appends continue each stream", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      await store.append(thread, events(5));
      await store.load(thread, sealed());
      const read = await collect(store.read(thread));
      expect(read.map((entry) => entry.position)).toEqual([1, 2, 3]);
      expect(read.map((entry) => [entry.event.payload.i, entry.event.seq, entry.event.ts])).toEqual([
        [0, 0, "2024-03-01T10:00:00.000Z"],
        [1, 0, "2024-03-01T10:00:01.000Z"],
        [2, 1, "2024-03-01T10:00:02.500Z"],
      ]);
      const [next] = await store.append(thread, [event({ i: 3 }, "task")], { expected: { main: 2, task: 1 } });
      expect(next!.seq).toBe(1);
      expect((await collect(store.read(thread, { after: 3 })))[0]!.position).toBe(4);
    });

    it("refuses to load unsealed events or seqs out of order with ValueError, and changes nothing", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      await store.append(thread, events(2));
      const before = await collect(store.read(thread));
      const [first, second, third] = sealed();
      await expect(store.load(thread, [first!, { ...second!, seq: null }])).rejects.toBeInstanceOf(ValueError);
      await expect(store.load(thread, [first!, { ...third!, seq: 2 }])).rejects.toThrow(/seq 2.*next seq is 1/);
      await expect(store.load(thread, [{ ...first!, ts: "not a time" }])).rejects.toBeInstanceOf(ValueError);
      await expect(store.load(thread, [first!, { ...second!, payload: { big: 1n } as never }])).rejects.toThrow(
        /JSON-serialisable/,
      );
      expect(await collect(store.read(thread))).toEqual(before);
    });

    it("loads an empty log as a thread with no events, which is not listed", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      await store.append(thread, events(2));
      await store.load(thread, []);
      expect(await collect(store.read(thread))).toEqual([]);
      expect(await store.threads({ limit: 10 })).toEqual([]);
      expect((await store.append(thread, events(1)))[0]!.seq).toBe(0);
    });

    it("deletes a thread's log, and the id starts a new thread on the next append", async () => {
      fixture = await open();
      const { store } = fixture;
      const [gone, kept] = [threadId(), threadId()];
      await store.append(gone, events(3));
      await store.append(kept, events(1));
      await store.delete(gone);
      expect(await collect(store.read(gone))).toEqual([]);
      expect(await collect(store.readBackwards(gone))).toEqual([]);
      expect(await collect(store.read(kept))).toHaveLength(1);
      const [again] = await store.append(gone, events(1));
      expect(again!.seq).toBe(0);
      expect((await collect(store.read(gone))).map((entry) => entry.position)).toEqual([1]);
    });
  });
}
