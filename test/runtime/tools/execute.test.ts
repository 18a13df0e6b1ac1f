import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Input, ModelOutput, ToolOutput, type Event, type ToolCall } from "../../../src/domain/events.js";
import { InvalidQueryError, ResourceUnavailableError, TransientError } from "../../../src/ports/errors.js";
import { UNPARSED_ARGUMENTS } from "../../../src/ports/tool-arguments.js";
import { Recorded, ToolReturnError, UnboundToolError, tool } from "../../../src/runtime/index.js";
import { checkBound, executeCall } from "../../../src/internal/index.js";
import { FIRST_RESULT, LIBRARY, Passage, asPassage, contextOf, readDocument, search } from "./town.js";
import { reopenTool } from "./reopen.js";

const reading = readDocument.bind({ library: LIBRARY });
const searching = search.bind({ library: LIBRARY });

/** A thread whose first search showed document 1 and passages 2 and 3, then the model calls `call`. */
function threadCalling(call: ToolCall): Event[] {
  return [
    Input({ payload: "How often is bulky waste picked up?" }),
    ModelOutput({ toolCalls: [{ id: "c1", name: "search", arguments: { query: "bulky waste" } }] }),
    ToolOutput({ callId: "c1", elements: FIRST_RESULT }),
    ModelOutput({ toolCalls: [call] }),
  ];
}

async function run(tool: Parameters<typeof executeCall>[0], call: ToolCall, events = threadCalling(call)) {
  return executeCall(tool, call, contextOf(events, call.id));
}

describe("executeCall with element numbers", () => {
  it("runs the tool with the real id that the LlmStep recorded, and sets the call id", async () => {
    const output = await run(reading, { id: "c2", name: "read_document", arguments: { document: "waste-collection" } });
    expect(output.callId).toBe("c2");
    expect(output.error).toBeNull();
    expect(output.elements.map((element) => element.id)).toEqual([
      "waste-collection",
      "waste-collection#0",
      "waste-collection#2",
    ]);
  });

  it("refuses a number that names no element, and the tool does not run", async () => {
    const output = await run(reading, { id: "c2", name: "read_document", arguments: { document: "9" } });
    expect(output).toMatchObject({
      callId: "c2",
      error: "No document has the number 9. Use a number that a result showed.",
      elements: [],
    });
  });

  it("refuses a number written as an integer that names nothing", async () => {
    const output = await run(reading, { id: "c2", name: "read_document", arguments: { document: 9 } });
    expect(output.error).toBe("No document has the number 9. Use a number that a result showed.");
  });

  it("refuses the number of an element of another type", async () => {
    const output = await run(reading, { id: "c2", name: "read_document", arguments: { document: "2" } });
    expect(output.error).toBe(
      "Number 2 is a passage, not a document. Use the number of a document that a result showed.",
    );
  });

  it("refuses a real id that the thread never showed", async () => {
    const output = await run(reading, { id: "c2", name: "read_document", arguments: { document: "dog-tax" } });
    expect(output.error).toBe('"dog-tax" is not the number of a document. Use a number that a result showed.');
  });

  it("checks each number of a list and each result handle", async () => {
    const call: ToolCall = {
      id: "c2",
      name: "reopen",
      arguments: { elements: ["waste-collection#2", "7"], results: ["c1", "r4"] },
    };
    const output = await run(reopenTool, call);
    expect(output.error).toBe(
      'No element has the number 7. Use a number that a result showed. No result has the handle "r4". Use a handle that a result showed, such as r1.',
    );
    const fine = await run(reopenTool, { ...call, arguments: { elements: ["waste-collection#2"], results: ["c1"] } });
    expect(fine).toMatchObject({
      callId: "c2",
      error: null,
      reopenedElements: ["waste-collection#2"],
      reopenedResults: ["c1"],
    });
  });
});

describe("executeCall with arguments that do not fit", () => {
  it.each([
    ["an empty query", { query: "" }, "query: Too small"],
    ["no query", {}, "query: Invalid input"],
    ["a field the tool has not", { query: "dog", limit: 3 }, 'arguments: Unrecognized key: "limit"'],
    ["text that is not a JSON object", { [UNPARSED_ARGUMENTS]: "query=dog" }, "are not a JSON object: query=dog"],
  ])("gives an error naming the problem for %s, and the tool does not run", async (_, args, problem) => {
    const output = await run(searching, { id: "c2", name: "search", arguments: args });
    expect(output.callId).toBe("c2");
    expect(output.error).toContain(problem);
    expect(output.error).toContain("search");
    expect(output.elements).toEqual([]);
  });
});

