/** Conformance of read with follow: tail -f across connections, resuming, and the ends of a follow. */
import { afterEach, describe, expect, it } from "vitest";
import { collect, events, threadId, Follower, type OpenStore, type StoreFixture } from "./support.js";

/** The follow part of the suite. */
export function followConformance(open: OpenStore): void {
  describe("read with follow", () => {
    let fixture: StoreFixture;
    afterEach(async () => fixture?.close());

    it("yields what exists, then each append made through another connection, until its signal aborts", async () => {
      fixture = await open();
      const { store } = fixture;
      const other = await fixture.other();
      const thread = threadId();
      await store.append(thread, events(2));
      const follower = new Follower(store, thread);
      await follower.saw(2);
      await other.append(thread, events(1, 2));
      await follower.saw(3);
      await other.append(thread, events(2, 3, "task"));
      await follower.saw(5);
      await follower.stop();
      expect(follower.positions).toEqual([1, 2, 3, 4, 5]);
      expect(follower.entries.map((entry) => entry.event.payload.i)).toEqual([0, 1, 2, 3, 4]);
    });

    it("resumed with after, misses nothing and sees nothing twice", async () => {
      fixture = await open();
      const { store } = fixture;
      const other = await fixture.other();
      const thread = threadId();
      await store.append(thread, events(3));
      const first = new Follower(other, thread);
      await first.saw(3);
      await first.stop();
      await store.append(thread, events(2, 3));
      const resumed = new Follower(other, thread, first.positions.at(-1));
      await store.append(thread, events(2, 5));
      await resumed.saw(4);
      await store.append(thread, events(1, 7));
      await resumed.saw(5);
      await resumed.stop();
      expect([...first.positions, ...resumed.positions]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(await collect(store.read(thread))).toEqual([...first.entries, ...resumed.entries]);
    });

    it("ends when the thread is deleted, through another connection, and does not follow a thread re-created under the id", async () => {
      fixture = await open();
      const { store } = fixture;
      const other = await fixture.other();
      const thread = threadId();
      await store.append(thread, events(2));
      const follower = new Follower(store, thread);
      await follower.saw(2);
      await other.delete(thread);
      await follower.end();
      await other.append(thread, events(3, 100));
      expect(follower.entries.map((entry) => entry.event.payload.i)).toEqual([0, 1]);
    });

    it("ends when the thread is loaded again", async () => {
      fixture = await open();
      const { store } = fixture;
      const other = await fixture.other();
      const thread = threadId();
      const appended = await store.append(thread, events(2));
      const follower = new Follower(store, thread);
      await follower.saw(2);
      await other.load(thread, appended);
      await follower.end();
      expect(follower.positions).toEqual([1, 2]);
    });

    it("waits for a thread that does not exist yet, and follows it from its first append", async () => {
      fixture = await open();
      const { store } = fixture;
      const other = await fixture.other();
      const thread = threadId("later");
      const follower = new Follower(store, thread);
      await other.append(thread, events(2));
      await follower.saw(2);
      await follower.stop();
      expect(follower.positions).toEqual([1, 2]);
    });

    it("ends every follow when the store closes", async () => {
      fixture = await open();
      const other = await fixture.other();
      const thread = threadId();
      await other.append(thread, events(1));
      const follower = new Follower(other, thread);
      await follower.saw(1);
      await other.close();
      await follower.end();
      expect(follower.positions).toEqual([1]);
    });
  });
}
