import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ValueError } from "../../../src/domain/errors.js";
import {
  Failure,
  Input,
  ModelOutput,
  TaskInput,
  ToolOutput,
  type Event,
  type Marker,
} from "../../../src/domain/events.js";
import type { JsonValue } from "../../../src/domain/json.js";
import { Trace } from "../../../src/domain/trace.js";
import { Graph } from "../../../src/runtime/graph.js";
import { ToolDelegation, type TaskResult } from "../../../src/toolkit/index.js";
import { Document, Passage } from "../../../examples/tutorials/02-citations/tools.js";

const TASK = "task-p1";

const waste = Document({ id: "waste", title: "Waste" });
const bulky = Passage({ id: "waste#1", ref: "waste", text: "Bulky waste is picked up four times a year." });
const parking = Document({ id: "parking", title: "Parking" });
const permit = Passage({ id: "parking#0", ref: "parking", text: "A permit costs 120 euros a year." });
const zones = Passage({ id: "parking#1", ref: "parking", text: "There are three zones." });
const unrelated = Document({ id: "events", title: "Events" });

function delegation(options: { result?: TaskResult; resultSchema?: Record<string, JsonValue> } = {}) {
  return new ToolDelegation({
    name: "research",
    description: "Research.",
    input: z.string(),
    build: () => new Graph(),
    ...options,
  });
}

const cite = (at: number, text: string, cited: [number, string | null][]): Marker => ({
  at,
  text,
  cited: cited.map(([written, source]) => ({ written, source })),
});

/**
 * A thread whose parent stream showed the waste document and its passage first (numbers 1 and 2), and whose
 * task was shown the parking document and two passages (3, 4, 5), the bulky passage again, and a document
 * of events that no passage is part of (6). `last` ends the task's stream.
 */
function child(last: Event | null, expects: Record<string, JsonValue> | null = null): Trace {
  const events: Event[] = [
    Input({ payload: "Hi", model: "m" }),
    ToolOutput({ callId: "c0", elements: [waste, bulky] }),
    ModelOutput({ toolCalls: [{ id: "p1", name: "research", arguments: { input: "Permits?" } }] }),
    TaskInput({ payload: "Permits?", model: "m", callId: "p1", expects, stream: TASK }),
    ModelOutput({ toolCalls: [{ id: "r1", name: "search", arguments: { query: "permit" } }], stream: TASK }),
    ToolOutput({ callId: "r1", elements: [parking, permit, zones, bulky, unrelated], stream: TASK }),
    ...(last === null ? [] : [{ ...last, stream: TASK }]),
  ];
  return Trace.of(events).stream(TASK);
}

describe("handBack", () => {
  it("gives a final reply that cites as text with markers for the sources that resolved, under the parent's numbers", () => {
    // The task's model wrote numbers of its own view; each source that resolved is written under its number in
    // the thread, which the parent shows it by: parking#0 is 4, waste#1 is 2. A number that named no source drops.
    const answer = ModelOutput({
      content: "A permit costs 120 euros. Bulky waste goes four times a year. Zones exist.",
      markers: [
        cite(24, " [1]", [[1, "parking#0"]]),
        cite(60, " [7, 9]", [
          [7, "waste#1"],
          [9, null],
        ]),
        cite(73, " [3]", [[3, null]]),
      ],
    });
    const [output] = delegation().handBack(child(answer)) as ToolOutput[];
    expect(output).toMatchObject({ type: "tool-output", callId: "p1", error: null, data: null });
    expect(output!.text).toBe("A permit costs 120 euros [4]. Bulky waste goes four times a year [2]. Zones exist.");
  });

  it("holds every Source the task was shown and each shown element such a source is part of", () => {
    const [output] = delegation().handBack(child(ModelOutput({ content: "Done." }))) as ToolOutput[];
    expect(output!.elements.map((element) => element.id)).toEqual(["parking", "parking#0", "parking#1", "waste#1"]);
    expect(output!.text).toBe("Done.");
  });

  it("keeps the marker style the task's model wrote", () => {
    const answer = ModelOutput({
      content: "A permit costs 120 euros.",
      markers: [cite(24, "【1】", [[1, "parking#0"]])],
    });
    const [output] = delegation().handBack(child(answer)) as ToolOutput[];
    expect(output!.text).toBe("A permit costs 120 euros【4】.");
  });

  it("gives any other result as data", () => {
    const result: TaskResult = (trace) => ({
      results: trace.byType(ToolOutput).length,
      answer: (trace.events.at(-1) as ModelOutput).content,
    });
    const [output] = delegation({ result }).handBack(child(ModelOutput({ content: "120 euros." }))) as ToolOutput[];
    expect(output).toMatchObject({ callId: "p1", text: null, error: null, data: { results: 1, answer: "120 euros." } });
  });

  it("gives a null result an error: a task that ended on no model output, or a result function that returns null", () => {
    const [failed] = delegation().handBack(
      child(Failure({ error: "TransientError", message: "down" })),
    ) as ToolOutput[];
    expect(failed!.error).toBe("The task of research ended without a result (its last event is a failure).");
    const [empty] = delegation({ result: () => null }).handBack(
      child(ModelOutput({ content: "Done." })),
    ) as ToolOutput[];
    expect(empty).toMatchObject({
      callId: "p1",
      text: null,
      data: null,
      error: expect.stringMatching(/ended without a result/),
    });
  });

  it("gives a result that does not fit the schema the task expects an error, and one that fits as data", () => {
    const schema = { type: "object", properties: { count: { type: "integer" } }, required: ["count"] };
    const [misfit] = delegation({ result: () => ({ count: "three" }), resultSchema: schema }).handBack(
      child(ModelOutput({ content: "." }), schema),
    ) as ToolOutput[];
    expect(misfit!.error).toMatch(/^The result of the task of research does not fit its schema \(count: /);
    expect(misfit!.data).toBeNull();
    const [fits] = delegation({ result: () => ({ count: 3 }), resultSchema: schema }).handBack(
      child(ModelOutput({ content: "." }), schema),
    ) as ToolOutput[];
    expect(fits).toMatchObject({ error: null, data: { count: 3 } });
  });

  it("checks the result against the schema the TaskInput recorded, so the task reads nothing outside its stream", () => {
    const recorded = { type: "string", maxLength: 3 };
    const [output] = delegation().handBack(child(ModelOutput({ content: "Far too long." }), recorded)) as ToolOutput[];
    expect(output!.error).toMatch(/does not fit its schema/);
  });

  it("refuses a trace that holds no TaskInput", () => {
    expect(() => delegation().handBack(Trace.of([Input({ payload: "Hi" })]))).toThrow(ValueError);
  });
});
