import { describe, expect, it } from "vitest";
import { DemoModel, bestSource, sourcesIn } from "../../src/adapters/demo-model.js";
import { ModelOutput } from "../../src/domain/events.js";
import {
  AssistantMessage,
  ChatRequest,
  ReasoningDelta,
  SystemMessage,
  TextPart,
  ToolDef,
  ToolResult,
  UserMessage,
  type Fragment,
} from "../../src/ports/index.js";

const QUESTION = "How often can I have bulky waste picked up, and what does it cost?";
const SEARCH = ToolDef({
  name: "search",
  description: "Search the town documents for passages.",
  parameters: {
    type: "object",
    properties: { limit: { type: "integer" }, query: { type: "string", minLength: 1 } },
    required: ["query"],
  },
});
const READ = ToolDef({
  name: "read_document",
  description: "Read a document.",
  parameters: { type: "object", properties: { document: { type: "string" } } },
});

// What the model read as the result of its first search in tutorial 2.
const RESULT = `<document id="1" title="Waste collection">
<passage id="2" cite="[2]">Bulky waste, such as furniture, is picked up after an appointment. Each household can have it picked up for free four times a year. Each extra pickup costs 25 euros.</passage>
<passage id="3" cite="[3]">Residual waste is collected every Tuesday morning. Put the container on the street before 7:30.</passage>
</document>`;

