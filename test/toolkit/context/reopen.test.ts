import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ValueError } from "../../../src/domain/errors.js";
import { ModelOutput, Reopened, ToolOutput } from "../../../src/domain/events.js";
import { Trace } from "../../../src/domain/trace.js";
import { InvalidQueryError } from "../../../src/ports/errors.js";
import { executeCall } from "../../../src/runtime/tools/execute.js";
import { tool } from "../../../src/runtime/tools/function-tool.js";
import { Recordings, Reopen, ReopenArguments } from "../../../src/toolkit/context/reopen.js";
import { Conversation, documentOf } from "../../fixtures/context-conversation.js";

const reopen = new Reopen();

describe("ReopenArguments", () => {
  it("takes element numbers and result handles, each list empty by default", () => {
    expect(ReopenArguments.parse({ elements: ["3"] })).toEqual({ elements: ["3"], results: [] });
    expect(ReopenArguments.parse({ results: ["r1"] })).toEqual({ elements: [], results: ["r1"] });
  });

  it("refuses arguments that name nothing, or hold a field of another name", () => {
    expect(ReopenArguments.safeParse({}).success).toBe(false);
    expect(ReopenArguments.safeParse({ elements: [], results: [] }).success).toBe(false);
    expect(ReopenArguments.safeParse({ elements: ["3"], passages: ["4"] }).success).toBe(false);
  });
});

describe("Reopen", () => {
  it("is the tool reopen, whose definition marks elements as element ids and results as handles", () => {
    const def = reopen.def();
    expect(def.name).toBe("reopen");
    expect(def.description).toMatch(/Show again/);
    expect(Object.keys(def.elements)).toEqual(["elements"]);
    expect(def.results).toEqual(["results"]);
    expect(def.parameters).toMatchObject({ type: "object", additionalProperties: false });
  });

  it("run records which elements and results to show again, and copies no content", async () => {
    const result = await reopen.run({ elements: ["waste#0"], results: ["c1"] });
    expect(Reopened.is(result)).toBe(true);
    expect(result).toMatchObject({ reopenedElements: ["waste#0"], reopenedResults: ["c1"], elements: [], text: null });
  });

  it("run refuses arguments that name nothing, with an error the model reads", async () => {
    await expect(reopen.run({ elements: [], results: [] })).rejects.toThrow(InvalidQueryError);
  });

  it("runs through the tool step's checks: unknown ids and fields are refused before it runs", async () => {
    const trace = new Conversation().ask("q").search("a", documentOf("a", 2)).trace();
    const context = { trace, turn: trace.events, callId: "x" };
    const good = await executeCall(
      reopen,
      { id: "x", name: "reopen", arguments: { elements: ["a#1"], results: ["c1"] } },
      context,
    );
    expect(good).toMatchObject({ reopenedElements: ["a#1"], reopenedResults: ["c1"], callId: "x" });
    const unknown = await executeCall(reopen, { id: "x", name: "reopen", arguments: { elements: ["nope"] } }, context);
    expect(unknown.error).toMatch(/not the number of an element/);
    const extra = await executeCall(
      reopen,
      { id: "x", name: "reopen", arguments: { elements: ["a#1"], more: 1 } },
      context,
    );
    expect(extra.error).toMatch(/do not fit its schema/);
    const empty = await executeCall(
      reopen,
      { id: "x", name: "reopen", arguments: {} },
      { ...context, trace: Trace.of([]) },
    );
    expect(empty.error).toMatch(/name nothing/);
  });

  it("runs a second identical call of the turn again, where another tool's repeat is refused", async () => {
    const conversation = new Conversation().ask("q").search("a", documentOf("a", 2));
    conversation.events.push(
      ModelOutput({ toolCalls: [{ id: "c8", name: "reopen", arguments: { elements: ["a#1"] } }] }),
      Reopened({ callId: "c8", reopenedElements: ["a#1"], reopenedResults: [] }),
      ModelOutput({
        toolCalls: [
          { id: "c9", name: "reopen", arguments: { elements: ["a#1"] } },
          { id: "c10", name: "search", arguments: { query: "a" } },
        ],
      }),
    );
    const trace = conversation.trace();
    const context = (callId: string) => ({ trace, turn: trace.events, callId });
    const [sameReopen, sameSearch] = trace.byType(ModelOutput).at(-1)!.toolCalls;
    const again = await executeCall(reopen, sameReopen!, context("c9"));
    expect(again).toMatchObject({ callId: "c9", reopenedElements: ["a#1"], error: null });
    const search = tool({
      name: "search",
      description: "Search.",
      args: { query: z.string().describe("Words.") },
      run: async () => ToolOutput({ text: "found" }),
    });
    const repeated = await executeCall(search, sameSearch!, context("c10"));
    expect(repeated.error).toMatch(/ran with these arguments before in this turn/);
  });

  it("takes another name, description and argument texts", () => {
    const own = new Reopen({ name: "show_again", description: "Show it again." });
    expect(own.def().name).toBe("show_again");
    const texts = own.withTexts({ description: "Again.", arguments: { elements: "Numbers." } });
    expect(texts).toBeInstanceOf(Reopen);
    expect(texts.argumentDescriptions.elements).toBe("Numbers.");
    expect(() => own.withTexts({ arguments: { other: "x" } })).toThrow(ValueError);
  });

  it("refuses arguments without elements and results fields, and a bad name", () => {
    expect(() => new Reopen({ arguments: z.object({ ids: z.array(z.string()) }) })).toThrow(ValueError);
    expect(() => new Reopen({ name: "re open" })).toThrow(ValueError);
  });
});

describe("Recordings", () => {
  it("gives the first result recorded for a call id, however many results came after it", () => {
    const recordings = new Recordings([ToolOutput({ callId: "c1", text: "first" })]);
    recordings.append([ToolOutput({ callId: "c1", text: "again" }), ToolOutput({ callId: "c2", text: "other" })]);
    expect(recordings.output("c1")?.text).toBe("first");
    recordings.append([ToolOutput({ callId: "c2", text: "later" })]);
    expect([recordings.output("c2")?.text, recordings.missed]).toEqual(["other", false]);
    expect([recordings.output("c3"), recordings.missed]).toEqual([undefined, true]);
  });

  it("gives the last call recorded under a call id whatever was asked before, and notes a reused id or a miss", () => {
    fc.assert(
      fc.property(
        // Model outputs of one or two calls (ids drawn from a few, so some are reused), then call ids asked about.
        fc.array(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 2 }), { maxLength: 15 }),
        fc.array(fc.integer({ min: 0, max: 14 }), { maxLength: 30 }),
        (outputs, asked) => {
          let made = 0;
          const events = outputs.map((ids) =>
            ModelOutput({ toolCalls: ids.map((id) => ({ id: `c${id}`, name: `call ${++made}`, arguments: {} })) }),
          );
          const expected = new Map(events.flatMap((event) => event.toolCalls.map((call) => [call.id, call.name])));
          const reused = expected.size < made;
          // Each call in order first, as a build asks, then the asked ones.
          const ids = [
            ...events.flatMap((event) => event.toolCalls.map((call) => call.id)),
            ...asked.map((id) => `c${id}`),
          ];
          const recordings = new Recordings(events);
          expect(recordings.missed).toBe(reused);
          expect(ids.map((id) => recordings.call(id)?.name)).toEqual(ids.map((id) => expected.get(id)));
          expect(recordings.missed).toBe(reused || ids.some((id) => !expected.has(id)));
        },
      ),
    );
  });
});
