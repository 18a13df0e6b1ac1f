/**
 * The worker's trace cache: a unit's appends extend the cached trace, so the next read fetches only its
 * anchor and what others wrote since; the cached trace always equals a fresh read of the store.
 */
import { describe, expect, it } from "vitest";
import { InMemoryTraceStore, SqliteTraceStore } from "../../src/adapters/index.js";
import { Input, ModelOutput, ToolOutput, type LogEntry, type StoredEvent } from "../../src/domain/events.js";
import { EventTypes } from "../../src/domain/registry.js";
import { append, readTrace, type Recorder } from "../../src/runtime/runner/work.js";
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
});
