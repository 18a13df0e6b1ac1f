/** InMemoryTraceStore against the TraceStore conformance suite. */
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { ManualClock } from "../../../src/testing/index.js";
import { traceStoreConformance } from "./conformance/index.js";

traceStoreConformance("InMemoryTraceStore", async () => {
  const clock = new ManualClock();
  const store = new InMemoryTraceStore({ clock });
  // Memory has no second connection: the other store is the same one.
  return { store, other: async () => store, close: () => store.close(), pass: async (ms) => clock.advance(ms) };
});
