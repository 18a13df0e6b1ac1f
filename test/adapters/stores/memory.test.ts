/** InMemoryTraceStore against the TraceStore conformance suite. */
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { traceStoreConformance } from "./conformance/index.js";

traceStoreConformance("InMemoryTraceStore", async () => {
  const store = new InMemoryTraceStore();
  // Memory has no second connection: the other store is the same one.
  return { store, other: async () => store, close: () => store.close() };
});
