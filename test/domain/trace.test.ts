import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type JsonValue,
  Event,
  Input,
  ModelOutput,
  Numbering,
  Reopened,
  THREAD_NUMBERING,
  Source,
  ToolOutput,
  Trace,
  defineEventType,
  inserted,
  referenceType,
  sourceType,
  turnStarts,
} from "../../src/domain/index.js";

const Document = referenceType("document", { title: z.string() });
const Passage = sourceType("passage");

describe("event and element types", () => {
  it("test membership like isinstance, subtypes included", () => {
    const reopened = Reopened({ callId: "c1", reopenedElements: ["a"] });
    expect(ToolOutput.is(reopened)).toBe(true);
    expect(Reopened.is(ToolOutput({ callId: "c2" }))).toBe(false);
    expect(Event.is(reopened)).toBe(true);
    expect(Source.is(Passage({ id: "p", text: "t" }))).toBe(true);
    expect(Source.is(Document({ id: "d", title: "T" }))).toBe(false);
  });

  it("make a subtype of a type of your own with its parent's fields and its own", () => {
    const Quote = sourceType("quote", { page: z.number() }, Passage);
    const quote = Quote({ id: "q", ref: "d", text: "t", page: 3 });
    expect(quote).toEqual({ type: "quote", id: "q", ref: "d", text: "t", page: 3 });
    expect(Passage.is(quote) && Source.is(quote)).toBe(true);
    expect(() => Quote({ id: "q", text: "t" } as never)).toThrow();
  });

  it("fill the header and the defaults of a new event", () => {
    const output = ModelOutput({ content: "hi" });
    expect(output).toMatchObject({
      type: "model-output",
      stream: "main",
      actor: "model",
      origin: null,
      seq: null,
      ts: null,
      toolCalls: [],
      markers: [],
    });
  });

  it("refuse a type name that is not kebab case", () => {
    expect(() => defineEventType("NoteTaken", { note: z.string() })).toThrow(/kebab case/);
  });
});

describe("Trace", () => {
  const events = [
    Input({ payload: "one" }),
    ModelOutput({ content: "a" }),
    ToolOutput({ callId: "c1", stream: "task-1" }),
    Input({ payload: "two" }),
    ModelOutput({ content: "b" }),
  ];
  const trace = Trace.of(events);

  it("selects by type and by stream, keeping the whole thread behind a view", () => {
    expect(trace.byType(ModelOutput).map((event) => event.content)).toEqual(["a", "b"]);
    expect(trace.byType(Event)).toHaveLength(5);
    const main = trace.stream("main");
    expect(main.length).toBe(4);
    expect(main.thread.length).toBe(5);
    expect(main.entries.map((entry) => entry.position)).toEqual([1, 2, 4, 5]);
  });

  it("cuts the thread at the same position as a prefix", () => {
    const before = trace.stream("main").before(2);
    expect(before.events.map((event) => event.type)).toEqual(["input", "model-output"]);
    expect(before.thread.entries.map((entry) => entry.position)).toEqual([1, 2, 3]);
  });

  it("gives a stream that holds every event of its thread the thread's list of events, and any other its own", () => {
    const oneStream = Trace.of(events.filter((event) => event.stream === "main"));
    expect(oneStream.stream("main").events).toBe(oneStream.events);
    expect(oneStream.stream("main").before(2).events).toEqual(oneStream.events.slice(0, 2));
    expect(trace.stream("main").events).toEqual(events.filter((event) => event.stream === "main"));
    expect(trace.stream("task-1").events).toEqual([events[2]]);
  });

  it("finds where each turn starts", () => {
    expect(turnStarts(events)).toEqual([0, 3]);
  });

  it("grows with `with` to the trace made whole: events, streams, types and turn starts, each index carried over", () => {
    const whole = Trace.of(events);
    const grown = Trace.of(events.slice(0, 2));
    // Indexes made before growing are carried; those made after are made from the grown entries.
    const before = [grown.events, grown.stream("main").events, grown.stream("task-1").events];
    turnStarts(grown.events);
    turnStarts(grown.stream("main").events);
    grown.byType(ModelOutput);
    grown.stream("main").byType(Input);
    const later = grown.with(whole.entries.slice(2, 4)).with(whole.entries.slice(4));
    for (const name of ["main", "task-1", "side"]) {
      expect(later.stream(name).entries).toEqual(whole.stream(name).entries);
      expect(later.stream(name).events).toEqual(whole.stream(name).events);
      expect(later.stream(name).thread).toBe(later);
      expect(turnStarts(later.stream(name).events)).toEqual(turnStarts(whole.stream(name).events));
      expect(later.stream(name).byType(Input)).toEqual(whole.stream(name).byType(Input));
    }
    expect(later.events).toEqual(whole.events);
    expect(turnStarts(later.events)).toEqual([0, 3]);
    expect(later.byType(ModelOutput)).toEqual(whole.byType(ModelOutput));
    expect(later.byType(ToolOutput)).toEqual(whole.byType(ToolOutput));
    // The trace it grew from is unchanged.
    expect([grown.events, grown.stream("main").events, grown.stream("task-1").events]).toEqual(before);
    expect(grown.byType(ModelOutput)).toHaveLength(1);
    expect(turnStarts(grown.events)).toEqual([0]);
  });

  it("puts markers back where they were cut out", () => {
    expect(
      inserted("Free four times a year. Extra costs 25 euros.", [
        [22, " [2]"],
        [44, " [2]"],
      ]),
    ).toBe("Free four times a year [2]. Extra costs 25 euros [2].");
    // In the order of their positions, whatever the order of the list.
    expect(
      inserted("Free four times a year. Extra costs 25 euros.", [
        [44, " [3]"],
        [22, " [2]"],
      ]),
    ).toBe("Free four times a year [2]. Extra costs 25 euros [3].");
  });
});

