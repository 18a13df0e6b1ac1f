/**
 * The worker's trace cache: a unit's appends extend the cached trace, so the next read fetches only its
 * anchor and what others wrote since; the cached trace always equals a fresh read of the store.
 */
import { describe, expect, it } from "vitest";
import { InMemoryTraceStore, SqliteTraceStore } from "../../src/adapters/index.js";
import { Input, ModelOutput, ToolOutput, type LogEntry, type StoredEvent } from "../../src/domain/events.js";
import { Trace } from "../../src/domain/trace.js";
import { EventTypes } from "../../src/domain/registry.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { CACHED_THREADS, TraceCache, append, readTrace, type Recorder } from "../../src/runtime/runner/work.js";
import type { ReadOptions, TraceStore } from "../../src/ports/store.js";

/** Counts the entries that reads fetch from the store. */
function counted<T extends TraceStore>(store: T): T & { fetched: number } {
  const counting = store as T & { fetched: number };
  counting.fetched = 0;
  const read = store.read.bind(store);
  counting.read = async function* (threadId: string, options?: ReadOptions): AsyncGenerator<LogEntry<StoredEvent>> {
    for await (const entry of read(threadId, options)) {
      counting.fetched++;
      yield entry;
    }
  };
  return counting;
}

/** The thread as a new registry (no cache) reads it. */
async function fresh(store: TraceStore, threadId: string) {
  return (await readTrace(store, new EventTypes(), threadId)).entries;
}

const stores = {
  memory: () => new InMemoryTraceStore(),
  sqlite: () => new SqliteTraceStore(":memory:"),
};

describe.each(Object.entries(stores))("the trace cache on the %s store", (_name, make) => {
  it("extends the cached trace with a unit's appends: the next read fetches only the anchor, and equals a fresh read", async () => {
    const store = counted(make());
    const recorder: Recorder = { store, types: new EventTypes(), threadId: "t1" };
    let trace = await readTrace(store, recorder.types, "t1");
    await append(recorder, [Input({ payload: "Hello" })], trace, "main");
    trace = await readTrace(store, recorder.types, "t1");
    for (let index = 0; index < 3; index++) {
      const calls = [{ id: `c${index}`, name: "search", arguments: {} }];
      await append(recorder, [ModelOutput({ toolCalls: calls })], trace, "main");
      const extended = await readTrace(store, recorder.types, "t1");
      await append(recorder, [ToolOutput({ callId: `c${index}`, text: "found" })], extended, "main");
      store.fetched = 0;
      trace = await readTrace(store, recorder.types, "t1");
      // Only the anchor, the last entry the cache holds: nothing that this unit wrote is read again.
      expect(store.fetched).toBe(1);
      expect(trace.entries).toEqual(await fresh(store, "t1"));
    }
    expect(trace.length).toBe(7);
    await store.close();
  });

  it("reads again from the last confirmed entry when another stream's writer came between the read and the append", async () => {
    const store = counted(make());
    const recorder: Recorder = { store, types: new EventTypes(), threadId: "t2" };
    await append(recorder, [Input({ payload: "Hello" })], await readTrace(store, recorder.types, "t2"), "main");
    const before = await readTrace(store, recorder.types, "t2");
    // Another writer (a task's stream) appends after our read: our `expected` on "main" still holds.
    await store.append("t2", [new EventTypes().check(Input({ payload: "task", stream: "task-1" }))]);
    await append(recorder, [ModelOutput({ content: "Hi" })], before, "main");
    const after = await readTrace(store, recorder.types, "t2");
    expect(after.entries).toEqual(await fresh(store, "t2"));
    expect(after.entries.map((entry) => [entry.position, entry.event.stream])).toEqual([
      [1, "main"],
      [2, "task-1"],
      [3, "main"],
    ]);
    await store.close();
  });

  it(`keeps the traces of the ${CACHED_THREADS} threads read last: an older thread is read whole again`, async () => {
    const store = counted(make());
    const types = new EventTypes();
    const ids = Array.from({ length: CACHED_THREADS + 1 }, (_, index) => `many-${index}`);
    for (const id of ids)
      await store.append(id, [types.check(Input({ payload: "Hello" })), types.check(Input({ payload: "Again" }))]);
    for (const id of ids) await readTrace(store, types, id);
    // A kept thread reads only its anchor, the last entry; the one read first went and is read whole.
    store.fetched = 0;
    await readTrace(store, types, ids[1]!);
    expect(store.fetched).toBe(1);
    store.fetched = 0;
    await readTrace(store, types, ids[0]!);
    expect(store.fetched).toBe(2);
    await store.close();
  });
});

describe("a catalog's keptTraces", () => {
  it("bounds the traces its store keeps, and refuses bounds that are not positive integers", async () => {
    const store = counted(new InMemoryTraceStore());
    const types = new EventTypes();
    new AgentCatalog(store, {}, { keptTraces: { events: 5 } });
    for (const id of ["a", "b", "c"])
      await store.append(id, [types.check(Input({ payload: "Hello" })), types.check(Input({ payload: "Again" }))]);
    for (const id of ["a", "b", "c"]) await readTrace(store, types, id);
    // 6 events are more than 5: "a", read first, went; "c" and "b" stay.
    store.fetched = 0;
    await readTrace(store, types, "c");
    expect(store.fetched).toBe(1);
    await readTrace(store, types, "a");
    expect(store.fetched).toBe(3);
    expect(() => new AgentCatalog(store, {}, { keptTraces: { threads: 0 } })).toThrow(
      /keptTraces.threads must be a positive integer, not 0/,
    );
    expect(() => new AgentCatalog(store, {}, { keptTraces: { events: 2.5 } })).toThrow(/keptTraces.events/);
    expect(() => new AgentCatalog(store, {}, { keptTraces: "many" as never })).toThrow(/keptTraces must be an object/);
    await store.close();
  });
});

describe("a TraceCache", () => {
  const types = new EventTypes();
  const cached = (length: number) => {
    const trace = Trace.of(Array.from({ length }, (_, index) => Input({ payload: `Question ${index}?` })));
    return { types, trace, confirmed: length };
  };

  it("lets the least recently used threads go past its count of events, but never the thread kept last", () => {
    const cache = new TraceCache({ threads: 10, events: 10 });
    cache.remember("a", cached(4));
    cache.remember("b", cached(3));
    cache.remember("c", cached(3));
    expect(["a", "b", "c"].map((id) => cache.get(id) !== undefined)).toEqual([true, true, true]);
    // 12 events: "a", the least recently used, goes.
    cache.remember("d", cached(2));
    expect(["a", "b", "c", "d"].map((id) => cache.get(id) !== undefined)).toEqual([false, true, true, true]);
    // "b" grown to 6 is the most recently used now: "c" goes, and the count holds b's new length alone.
    cache.remember("b", cached(6));
    expect(["b", "c", "d"].map((id) => cache.get(id) !== undefined)).toEqual([true, false, true]);
    cache.forget("d");
    cache.remember("e", cached(4));
    expect(["b", "e"].map((id) => cache.get(id) !== undefined)).toEqual([true, true]);
    // A thread longer than the limit stays, alone.
    cache.remember("f", cached(11));
    expect(["b", "e", "f"].map((id) => cache.get(id) !== undefined)).toEqual([false, false, true]);
  });

  it("keeps at most its count of threads", () => {
    const cache = new TraceCache({ threads: 2, events: 100 });
    for (const id of ["a", "b", "c"]) cache.remember(id, cached(1));
    expect(["a", "b", "c"].map((id) => cache.get(id) !== undefined)).toEqual([false, true, true]);
  });
});
