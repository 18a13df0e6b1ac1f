/** Conformance of TraceStore.append: sealing, positions, JSON payloads, `expected`, atomicity, size. */
import { afterEach, describe, expect, it } from "vitest";
import { LeaseExpiredError, StreamMovedError } from "../../../../src/ports/errors.js";
import { collect, event, events, threadId, type OpenStore, type StoreFixture } from "./support.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The append part of the suite. */
export function appendConformance(open: OpenStore): void {
  describe("append", () => {
    let fixture: StoreFixture;
    afterEach(async () => fixture?.close());

    it("seals seq as the place in its stream from 0, ts as the append's ISO time, and numbers positions across streams", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const first = await store.append(thread, [event({ n: 1 }), event({ n: 2 })]);
      const side = await store.append(thread, [event({ n: 3 }, "task-1")]);
      const last = await store.append(thread, [event({ n: 4 })]);
      expect([...first, ...side, ...last].map((stored) => [stored.stream, stored.seq])).toEqual([
        ["main", 0],
        ["main", 1],
        ["task-1", 0],
        ["main", 2],
      ]);
      for (const stored of [...first, ...side, ...last]) {
        expect(stored.ts).toMatch(ISO);
        expect(new Date(stored.ts!).toISOString()).toBe(stored.ts);
      }
      expect(first[0]!.ts).toBe(first[1]!.ts);
      const read = await collect(store.read(thread));
      expect(read.map((entry) => entry.position)).toEqual([1, 2, 3, 4]);
      expect(read.map((entry) => entry.event)).toEqual([...first, ...side, ...last]);
    });

    it("keeps the payload as JSON: what append returns is what a read yields, and later changes to the input do not reach the log", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const payload = {
        text: 'naïve 🙂 \u0000 "quoted"',
        nested: { list: [1, 2.5, null, true], empty: {} },
        dropped: undefined,
        when: new Date(0),
      };
      const [stored] = await store.append(thread, [
        { ...event(payload), origin: "model-node", version: "1.2.3", actor: "model" },
      ]);
      expect(stored!.payload).toEqual({
        text: 'naïve 🙂 \u0000 "quoted"',
        nested: { list: [1, 2.5, null, true], empty: {} },
        when: "1970-01-01T00:00:00.000Z",
      });
      expect(stored).toMatchObject({
        type: "note",
        stream: "main",
        actor: "model",
        origin: "model-node",
        version: "1.2.3",
      });
      payload.nested.list.push(99);
      // The same again as the runner appends (one event, its stream's length expected), with a fingerprint.
      const [again] = await store.append(
        thread,
        [{ ...event(payload), origin: "model-node", version: "1.2.3", actor: "model", checked: "0123456789abcdef" }],
        { expected: { main: 1 } },
      );
      expect(again).toMatchObject({
        payload: { ...stored!.payload, nested: payload.nested },
        checked: "0123456789abcdef",
      });
      const [entry, next] = await collect(store.read(thread));
      expect(entry!.event).toEqual(stored);
      expect(next!.event).toEqual(again);
    });

    it("keeps the fingerprint that checked an event at append; load restores events unchecked, so an import is checked on every decode", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const appended = await store.append(thread, [
        { ...event({ n: 1 }), checked: "0123456789abcdef" },
        event({ n: 2 }),
      ]);
      expect(appended.map((stored) => stored.checked)).toEqual(["0123456789abcdef", undefined]);
      const read = await collect(store.read(thread));
      expect(read.map((entry) => entry.event)).toEqual(appended);
      expect("checked" in read[1]!.event).toBe(false);
      const copy = threadId("copy");
      await store.load(copy, appended);
      expect((await collect(store.read(copy))).map((entry) => entry.event.checked)).toEqual([undefined, undefined]);
      await expect(store.append(thread, [{ ...event(), checked: 7 as never }])).rejects.toThrow(/checked fingerprint/);
    });

    it("refuses the whole append with StreamMovedError when a stream in expected grew, checks only the listed streams, and lands when they match", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      await store.append(thread, events(2));
      await store.append(thread, events(1, 0, "side"));
      const refused = store.append(thread, events(3, 10), { expected: { main: 1 } });
      await expect(refused).rejects.toBeInstanceOf(StreamMovedError);
      // One event, as the runner appends (the thread's last event is in another stream): the length found is told.
      await expect(store.append(thread, events(1, 10), { expected: { main: 1 } })).rejects.toThrow(
        /Stream "main".*has 2 events.*expected 1/,
      );
      await expect(store.append(thread, events(1, 10), { expected: { main: 2, side: 0 } })).rejects.toThrow(
        /Stream "side".*has 1 events.*expected 0/,
      );
      await expect(store.append(thread, events(1, 10), { expected: { other: 1 } })).rejects.toBeInstanceOf(
        StreamMovedError,
      );
      expect(await collect(store.read(thread))).toHaveLength(3);
      const landed = await store.append(thread, events(1, 20), { expected: { main: 2, other: 0 } });
      expect(landed[0]!.seq).toBe(2);
      await store.append(thread, events(1, 30), { expected: null });
      const [side] = await store.append(thread, events(1, 40, "side"), { expected: { side: 1 } });
      expect(side!.seq).toBe(1);
      expect((await collect(store.read(thread))).map((entry) => entry.event.payload.i)).toEqual([0, 1, 0, 20, 30, 40]);
    });

    it("lets exactly one of two concurrent appends with the same expected land, through two connections", async () => {
      fixture = await open();
      const { store } = fixture;
      const other = await fixture.other();
      // Batches of two and of one (the runner's usual append), in turn.
      for (let round = 0; round < 6; round++) {
        const thread = threadId("race");
        await store.append(thread, events(1));
        const batch = (by: string) => Array.from({ length: 2 - (round % 2) }, () => event({ by }));
        const results = await Promise.allSettled([
          store.append(thread, batch("first"), { expected: { main: 1 } }),
          other.append(thread, batch("second"), { expected: { main: 1 } }),
        ]);
        const landed = results.filter((result) => result.status === "fulfilled");
        const refused = results.filter((result): result is PromiseRejectedResult => result.status === "rejected");
        expect(landed).toHaveLength(1);
        expect(refused).toHaveLength(1);
        expect(refused[0]!.reason).toBeInstanceOf(StreamMovedError);
        const log = await collect(store.read(thread));
        expect(log.map((entry) => entry.event.seq)).toEqual(round % 2 === 0 ? [0, 1, 2] : [0, 1]);
        expect(new Set(log.slice(1).map((entry) => entry.event.payload.by)).size).toBe(1);
      }
    });

    it("decides each append on what other connections and its own other calls wrote since its last append", async () => {
      fixture = await open();
      const { store } = fixture;
      const other = await fixture.other();
      const thread = threadId();
      await store.append(thread, events(2));
      // The stream grew through the other connection: the length this connection appended to is stale.
      await other.append(thread, events(1, 2), { expected: { main: 2 } });
      await expect(store.append(thread, events(1, 9), { expected: { main: 2 } })).rejects.toBeInstanceOf(
        StreamMovedError,
      );
      const [sealed] = await store.append(thread, events(1, 3), { expected: { main: 3 } });
      expect(sealed!.seq).toBe(3);
      // A lease this connection acquires again holds at once, and the one it replaced no longer.
      const first = await store.acquire(thread, { owner: "worker", ttl: 60 });
      await store.append(thread, events(1, 4), { lease: first });
      const second = await store.acquire(thread, { owner: "worker", ttl: 60 });
      await store.append(thread, events(1, 5), { lease: second });
      await expect(store.append(thread, events(1, 9), { lease: first })).rejects.toBeInstanceOf(LeaseExpiredError);
      // One replaced through the other connection fences this one's appends under it.
      await other.acquire(thread, { owner: "worker", ttl: 60 });
      await expect(store.append(thread, events(1, 9), { lease: second })).rejects.toBeInstanceOf(LeaseExpiredError);
      // A thread deleted, through either connection, starts again at position 1.
      for (const deleter of [other, store]) {
        await store.append(thread, events(1, 6));
        await deleter.delete(thread);
        const [again] = await store.append(thread, events(1, 7), { expected: { main: 0 } });
        expect(again!.seq).toBe(0);
        expect((await collect(other.read(thread))).map((entry) => [entry.position, entry.event.payload.i])).toEqual([
          [1, 7],
        ]);
      }
    });

    it("appends nothing for an empty list, yet checks expected", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      expect(await store.append(thread, [])).toEqual([]);
      expect(await collect(store.read(thread))).toEqual([]);
      expect(await store.threads({ limit: 10 })).toEqual([]);
      await expect(store.append(thread, [], { expected: { main: 3 } })).rejects.toBeInstanceOf(StreamMovedError);
    });

    it("reads 10,000 events of one thread back in order, forwards and backwards", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId("big");
      for (let batch = 0; batch < 10; batch++) await store.append(thread, events(1000, batch * 1000));
      const forwards = await collect(store.read(thread));
      const expected = Array.from({ length: 10_000 }, (_, index) => [index + 1, index, index]);
      expect(forwards.map((entry) => [entry.position, entry.event.seq, entry.event.payload.i])).toEqual(expected);
      const backwards = await collect(store.readBackwards(thread));
      expect(backwards.map((entry) => entry.position)).toEqual(forwards.map((entry) => entry.position).reverse());
      expect(backwards.map((entry) => entry.event)).toEqual(forwards.map((entry) => entry.event).reverse());
      const past = await collect(store.read(thread, { after: 9_990 }));
      expect(past.map((entry) => entry.position)).toEqual([
        9991, 9992, 9993, 9994, 9995, 9996, 9997, 9998, 9999, 10000,
      ]);
      // Only what the reader asked for was fetched: once the thread is gone, a paused reader gets at most the rest of a page.
      const reader = store.readBackwards(thread)[Symbol.asyncIterator]();
      expect((await reader.next()).value?.position).toBe(10_000);
      await store.delete(thread);
      let rest = 0;
      while (!(await reader.next()).done) rest++;
      expect(rest).toBeLessThan(9_999);
    });
  });
}