describe("executeCall with repeats", () => {
  const again: ToolCall = { id: "c2", name: "search", arguments: { query: "bulky waste" } };

  it("does not run a call identical to an earlier successful call, and names the earlier result", async () => {
    const output = await run(searching, again);
    expect(output.error).toBe(
      "search ran with these arguments before in this turn; its result is r1. Use that result instead of calling again, or call search with other arguments.",
    );
  });

  it("runs the call again when the agent's setting says so", async () => {
    const output = await executeCall(searching, again, contextOf(threadCalling(again), "c2", true));
    expect(output.error).toBe("No new passages for these words.");
  });

  it("runs the call again when the tool's own setting says so, over the agent's", async () => {
    const repeating = tool({
      name: "search",
      description: "Search.",
      args: { query: z.string() },
      repeats: true,
      run: async () => ToolOutput({ text: "ran" }),
    });
    expect((await executeCall(repeating, again, contextOf(threadCalling(again), "c2", false))).text).toBe("ran");
  });

  it("runs a call whose earlier twin failed", async () => {
    const events = [
      Input({ payload: "Dogs?" }),
      ModelOutput({ toolCalls: [{ id: "c1", name: "search", arguments: { query: "guide dog" } }] }),
      ToolOutput({ callId: "c1", error: "The search service refused the query." }),
      ModelOutput({ toolCalls: [{ id: "c2", name: "search", arguments: { query: "guide dog" } }] }),
    ];
    const output = await run(searching, { id: "c2", name: "search", arguments: { query: "guide dog" } }, events);
    expect(output.error).toBeNull();
  });
});

describe("executeCall with Recorded values", () => {
  const seenIds = tool({
    name: "seen",
    description: "Say which passages the turn showed.",
    recorded: { passages: Recorded(Passage) },
    run: async ({ passages }) => ToolOutput({ data: passages.map((passage) => passage.id) }),
  });

  it("fills them with the passages of this turn, in order, each once, without those of sibling calls", async () => {
    const sibling: ToolCall = { id: "c4", name: "search", arguments: { query: "dog" } };
    const call: ToolCall = { id: "c5", name: "seen", arguments: {} };
    const events = [
      Input({ payload: "First question." }),
      ModelOutput({ toolCalls: [{ id: "c0", name: "search", arguments: { query: "dog" } }] }),
      ToolOutput({ callId: "c0", elements: [asPassage(LIBRARY.sections[2]!)] }),
      Input({ payload: "Second question." }),
      ModelOutput({ toolCalls: [{ id: "c1", name: "search", arguments: { query: "bulky waste" } }] }),
      ToolOutput({ callId: "c1", elements: FIRST_RESULT }),
      ModelOutput({ toolCalls: [{ id: "c2", name: "search", arguments: { query: "waste" } }] }),
      ToolOutput({ callId: "c2", elements: [asPassage(LIBRARY.sections[0]!), asPassage(LIBRARY.sections[3]!)] }),
      ModelOutput({ toolCalls: [sibling, call] }),
      ToolOutput({ callId: "c4", elements: [asPassage(LIBRARY.sections[2]!)] }),
    ];
    const output = await run(seenIds, call, events);
    expect(output.data).toEqual(["waste-collection#2", "waste-collection#0", "dog-tax#1"]);
  });

  it("keeps them out of the schema the model reads", () => {
    expect(seenIds.def().parameters).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });
});

describe("executeCall with errors of the tool", () => {
  const failing = (error: Error) =>
    tool({
      name: "lookup",
      description: "Look up.",
      run: async () => {
        throw error;
      },
    });
  const call: ToolCall = { id: "c2", name: "lookup", arguments: {} };

  it.each([
    ["InvalidQueryError", new InvalidQueryError("The query needs a year, such as 2024.")],
    [
      "ResourceUnavailableError",
      new ResourceUnavailableError("The archive is closed for maintenance; answer without it."),
    ],
  ])("gives the message of a %s as the error the model reads", async (_, error) => {
    expect(await run(failing(error), call)).toMatchObject({ callId: "c2", error: error.message });
  });

  it("lets a TransientError and any other error propagate", async () => {
    await expect(run(failing(new TransientError("The archive timed out.")), call)).rejects.toThrow(TransientError);
    await expect(run(failing(new TypeError("bug")), call)).rejects.toThrow(TypeError);
  });

  it("refuses a tool that returns something other than a ToolOutput", async () => {
    const wrong = tool({
      name: "lookup",
      description: "Look up.",
      run: async () => ({ text: "plain" }) as unknown as ToolOutput,
    });
    await expect(run(wrong, call)).rejects.toThrow(ToolReturnError);
  });
});

describe("unbound tools", () => {
  it("are refused by checkBound, naming the tool and its values", () => {
    expect(() => checkBound([reading, search])).toThrow(UnboundToolError);
    expect(() => checkBound([search])).toThrow('Tool "search" has values that nothing bound: "library".');
    expect(() => checkBound([search, readDocument])).toThrow('"search" (library), "read_document" (library)');
    expect(() => checkBound([reading, searching])).not.toThrow();
  });

  it("are refused by executeCall before anything runs", async () => {
    await expect(run(search, { id: "c2", name: "search", arguments: { query: "dog" } })).rejects.toThrow(
      UnboundToolError,
    );
  });
});
