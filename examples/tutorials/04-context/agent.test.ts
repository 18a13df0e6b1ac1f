// Tutorial 4 on a scripted model: the request of the last call, printed as the tutorial prints it.
import { expect, it } from "vitest";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Input, ModelOutput, Reopened } from "../../../src/domain/index.js";
import { AgentCatalog } from "../../../src/runtime/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { LIBRARY } from "../01-first-agent/library.js";
import { QUESTIONS, assistant, main, requests, show } from "./agent.js";

/** The output of the tutorial, line for line. */
const TUTORIAL_OUTPUT = `Answer: Residual waste is collected every Tuesday morning.
Tools: search, read_document, reopen
[SystemMessage] You are the assistant of the town of Springfield.
Answer questions from the town documents. If the documents do not answer the question, say so. Never guess.
After each fact, cite the passage that gives it with its number, like [1].
[UserMessage] How often can I have bulky waste picked up?
[AssistantMessage] search({"query": "bulky waste pickup"})
[ToolResult] [r1: text left out to save space]
<document id="1" title="Waste collection">
<passage id="2" cite="[2]">Bulky waste, such as furniture, is picked up after an appointment. Each household can have it picked up for free four times a year. Each extra pickup costs 25 euros.</passage>
<passage id="3" cite="[3]"/>
</document>
[AssistantMessage] Four times a year, for free [2].
[UserMessage] How much is a parking permit?
[AssistantMessage] search({"query": "parking permit"})
[ToolResult] <document id="4" title="Parking permits">
<passage id="5" cite="[5]">A resident parking permit costs 120 euros a year.</passage>
<passage id="6" cite="[6]">Each household can have at most two resident parking permits.</passage>
<passage id="7" cite="[7]">Apply for a permit on the town website. The permit starts on the day after the payment.</passage>
</document>
[AssistantMessage] A resident parking permit costs 120 euros a year [5].
[UserMessage] And when is residual waste collected?
[AssistantMessage] reopen({"elements": ["3"]})
[ToolResult] <document id="1" title="Waste collection">
<passage id="3" cite="[3]">Residual waste is collected every Tuesday morning. Put the container on the street before 7:30.</passage>
</document>`;

/** The model's part of the tutorial's conversation: a search and an answer per question, reopen in the third. */
function script(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }] },
    "Four times a year, for free [2].",
    { toolCalls: [{ name: "search", arguments: { query: "parking permit" } }] },
    "A resident parking permit costs 120 euros a year [5].",
    { toolCalls: [{ name: "reopen", arguments: { elements: ["3"] } }] },
    "Residual waste is collected every Tuesday morning [3].",
  ]);
}

async function conversation(model: ScriptedModel) {
  const agent = assistant(model);
  const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "tutorial-4" });
  const [opened] = await agents.open("assistant", Input({ payload: QUESTIONS[0]!, model: "scripted" }));
  let trace = await opened.resume();
  for (const question of QUESTIONS.slice(1)) {
    const followUp = Input({ payload: question, model: "scripted" });
    trace = await (await agents.thread(opened.id, { input: followUp })).send(followUp);
  }
  return { agent, trace };
}

it("prints the request of the last call as the tutorial's output, line for line", async () => {
  const lines = await main(script());
  expect(lines.slice(0, -1).join("\n").split("\n")).toEqual(TUTORIAL_OUTPUT.split("\n"));
  const inTrace = [LIBRARY.section("waste-collection#2").text, LIBRARY.section("waste-collection#0").text];
  expect(lines.at(-1)).toBe(`In the trace: ${JSON.stringify(inTrace)}`);
});

it("sends the model exactly the requests that replay rebuilds from the trace", async () => {
  const model = script();
  const { agent, trace } = await conversation(model);
  const rebuilt = await requests(agent, trace);
  expect(rebuilt.map((request) => request.hash)).toEqual(model.requests.map((request) => request.hash));
  expect(rebuilt.map((request) => request.hash)).toEqual(trace.byType(ModelOutput).map((output) => output.requestHash));
  expect(show(model.requests.at(-1)!).join("\n").split("\n")).toEqual(TUTORIAL_OUTPUT.split("\n").slice(1));
});

it("offers reopen from the first call that shortens a result, and records the reopened passage by its real id", async () => {
  const model = script();
  const { trace } = await conversation(model);
  expect(model.requests.map((request) => request.tools.map((tool) => tool.name).includes("reopen"))).toEqual([
    false,
    false,
    false,
    false,
    true,
    true,
  ]);
  const reopened = trace.byType(Reopened);
  expect(reopened.map((event) => event.reopenedElements)).toEqual([["waste-collection#0"]]);
  const answer = trace.byType(ModelOutput).at(-1)!;
  expect(answer.markers.flatMap((marker) => marker.cited)).toEqual([{ written: 3, source: "waste-collection#0" }]);
});

it("keeps the full text of both passages in the trace: the policy changes only the request", async () => {
  const { trace } = await conversation(script());
  expect(trace.events.filter((event) => event.type === "tool-output")[0]).toMatchObject({
    elements: [
      { id: "waste-collection" },
      { id: "waste-collection#2", text: LIBRARY.section("waste-collection#2").text },
      { id: "waste-collection#0", text: LIBRARY.section("waste-collection#0").text },
    ],
  });
});
