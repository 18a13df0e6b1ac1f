/** Reading a thread from a store, decoded into a Trace. */
import type { EventTypes } from "../../domain/registry.js";
import { Trace } from "../../domain/trace.js";
import type { TraceStore } from "../../ports/store.js";

/** Read a thread's whole log and decode it. An unknown thread gives an empty trace. */
export async function readTrace(store: TraceStore, types: EventTypes, threadId: string): Promise<Trace> {
  const entries = [];
  for await (const entry of store.read(threadId))
    entries.push({ position: entry.position, event: types.decode(entry.event) });
  return new Trace(entries);
}
