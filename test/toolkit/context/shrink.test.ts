import { describe, expect, it } from "vitest";
import { appended } from "../../../src/domain/lists.js";
import { Trace } from "../../../src/domain/trace.js";
import { defineEventType, type Event, Input, ModelOutput, ToolOutput } from "../../../src/domain/index.js";
import {
  cited,
  Floor,
  kindOf,
  RecentLists,
  resultOf,
  rounds,
  turns,
  Compress,
  Stub,
  Shrunk,
} from "../../../src/toolkit/context/shrink.js";
import { COMPRESSED, Form, FULL, STUBBED } from "../../../src/toolkit/context/forms.js";
import { Share } from "../../../src/toolkit/context/limits.js";
import { Conversation, documentOf } from "../../fixtures/context-conversation.js";

const conversation = new Conversation()
  .ask("one")
  .search("a", documentOf("a", 2))
  .answer("A.", ["a#1"])
  .ask("two")
  .search("b", documentOf("b", 1))
  .answer("B.")
  .ask("three")
  .search("c", documentOf("c", 1));
const view = conversation.trace();

describe("Form", () => {
  it("orders STUBBED below COMPRESSED below FULL", () => {
    expect(STUBBED < COMPRESSED && COMPRESSED < FULL).toBe(true);
    expect([Form.STUBBED, Form.COMPRESSED, Form.FULL]).toEqual([0, 1, 2]);
  });
});

describe("Compress and Stub", () => {
  it("answer instanceof as the reference's classes do: each for what it made, no other shrink", () => {
    const compress = Compress(turns.slice(0, -1));
    const stub = Stub(turns.slice(0, -1));
    expect([compress instanceof Compress, compress instanceof Stub]).toEqual([true, false]);
    expect([stub instanceof Stub, stub instanceof Compress]).toEqual([true, false]);
    const own = Object.assign(() => [], { when: null });
    expect([own instanceof Compress, own instanceof Stub]).toEqual([false, false]);
  });

  it("Compress offers each full result that where selects, oldest first", () => {
    expect(Compress(turns.slice(0, -1))(view, new Map())).toEqual([
      ["r1", COMPRESSED],
      ["r2", COMPRESSED],
    ]);
    expect(Compress(turns.slice(0, -1))(view, new Map([["r1", COMPRESSED]]))).toEqual([["r2", COMPRESSED]]);
    expect(Compress(turns.slice(0, -1))(view, new Map([["r1", STUBBED]]))).toEqual([["r2", COMPRESSED]]);
  });

  it("Stub offers each selected result that is not stubbed", () => {
    expect(
      Stub(rounds.slice(0, -1))(
        view,
        new Map([
          ["r1", COMPRESSED],
          ["r2", STUBBED],
        ]),
      ),
    ).toEqual([["r1", STUBBED]]);
  });

  it("carries its when, or null to follow the policy", () => {
    expect(Stub(turns.slice(-3), { when: new Share(0.85) }).when).toEqual(new Share(0.85));
    expect(Compress(turns.slice(0, -2)).when).toBeNull();
  });
});

describe("Floor and cited", () => {
  const [a0, a1] = [documentOf("a", 2)[1]!, documentOf("a", 2)[2]!];

  it("cited is true for a Source that a model output before the call cited", () => {
    expect(cited(a1, "search", view)).toBe(true);
    expect(cited(a0, "search", view)).toBe(false);
  });

  it("cited reads only the trace before the call: a later citation does not count", () => {
    const before = Trace.of(conversation.events.slice(0, 3));
    expect(cited(a1, "search", before)).toBe(false);
  });

  it("cited reads the model outputs of the view's stream only: a subagent's citation counts in its own stream", () => {
    const task = ModelOutput({
      content: "Found.",
      markers: [{ at: 6, text: " [1]", cited: [{ written: 1, source: a0.id }] }],
      model: "m",
      stream: "task-1",
    });
    const thread = Trace.of([...conversation.events, task]);
    expect(cited(a0, "search", thread)).toBe(true);
    expect(cited(a0, "search", thread.stream("task-1"))).toBe(true);
    expect(cited(a0, "search", thread.stream("main"))).toBe(false);
    expect(cited(a1, "search", thread.stream("main"))).toBe(true);
  });

  it("a Floor holds its predicate and form", () => {
    const floor = new Floor(cited, FULL);
    expect([floor.applies, floor.form]).toEqual([cited, FULL]);
  });
});

describe("Shrunk", () => {
  it("records the result, the form, the shrink and the call", () => {
    const by = Compress(turns.slice(0, -2));
    expect(new Shrunk("r1", COMPRESSED, by, 4)).toMatchObject({ result: "r1", form: COMPRESSED, by, at: 4 });
  });
});

describe("kindOf", () => {
  it("answers as the types' is, also for a name declared a subtype after it was asked about", () => {
    const early = { type: "late-answer", content: "Hi.", toolCalls: [], markers: [] } as unknown as Event;
    expect(kindOf(early)).toMatchObject({ input: false, modelOutput: false, result: false });
    const LateAnswer = defineEventType("late-answer", {}, { parent: ModelOutput });
    expect(LateAnswer.is(early) && ModelOutput.is(early)).toBe(true);
    expect(kindOf(early)).toMatchObject({ input: false, modelOutput: true, result: false });
  });

  it("gives a result's call id, and null for a result without one or another event", () => {
    expect(resultOf(ToolOutput({ callId: "c1", text: "found" }))).toBe("c1");
    expect(resultOf(ToolOutput({ text: "found" }))).toBeNull();
    expect(resultOf(Input({ payload: "q", model: "m" }))).toBeNull();
  });
});

describe("RecentLists", () => {
  it("finds a thread's last list after the lists of more threads than it keeps were asked about", () => {
    const recent = new RecentLists<string>();
    const input = (text: string) => Input({ payload: text, model: "m" });
    // Each thread's list, as a worker's traces grow them: by appending.
    const threads = Array.from({ length: 6 }, (_, thread) => appended<Event>([], [input(`thread ${thread}`)]));
    threads.forEach((events, thread) => recent.remember(events, `thread ${thread}`));
    const next = appended(threads[0]!, [input("more")]);
    expect(recent.extended(next)).toEqual({ events: threads[0], value: "thread 0" });
    // A list made apart from any asked about extends none.
    expect(recent.extended([input("thread 0")])).toBeUndefined();
  });
});
