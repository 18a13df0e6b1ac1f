/** EventTypes decoding: a stored event that does not fit its type fails with a DecodeError naming the type and field. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DecodeError } from "../../src/domain/errors.js";
import { ToolOutput, defineEventType, type StoredEvent } from "../../src/domain/events.js";
import { EventTypes, encode } from "../../src/domain/registry.js";

function caught(run: () => unknown): DecodeError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DecodeError);
    return error as DecodeError;
  }
  throw new Error("decode did not throw");
}

describe("EventTypes.decode", () => {
  const types = new EventTypes();

  it("reads back what encode made", () => {
    const stored = encode(ToolOutput({ callId: "c1", text: "found" }));
    expect(types.decode(stored)).toMatchObject({ type: "tool-output", callId: "c1", text: "found", elements: [] });
  });

  it("refuses a malformed payload with a DecodeError naming the type and the field", () => {
    const stored: StoredEvent = { ...encode(ToolOutput({ callId: "c1" })), payload: { callId: 42 } };
    const error = caught(() => types.decode(stored));
    expect(error.message).toContain('"tool-output"');
    expect(error.message).toContain('field "callId"');
    expect(error.details).toMatchObject({ field: "callId" });
  });

  it("names a nested field of a type of the agent's own", () => {
    const Rating = defineEventType("rating", { scores: z.array(z.object({ stars: z.number().int() })) });
    const own = new EventTypes({ events: [Rating] });
    const stored: StoredEvent = {
      ...encode(Rating({ scores: [{ stars: 5 }] })),
      payload: { scores: [{ stars: 5 }, { stars: "many" }] },
    };
    const error = caught(() => own.decode(stored));
    expect(error.message).toMatch(/"rating".*field "scores\.1\.stars"/);
  });

  it("refuses an unknown type with a DecodeError naming it", () => {
    const stored: StoredEvent = { ...encode(ToolOutput({})), type: "no-such-type" };
    expect(caught(() => types.decode(stored)).message).toContain('"no-such-type"');
  });
});
