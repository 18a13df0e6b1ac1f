/**
 * The conformance suite of TraceStore: one set of tests that every store must pass. A store's test file
 * calls it with a function that opens a fresh, empty store.
 */
import { describe } from "vitest";
import { appendConformance } from "./append.js";
import { badInputConformance } from "./bad-input.js";
import { followConformance } from "./follow.js";
import { leaseConformance } from "./leases.js";
import { readConformance } from "./reads.js";
import { referenceFormatConformance } from "./reference-format.js";
import type { OpenStore } from "./support.js";
import { threadsConformance } from "./threads.js";

export type { OpenStore, StoreFixture } from "./support.js";

/** Run the whole TraceStore contract against the stores that `open` makes. */
export function traceStoreConformance(name: string, open: OpenStore): void {
  describe(`${name} conforms to TraceStore`, () => {
    appendConformance(open);
    leaseConformance(open);
    readConformance(open);
    followConformance(open);
    threadsConformance(open);
    badInputConformance(open);
    referenceFormatConformance(open);
  });
}