describe("DemoModel", () => {
  it("calls the first offered tool with the question's words as its first string argument", async () => {
    const model = new DemoModel();
    const request = new ChatRequest(
      [SystemMessage("You are the assistant of the town."), UserMessage(QUESTION)],
      [SEARCH, READ],
    );

    const output = await model.complete(request, { model: "gpt-anything" });

    expect(output.toolCalls).toHaveLength(1);
    expect(output.toolCalls[0]).toMatchObject({
      name: "search",
      arguments: { query: "How often can I have bulky waste picked up and what does it cost" },
    });
    expect(output.toolCalls[0]?.id).toMatch(/^call_[0-9a-f]{16}$/);
    expect(output).toMatchObject({
      finishReason: "tool_calls",
      model: "offline-demo",
      requestHash: request.hash,
      promptCharacters: request.characters,
    });
    expect(output.content).toMatch(/offline demo model/);
  });

  it("quotes the passage that best matches the question, with its cite marker after the quote", async () => {
    const model = new DemoModel();
    const call = { id: "call_1", name: "search", arguments: { query: "bulky waste" } };
    const request = new ChatRequest(
      [UserMessage(QUESTION), AssistantMessage("", { toolCalls: [call] }), ToolResult("call_1", RESULT)],
      [SEARCH],
    );

    const output = await model.complete(request);

    expect(output.toolCalls).toEqual([]);
    expect(output.finishReason).toBe("stop");
    expect(output.content).toContain("offline demo model");
    expect(output.content).toContain("shares the most words with your question");
    expect(output.content).toMatch(
      /"Bulky waste, such as furniture, is picked up after an appointment\. .* Each extra pickup costs 25 euros\." \[2\]$/,
    );
  });

  it("answers a follow-up from the passages read for it, after searching again", async () => {
    const model = new DemoModel();
    const first = [
      UserMessage(QUESTION),
      AssistantMessage("", { toolCalls: [{ id: "c1", name: "search", arguments: {} }] }),
      ToolResult("c1", RESULT),
      AssistantMessage("…"),
    ];
    const followUp = UserMessage([TextPart("And how much is a parking permit?")]);

    const search = await model.complete(new ChatRequest([...first, followUp], [SEARCH]));
    expect(search.toolCalls[0]?.arguments).toEqual({ query: "And how much is a parking permit" });

    const parking = `<document id="4" title="Parking"><passage id="5" cite="[5]">A resident parking permit costs 120 euros a year.</passage></document>`;
    const answer = await model.complete(
      new ChatRequest(
        [
          ...first,
          followUp,
          AssistantMessage("", { toolCalls: [{ id: "c2", name: "search", arguments: {} }] }),
          ToolResult("c2", parking),
        ],
        [SEARCH],
      ),
    );
    expect(answer.content).toMatch(/"A resident parking permit costs 120 euros a year\." \[5\]$/);
  });

  it("calls the tool the question names by every word of its name, then passes its result on", async () => {
    const book = ToolDef({
      name: "book_pickup",
      description: "Book a bulky waste pickup.",
      parameters: { type: "object", properties: { items: { type: "string" } }, required: ["items"] },
    });
    const model = new DemoModel();
    const asked = UserMessage("Please book a bulky waste pickup for an old sofa.");
    const call = await model.complete(new ChatRequest([asked], [SEARCH, READ, book]));
    expect(call.toolCalls.map((each) => [each.name, each.arguments])).toEqual([
      ["book_pickup", { items: "Please book a bulky waste pickup for an old sofa" }],
    ]);
    // A question that names only part of a tool's name calls the first tool, as before.
    const search = await model.complete(new ChatRequest([UserMessage("Can I book a table?")], [SEARCH, book]));
    expect(search.toolCalls[0]?.name).toBe("search");

    const denied = "A person denied this call of book_pickup: Not this week. It did not run.";
    const answer = await model.complete(
      new ChatRequest(
        [
          UserMessage(QUESTION),
          AssistantMessage("", { toolCalls: [{ id: "c1", name: "search", arguments: {} }] }),
          ToolResult("c1", RESULT),
          AssistantMessage("…"),
          asked,
          AssistantMessage("", { toolCalls: [{ id: "c2", name: "book_pickup", arguments: {} }] }),
          ToolResult("c2", denied),
        ],
        [SEARCH, book],
      ),
    );
    expect(answer.toolCalls).toEqual([]);
    expect(answer.content).toBe(
      `The offline demo model (no language model) passes on what book_pickup returned: ${denied}`,
    );
  });

  it("says it has nothing to quote when no source shares a word with the question", async () => {
    const output = await new DemoModel().complete(new ChatRequest([UserMessage("Where is the zoo?")]));

    expect(output.toolCalls).toEqual([]);
    expect(output.content).toMatch(/found no passage/);
  });

  it("names itself the offline demo model, whatever model a call names", () => {
    const model = new DemoModel();
    expect(model.resolve("gpt-4o")).toBe("offline-demo");
    expect(model.resolve(null)).toBe("offline-demo");
    expect(model.model).toBe("offline-demo");
  });

  it("streams its answer in fragments, then the output", async () => {
    const request = new ChatRequest([UserMessage(QUESTION), ToolResult("c1", RESULT)]);
    const items: (Fragment | ModelOutput)[] = [];
    for await (const item of new DemoModel().streamComplete(request)) items.push(item);

    const output = items.at(-1) as ModelOutput;
    expect(ModelOutput.is(output)).toBe(true);
    expect(items.some((item) => item instanceof ReasoningDelta)).toBe(false);
    expect(items.slice(0, -1).join("")).toBe(output.content);
  });
});

describe("sourcesIn and bestSource", () => {
  it("reads each element with a cite attribute, unescaped, and skips the ones without", () => {
    const text = `<document id="1" title="A &amp; B"><passage id="2" cite="[2]">Fish &amp; chips &lt;daily&gt;</passage></document>\n<note id="3">x</note>`;
    expect(sourcesIn(text)).toEqual([{ cite: "[2]", text: "Fish & chips <daily>" }]);
  });

  it("prefers the source with the most shared topic words, the first read on a tie", () => {
    const sources = [
      { cite: "[1]", text: "Dogs are taxed." },
      { cite: "[2]", text: "Dog tax is 100 euros a year." },
      { cite: "[3]", text: "The dog tax is paid yearly." },
    ];
    expect(bestSource("What is the dog tax?", sources)?.cite).toBe("[2]");
    expect(bestSource("What is it?", sources)).toBeNull();
  });
});
