// The turn workflow's result tells a cited Source, a named Reference and a number naming nothing apart.
import { describe, expect, it } from "vitest";
import { turnSummary } from "../../activities/close-turn.js";
import { Reference, Source } from "../../src/domain/elements.js";
import { Input, ModelOutput, ToolOutput } from "../../src/domain/events.js";
import { Trace } from "../../src/domain/trace.js";

describe("the turn's result", () => {
  it("names what each cited number named: a Source, a Reference, or nothing", () => {
    const trace = Trace.of([
      Input({ payload: "Waste?", model: "scripted", seq: 0 }),
      ToolOutput({
        callId: "c1",
        text: "found",
        elements: [Source({ id: "waste#2", text: "Four times a year." }), Reference({ id: "waste-rules" })],
        seq: 1,
      }),
      ModelOutput({
        content: "Four times a year. See the rules. Maybe.",
        markers: [
          { at: 17, text: " [1]", cited: [{ written: 1, source: "waste#2" }] },
          { at: 32, text: " [2]", cited: [{ written: 2, source: null }] },
          { at: 39, text: " [9]", cited: [{ written: 9, source: null }] },
        ],
        seq: 2,
      }),
    ]);
    const result = turnSummary({ agent: "assistant", threadId: "t", stream: "main", inputSeq: 0 }, trace);
    expect(result.citations).toEqual([
      { marker: " [1]", sources: ["waste#2"], numbers: [{ number: 1, element: "waste#2", kind: "source" }] },
      { marker: " [2]", sources: [null], numbers: [{ number: 2, element: "waste-rules", kind: "reference" }] },
      { marker: " [9]", sources: [null], numbers: [{ number: 9, element: null, kind: null }] },
    ]);
    expect(result.sources).toEqual(["waste#2"]);
  });
});