describe("Numbering", () => {
  it("numbers elements in order of first appearance and never renumbers", () => {
    const first = ToolOutput({
      callId: "c1",
      elements: [Document({ id: "waste", title: "Waste" }), Passage({ id: "waste#2", ref: "waste", text: "x" })],
    });
    const second = ToolOutput({
      callId: "c2",
      elements: [Passage({ id: "waste#2", ref: "waste", text: "x" }), Document({ id: "parking", title: "Parking" })],
    });
    const numbering = new Numbering([first, second]);
    expect([numbering.numberOf("waste"), numbering.numberOf("waste#2"), numbering.numberOf("parking")]).toEqual([
      1, 2, 3,
    ]);
    expect(numbering.element(3)?.id).toBe("parking");
    expect(numbering.source(2)).toBe("waste#2");
    expect(numbering.source(1)).toBeNull();
    expect(numbering.source(9)).toBeNull();
  });

  it("keeps the thread's element numbers as the trace grows: handed on by `with`, equal to numbering the whole thread", () => {
    const outputs = [0, 1, 2].map((index) =>
      ToolOutput({
        callId: `c${index}`,
        stream: index === 1 ? "task-1" : "main",
        elements: [Document({ id: `d${index}`, title: "D" }), Passage({ id: "shared", ref: `d${index}`, text: "x" })],
      }),
    );
    const whole = Trace.of(outputs);
    const short = new Trace(whole.entries.slice(0, 1));
    const numbering = short.stream("main").index(THREAD_NUMBERING);
    expect(short.index(THREAD_NUMBERING)).toBe(numbering);
    const grown = short.with(whole.entries.slice(1));
    expect(grown.stream("task-1").index(THREAD_NUMBERING)).toBe(numbering);
    const fresh = new Numbering(outputs);
    for (const id of ["d0", "shared", "d1", "d2"]) expect(numbering.numberOf(id)).toBe(fresh.numberOf(id));
    // The shorter trace gave its index away: asked again, it numbers its own events only.
    expect(short.index(THREAD_NUMBERING)).not.toBe(numbering);
    expect(short.index(THREAD_NUMBERING).size).toBe(2);
  });

  it("answers each id alike whatever was asked before: the next, the same, the one before, a far one, an unknown one", () => {
    // Results of a document and its passages, the last one repeating an earlier passage (numbered where it first was).
    const outputs = [0, 1, 2, 3, 4, 5].map((index) =>
      ToolOutput({
        callId: `c${index}`,
        elements: [
          Document({ id: `d${index}`, title: "D" }),
          ...[0, 1, 2].map((at) => Passage({ id: `d${index}#${at}`, ref: `d${index}`, text: "x" })),
          ...(index === 5 ? [Passage({ id: "d1#2", ref: "d1", text: "x" })] : []),
        ],
      }),
    );
    const ids = outputs.flatMap((output) => output.elements.map((element) => element.id));
    const expected = new Map<string, number>();
    for (const id of ids) if (!expected.has(id)) expected.set(id, expected.size + 1);
    // In order, each part then its whole twice (as a layout asks), backwards, by a stride, and ids no event showed.
    const asked = [
      ...ids,
      ...ids.flatMap((id) => [id, id.split("#")[0]!, id.split("#")[0]!]),
      ...[...ids].reverse(),
      ...ids.filter((_, index) => index % 5 === 0),
      "d9",
      "d1#",
      "d1#2",
      "d0",
    ];
    const numbering = new Numbering(outputs);
    expect(asked.map((id) => numbering.numberOf(id))).toEqual(asked.map((id) => expected.get(id)));
  });

  it("numbers the elements an input's payload holds", () => {
    const payload = JSON.parse(
      JSON.stringify({ text: "see", attachments: [Passage({ id: "note", text: "n" })] }),
    ) as JsonValue;
    const input = Input({ payload });
    expect(new Numbering([input]).numberOf("note")).toBe(1);
  });
});
