/** Conformance of the lease methods: counters, replacement, expiry, release, and appends under a lease. */
import { afterEach, describe, expect, it } from "vitest";
import { ValueError } from "../../../../src/domain/errors.js";
import { LeaseExpiredError, LeaseHeldError } from "../../../../src/ports/errors.js";
import { collect, events, threadId, type OpenStore, type StoreFixture } from "./support.js";

/** A ttl that has surely passed after `fixture.pass(PAST_TTL)`. */
const SHORT_TTL = 0.05;
const PAST_TTL = 150;

/** The lease part of the suite. */
export function leaseConformance(open: OpenStore): void {
  describe("leases", () => {
    let fixture: StoreFixture;
    afterEach(async () => fixture?.close());

    it("hands out counter 1, refuses another owner with LeaseHeldError while it lives, and changes nothing then", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      expect(await store.lease(thread)).toBeNull();
      const lease = await store.acquire(thread, { owner: "a", ttl: 60 });
      expect(lease).toEqual({ threadId: thread, owner: "a", counter: 1 });
      await expect(store.acquire(thread, { owner: "b", ttl: 60 })).rejects.toBeInstanceOf(LeaseHeldError);
      expect(await store.lease(thread)).toEqual(lease);
      await store.append(thread, events(1), { lease });
    });

    it("refuses the first holder's append and renew after a second acquisition, and leaves the new lease alone on its release", async () => {
      fixture = await open();
      const { store } = fixture;
      const other = await fixture.other();
      const thread = threadId();
      const first = await store.acquire(thread, { owner: "a", ttl: SHORT_TTL });
      await fixture.pass(PAST_TTL);
      const second = await other.acquire(thread, { owner: "b", ttl: 60 });
      expect(second.counter).toBe(2);
      await expect(store.append(thread, events(2), { lease: first })).rejects.toBeInstanceOf(LeaseExpiredError);
      // As the runner appends: with the stream's length expected too (the length holds; the lease does not).
      await expect(store.append(thread, events(2), { lease: first, expected: { main: 0 } })).rejects.toBeInstanceOf(
        LeaseExpiredError,
      );
      await expect(store.renew(first, { ttl: 60 })).rejects.toBeInstanceOf(LeaseExpiredError);
      await store.release(first);
      expect(await store.lease(thread)).toEqual(second);
      expect(await collect(store.read(thread))).toEqual([]);
      await store.append(thread, events(1), { lease: second });
      expect(await collect(store.read(thread))).toHaveLength(1);
    });

    it("replaces the owner's own lease when the owner acquires again", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const first = await store.acquire(thread, { owner: "a", ttl: 60 });
      const again = await store.acquire(thread, { owner: "a", ttl: 60 });
      expect(again.counter).toBe(first.counter + 1);
      await expect(store.append(thread, events(1), { lease: first })).rejects.toThrow(LeaseExpiredError);
      await expect(store.renew(first, { ttl: 60 })).rejects.toThrow(/replaced/);
      await store.append(thread, events(1), { lease: again });
    });

    it("still appends under a lease that expired or was released when no acquisition replaced it, and renew revives it", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const lease = await store.acquire(thread, { owner: "a", ttl: SHORT_TTL });
      await fixture.pass(PAST_TTL);
      expect(await store.lease(thread)).toBeNull();
      await store.append(thread, events(1), { lease });
      await store.renew(lease, { ttl: 60 });
      expect(await store.lease(thread)).toEqual(lease);
      await store.release(lease);
      expect(await store.lease(thread)).toBeNull();
      await store.append(thread, events(1), { lease });
      expect(await collect(store.read(thread))).toHaveLength(2);
    });

    it("frees the thread on release, so that another owner acquires at once with the next counter", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const lease = await store.acquire(thread, { owner: "a", ttl: 60 });
      await store.release(lease);
      const next = await store.acquire(thread, { owner: "b", ttl: 60 });
      expect(next).toEqual({ threadId: thread, owner: "b", counter: 2 });
    });

    it("refuses an append under a lease when the store holds no lease of the thread, and delete removes the lease", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const made = { threadId: thread, owner: "a", counter: 1 };
      await expect(store.append(thread, events(1), { lease: made })).rejects.toThrow(/holds no lease/);
      await expect(store.append(thread, events(1), { lease: made, expected: { main: 0 } })).rejects.toThrow(
        /holds no lease/,
      );
      const lease = await store.acquire(thread, { owner: "a", ttl: 60 });
      await store.append(thread, events(1), { lease });
      await store.delete(thread);
      expect(await store.lease(thread)).toBeNull();
      await expect(store.append(thread, events(1), { lease })).rejects.toBeInstanceOf(LeaseExpiredError);
      await expect(store.renew(lease, { ttl: 60 })).rejects.toBeInstanceOf(LeaseExpiredError);
      expect(await collect(store.read(thread))).toEqual([]);
    });

    it("keeps leases of different threads apart, and refuses a lease of another thread or bad terms with ValueError", async () => {
      fixture = await open();
      const { store } = fixture;
      const [one, two] = [threadId(), threadId()];
      const lease = await store.acquire(one, { owner: "a", ttl: 60 });
      expect((await store.acquire(two, { owner: "b", ttl: 60 })).counter).toBe(1);
      await expect(store.append(two, events(1), { lease })).rejects.toBeInstanceOf(ValueError);
      await expect(store.acquire(one, { owner: "a", ttl: 0 })).rejects.toBeInstanceOf(ValueError);
      await expect(store.acquire(one, { owner: "", ttl: 5 })).rejects.toBeInstanceOf(ValueError);
      await expect(store.renew(lease, { ttl: -1 })).rejects.toBeInstanceOf(ValueError);
      expect(await store.lease(one)).toEqual(lease);
      expect(await collect(store.read(two))).toEqual([]);
    });
  });
}
