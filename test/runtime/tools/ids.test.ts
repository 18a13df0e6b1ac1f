import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolOutput } from "../../../src/domain/events.js";
import { ResultHandles } from "../../../src/runtime/tools/ids.js";

describe("ResultHandles", () => {
  it("answers each call id alike whatever was asked before, in any order, and undefined for one no result has", () => {
    fc.assert(
      fc.property(
        // Results by call id (some recorded twice, some without one), then call ids asked about, some unknown.
        fc.array(fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 35 }), { maxLength: 80 }),
        (recorded, asked) => {
          const events = recorded.map((id) => ToolOutput({ callId: id === null ? null : `c${id}`, elements: [] }));
          const expected = new Map<string, string>();
          for (const id of recorded)
            if (id !== null && !expected.has(`c${id}`)) expected.set(`c${id}`, `r${expected.size + 1}`);
          // In order first, as a build asks, then the asked ones.
          const ids = [...expected.keys(), ...asked.map((id) => `c${id}`)];
          const handles = new ResultHandles(events);
          expect(ids.map((id) => handles.handleOf(id))).toEqual(ids.map((id) => expected.get(id)));
        },
      ),
    );
  });
});
