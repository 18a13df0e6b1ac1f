/** Conformance on bad input: each gives the documented or a clear error, and nothing of the call lands. */
import { afterEach, describe, expect, it } from "vitest";
import { ValueError } from "../../../../src/domain/errors.js";
import type { StoredEvent } from "../../../../src/domain/events.js";
import { SealedEventError } from "../../../../src/ports/errors.js";
import { StoreClosedError } from "../../../../src/adapters/index.js";
import { collect, event, events, threadId, type OpenStore, type StoreFixture } from "./support.js";

/** The bad-input part of the suite. */
export function badInputConformance(open: OpenStore): void {
  describe("bad input", () => {
    let fixture: StoreFixture;
    afterEach(async () => fixture?.close());

    it("refuses an append holding a sealed event with SealedEventError, and none of its events lands", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const [stored] = await store.append(thread, events(1));
      await expect(store.append(thread, [event({ i: 1 }), stored!, event({ i: 2 })])).rejects.toBeInstanceOf(
        SealedEventError,
      );
      await expect(
        store.append(thread, [event({ i: 1 }), { ...event(), ts: "2024-01-01T00:00:00.000Z" }]),
      ).rejects.toThrow(/sealed already/);
      await expect(store.append(threadId(), [{ ...event(), seq: 0 }])).rejects.toBeInstanceOf(SealedEventError);
      expect(await collect(store.read(thread))).toEqual([{ position: 1, event: stored }]);
      expect((await store.threads({ limit: 10 })).map(([id]) => id)).toEqual([thread]);
    });

    it("refuses a payload that is not JSON-serialisable (a BigInt, a cycle) with a clear ValueError, and nothing lands", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const cycle: Record<string, unknown> = { name: "loop" };
      cycle.self = cycle;
      await expect(store.append(thread, [event({ ok: 1 }), event({ count: 10n })])).rejects.toThrow(
        /Event 1 \(type "note"\).*not JSON-serialisable.*BigInt/,
      );
      await expect(store.append(thread, [event({ ok: 1 }), event(cycle)])).rejects.toThrow(ValueError);
      await expect(store.append(thread, [event({ ok: 1 }), event(cycle)])).rejects.toThrow(/circular/i);
      expect(await collect(store.read(thread))).toEqual([]);
      expect(await store.threads({ limit: 10 })).toEqual([]);
    });

    it("refuses events that are not StoredEvents with ValueError, and nothing lands", async () => {
      fixture = await open();
      const { store } = fixture;
      const thread = threadId();
      const bad: unknown[] = [
        { ...event(), payload: [1, 2] },
        { ...event(), payload: null },
        { ...event(), stream: "" },
        { ...event(), actor: "robot" },
        { ...event(), type: 7 },
        null,
      ];
      for (const item of bad) {
        await expect(store.append(thread, [event({ ok: 1 }), item as StoredEvent])).rejects.toBeInstanceOf(ValueError);
      }
      await expect(store.append(thread, events(1), { expected: { main: -1 } })).rejects.toBeInstanceOf(ValueError);
      expect(await collect(store.read(thread))).toEqual([]);
    });

    it("refuses every call after close with StoreClosedError", async () => {
      fixture = await open();
      const other = await fixture.other();
      await other.close();
      await expect(other.append(threadId(), events(1))).rejects.toBeInstanceOf(StoreClosedError);
      await expect(collect(other.read(threadId()))).rejects.toBeInstanceOf(StoreClosedError);
      await expect(other.threads({ limit: 1 })).rejects.toBeInstanceOf(StoreClosedError);
    });
  });
}
