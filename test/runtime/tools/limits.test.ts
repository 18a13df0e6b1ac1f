import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ValueError } from "../../../src/domain/errors.js";
import { Input, ModelOutput, ToolOutput, type Event, type ToolCall } from "../../../src/domain/events.js";
import { atMost, tool } from "../../../src/runtime/index.js";
import { executeCall } from "../../../src/internal/index.js";
import { FIRST_RESULT, LIBRARY, Passage, asPassage, contextOf, search } from "./town.js";

const searchCall = (id: string, query = id): ToolCall => ({ id, name: "search", arguments: { query } });
const searching = search.bind({ library: LIBRARY });

/** A tool that only says it ran, so a test sees whether the limit let it run. */
function counting(limit: ReturnType<typeof atMost>) {
  const ran: string[] = [];
  const made = tool({
    name: "note",
    description: "Take a note.",
    args: { text: z.string() },
    limit,
    repeats: true,
    run: async ({ text }) => {
      ran.push(text);
      return ToolOutput({ text: "noted" });
    },
  });
  return { made, ran };
}

describe("atMost, counting the calls of the tool itself", () => {
  it("refuses the third search of a turn with its error, and the tool does not run", async () => {
    const events: Event[] = [
      Input({ payload: "Tell me about waste." }),
      ModelOutput({ toolCalls: [searchCall("c1", "bulky")] }),
      ToolOutput({ callId: "c1", elements: FIRST_RESULT.slice(0, 2) }),
      ModelOutput({ toolCalls: [searchCall("c2", "residual")] }),
      ToolOutput({ callId: "c2", elements: [FIRST_RESULT[0]!, FIRST_RESULT[2]!] }),
      ModelOutput({ toolCalls: [searchCall("c3", "dog")] }),
    ];
    const output = await executeCall(searching, searchCall("c3", "dog"), contextOf(events, "c3"));
    expect(output).toMatchObject({
      callId: "c3",
      error: "You searched twice. Answer with what you found.",
      elements: [],
    });
  });

  it("counts the earlier calls of the same model output, in call order", async () => {
    const calls = [searchCall("c1", "bulky"), searchCall("c2", "dog"), searchCall("c3", "guide")];
    const events = [Input({ payload: "Tell me everything." }), ModelOutput({ toolCalls: calls })];
    const outputs = await Promise.all(calls.map((call) => executeCall(searching, call, contextOf(events, call.id))));
    expect(outputs.map((output) => output.error)).toEqual([
      null,
      null,
      "You searched twice. Answer with what you found.",
    ]);
  });

  it("counts the calls of this turn only", async () => {
    const events = [
      Input({ payload: "First question." }),
      ModelOutput({ toolCalls: [searchCall("c1", "bulky")] }),
      ToolOutput({ callId: "c1", elements: FIRST_RESULT }),
      ModelOutput({ toolCalls: [searchCall("c2", "residual")] }),
      ToolOutput({ callId: "c2", error: "No new passages for these words." }),
      ModelOutput({ content: "Bulky waste is picked up four times a year." }),
      Input({ payload: "Second question." }),
      ModelOutput({ toolCalls: [searchCall("c3", "dog")] }),
    ];
    const output = await executeCall(searching, searchCall("c3", "dog"), contextOf(events, "c3"));
    expect(output.error).toBeNull();
    expect(output.elements.map((element) => element.id)).toEqual(["dog-tax", "dog-tax#0", "dog-tax#1"]);
  });
});

describe("atMost, counting what another tool did", () => {
  it("refuses a call after the turn called another tool n times", async () => {
    const { made, ran } = counting(atMost(1, { calls: "search", error: "Take no notes after a search." }));
    const noteCall: ToolCall = { id: "c2", name: "note", arguments: { text: "waste" } };
    const before = [Input({ payload: "Note it." }), ModelOutput({ toolCalls: [noteCall] })];
    expect((await executeCall(made, noteCall, contextOf(before, "c2"))).text).toBe("noted");
    const after = [
      Input({ payload: "Note it." }),
      ModelOutput({ toolCalls: [searchCall("c1", "bulky")] }),
      ToolOutput({ callId: "c1", elements: FIRST_RESULT }),
      ModelOutput({ toolCalls: [noteCall] }),
    ];
    expect(await executeCall(made, noteCall, contextOf(after, "c2"))).toMatchObject({
      callId: "c2",
      error: "Take no notes after a search.",
    });
    expect(ran).toEqual(["waste"]);
  });

  it("refuses a call once the turn recorded n elements of a type, counting each id once", async () => {
    const { made, ran } = counting(atMost(3, { elements: Passage, error: "You have read enough passages." }));
    const noteCall: ToolCall = { id: "c3", name: "note", arguments: { text: "enough?" } };
    const twice = [
      Input({ payload: "Read." }),
      ModelOutput({ toolCalls: [searchCall("c1", "bulky")] }),
      ToolOutput({ callId: "c1", elements: FIRST_RESULT }),
      ModelOutput({ toolCalls: [searchCall("c2", "bulky")] }),
      ToolOutput({ callId: "c2", elements: FIRST_RESULT }),
    ];
    expect(
      (await executeCall(made, noteCall, contextOf([...twice, ModelOutput({ toolCalls: [noteCall] })], "c3"))).error,
    ).toBeNull();
    const more = [
      ...twice,
      ToolOutput({ callId: "c9", elements: [asPassage(LIBRARY.sections[2]!)] }),
      ModelOutput({ toolCalls: [noteCall] }),
    ];
    expect((await executeCall(made, noteCall, contextOf(more, "c3"))).error).toBe("You have read enough passages.");
    expect(ran).toEqual(["enough?"]);
  });

  it("does not count the results of sibling calls, which run in no fixed order", async () => {
    const { made } = counting(atMost(1, { elements: Passage, error: "Enough." }));
    const noteCall: ToolCall = { id: "c2", name: "note", arguments: { text: "x" } };
    const events = [
      Input({ payload: "Read." }),
      ModelOutput({ toolCalls: [searchCall("c1", "bulky"), noteCall] }),
      ToolOutput({ callId: "c1", elements: FIRST_RESULT }),
    ];
    expect((await executeCall(made, noteCall, contextOf(events, "c2"))).error).toBeNull();
  });
});

describe("atMost's settings", () => {
  it("refuses both calls and elements, neither, a negative count and an empty error", () => {
    expect(() => atMost(2, { calls: "search", elements: Passage, error: "x" })).toThrow(ValueError);
    expect(() => atMost(2, { error: "x" })).toThrow("give exactly one of calls and elements");
    expect(() => atMost(-1, { calls: "search", error: "x" })).toThrow(ValueError);
    expect(() => atMost(1.5, { calls: "search", error: "x" })).toThrow(ValueError);
    expect(() => atMost(2, { calls: "search", error: " " })).toThrow(ValueError);
  });
});
