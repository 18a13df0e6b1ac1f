/**
 * EventTypes decoding: a stored event that does not fit its type fails with a DecodeError naming the type and
 * field; an event checked at append by the same schemas decodes without them, to exactly the same event.
 */
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { DecodeError } from "../../src/domain/errors.js";
import {
  Failure,
  Input,
  ModelOutput,
  Request,
  Response,
  TaskInput,
  ToolOutput,
  ToolsListed,
  defineEventType,
  type Event,
  type StoredEvent,
} from "../../src/domain/events.js";
import { Document, Passage } from "../../examples/tutorials/02-citations/tools.js";
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
    const row = encode(ToolOutput({ callId: "c1" }));
    const stored: StoredEvent = { ...row, payload: { ...row.payload, call_id: 42 } };
    const error = caught(() => types.decode(stored));
    expect(error.message).toContain('"tool-output"');
    expect(error.message).toContain('field "callId"');
    expect(error.details).toMatchObject({ field: "callId" });
  });

  it("refuses a stored field the type does not have, or one it needs that is missing, naming the field (never a default)", () => {
    const row = encode(ModelOutput({ content: "Hi.", toolCalls: [{ id: "c1", name: "search", arguments: {} }] }));
    expect(row.type).toBe("model_output");
    expect(Object.keys(row.payload)).toContain("tool_calls");
    const unknown = caught(() => types.decode({ ...row, payload: { ...row.payload, tool_call: [] } }));
    expect(unknown.message).toBe('The stored event "model-output" has a field its type does not know: "tool_call".');
    const { tool_calls: _dropped, ...rest } = row.payload;
    const missing = caught(() => types.decode({ ...row, payload: rest }));
    expect(missing.message).toBe('The stored event "model-output" lacks the field "tool_calls".');
    const nested = { ...row.payload, tool_calls: [{ id: "c1", name: "search", arguments: {}, extra: 1 }] };
    expect(caught(() => types.decode({ ...row, payload: nested })).details).toMatchObject({
      field: "tool_calls[0].extra",
    });
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

it("stores a ToolsListed's argument schemas as they are: their keys are the tool's, not the format's", () => {
  const tools = [
    {
      name: "search_files",
      description: "Search.",
      parameters: {
        type: "object",
        properties: { max_results: { type: "number" }, filePath: { type: "string" } },
        additionalProperties: false,
        required: ["max_results"],
      },
      elements: { some_arg: ["passage"] },
      results: [],
    },
  ];
  const stored = encode(ToolsListed({ tools }));
  expect(stored.type).toBe("tools_listed");
  expect((stored.payload as { tools: unknown }).tools).toEqual(tools);
  expect((new EventTypes().decode(stored) as ToolsListed).tools).toEqual(tools);
});

describe("EventTypes.check and the decode of checked events", () => {
  const Rating = defineEventType("rating", { scores: z.array(z.object({ stars: z.number().int() })) });
  const types = new EventTypes({ events: [Rating], elements: [Document, Passage] });

  /** An event as a store gives it back: sealed, through JSON. */
  const stored = (event: Event): StoredEvent =>
    JSON.parse(JSON.stringify({ ...types.check(event), seq: 0, ts: "2026-01-01T00:00:00.000Z" })) as StoredEvent;

  const events: Event[] = [
    Input({ payload: { text: "Hello", list: [1, null, { deep: true }] }, model: "m", principal: "ann" }),
    TaskInput({ payload: "Find it", callId: "c0", expects: { type: "object" } }),
    ModelOutput({
      content: "The answer.",
      markers: [{ at: 11, text: " [1]", cited: [{ written: 1, source: "d1#0" }] }],
      toolCalls: [{ id: "c1", name: "search", arguments: { query: "q", limit: 3 } }],
      usage: { promptTokens: 10, completionTokens: 2 },
    }),
    ToolOutput({
      callId: "c1",
      text: "found",
      data: { hits: 1 },
      elements: [Document({ id: "d1", title: "Minutes" }), Passage({ id: "d1#0", ref: "d1", text: "The town met." })],
    }),
    Failure({ error: "ValueError", message: "bad", callId: "c1" }),
    Request({ requestId: "c1:approval", kind: "approval", text: "May I?", tool: "search", arguments: { q: 1 } }),
    Response({ requestId: "c1:approval", payload: { approved: true } }),
    Rating({ scores: [{ stars: 5 }], stream: "task-1", origin: "node", version: "v2" }),
    // Made by hand, fields out of schema order and defaults missing: check puts it in the decoded form.
    { type: "tool-output", text: "by hand", callId: "c2", stream: "main", actor: "tool" } as unknown as Event,
  ];

  it("decodes a checked event without its schema, exactly as the full check decodes it (fields, order, elements)", () => {
    for (const event of events) {
      const row = stored(event);
      expect(row.checked).toBe(types.fingerprint);
      const full = types.fullDecode(row);
      const spies = [...types.eventTypes.values(), ...types.elementTypes.values()].map((type) =>
        vi.spyOn(type.schema, "safeParse"),
      );
      const cheap = types.decode(row);
      for (const spy of spies) {
        expect(spy).not.toHaveBeenCalled();
        spy.mockRestore();
      }
      expect(cheap).toEqual(full);
      expect(JSON.stringify(cheap)).toBe(JSON.stringify(full));
    }
  });

  it("runs the full check for an event that other schemas checked, or that nothing checked (an import)", () => {
    const row = stored(ToolOutput({ callId: "c1" }));
    for (const checked of ["0123456789abcdef", undefined]) {
      const other = { ...row, checked };
      const spy = vi.spyOn(ToolOutput.schema, "safeParse");
      expect(types.decode(other)).toMatchObject({ callId: "c1", text: null, elements: [], error: null });
      expect(spy).toHaveBeenCalledTimes(1);
      spy.mockRestore();
      const wrong = { ...other, payload: { ...other.payload, call_id: 42 } };
      expect(caught(() => types.decode(wrong)).message).toContain('field "callId"');
    }
  });

  it("refuses at check an event that does not fit its type, so nothing wrong is appended", () => {
    const wrong = { ...ToolOutput({ callId: "c1" }), callId: 42 } as unknown as Event;
    expect(caught(() => types.check(wrong)).message).toMatch(/"tool-output".*field "callId"/);
    const forged = ToolOutput({ elements: [{ type: "passage", id: "p1" } as never] });
    expect(caught(() => types.check(forged)).message).toContain('element "passage"');
  });

  it("says clearly what is wrong with a checked row that is corrupt: its payload, its type, an element's type", () => {
    const row = stored(ToolOutput({ callId: "c1", elements: [Document({ id: "d1", title: "T" })] }));
    expect(caught(() => types.decode({ ...row, payload: [] as never })).message).toMatch(
      /payload of event "tool-output" is not a JSON object/,
    );
    expect(caught(() => types.decode({ ...row, type: "gone" })).message).toContain('Unknown event type "gone"');
    const element = { ...row, payload: { ...row.payload, elements: [{ type: "gone", id: "x" }] } };
    expect(caught(() => types.decode(element)).message).toContain('Unknown element type "gone"');
  });

  it("fingerprints the schemas: the same schemas alike, others not; a transform leaves every event to the full check", () => {
    expect(new EventTypes({ events: [Rating], elements: [Document, Passage] }).fingerprint).toBe(types.fingerprint);
    expect(new EventTypes().fingerprint).not.toBe(types.fingerprint);
    const Changed = defineEventType("rating", { scores: z.array(z.object({ stars: z.number() })), note: z.string() });
    expect(new EventTypes({ events: [Changed], elements: [Document, Passage] }).fingerprint).not.toBe(
      types.fingerprint,
    );
    const Trimmed = defineEventType("trimmed", { text: z.string().transform((text) => text.trim()) });
    const transforming = new EventTypes({ events: [Trimmed] });
    expect(transforming.fingerprint).toBeNull();
    expect(transforming.check(Trimmed({ text: " a " })).checked).toBeUndefined();
  });
});
