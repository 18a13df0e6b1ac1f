/**
 * Every built-in adapter in one module, for the repository's own tests and tools. Not a package subpath: the
 * package puts each adapter with heavy dependencies on its own (soev-agents/sqlite, /postgres, /openai, /otel),
 * so that an app loads only the drivers it uses.
 */
export { InMemoryTraceStore } from "./stores/memory.js";
export type { InMemoryTraceStoreOptions } from "./stores/memory.js";
export { StoreClosedError } from "./stores/validation.js";
export { DemoModel, DEMO_MODEL } from "./demo-model.js";
export { InProcessLiveChannel } from "./live/in-process.js";
export * from "./sqlite/index.js";
export * from "./postgres/index.js";
export * from "./openai/index.js";
export * from "./otel/index.js";
