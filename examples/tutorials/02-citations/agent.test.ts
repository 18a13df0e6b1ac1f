// Tutorial 2 on a scripted model: what the model reads, and how its citations resolve.
import { expect, it } from "vitest";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Input, ModelOutput } from "../../../src/domain/index.js";
import { AgentCatalog, accepted, replay } from "../../../src/runtime/index.js";
import { Text } from "../../../src/toolkit/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { QUESTIONS, assistant, show } from "./agent.js";

const FIRST_RESULT = `<document id="1" title="Waste collection">
<passage id="2" cite="[2]">Bulky waste, such as furniture, is picked up after an appointment. Each household can have it picked up for free four times a year. Each extra pickup costs 25 euros.</passage>
<passage id="3" cite="[3]">Residual waste is collected every Tuesday morning. Put the container on the street before 7:30.</passage>
</document>`;

function script(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }] },
    "You can have bulky waste picked up for free four times a year [2]. An extra pickup costs 25 euros [2].",
    { toolCalls: [{ name: "search", arguments: { query: "parking permit" } }] },
    "A resident parking permit costs 120 euros a year [5].",
  ]);
}

async function run(model: ScriptedModel) {
  const agent = assistant(model);
  const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "tutorial-2" });
  const [thread] = await agents.open("assistant", Input({ payload: QUESTIONS[0]!, model: "scripted" }));
  const first = await thread.resume();
  const followUp = Input({ payload: QUESTIONS[1]!, model: "scripted" });
  const second = await (await agents.thread(thread.id, { input: followUp })).send(followUp);
  return { agent, first, second };
}

it("shows the model the search result as the tutorial's XML", async () => {
  const model = script();
  await run(model);
  const toolResult = model.requests[1]!.messages.at(-1)!;
  expect(toolResult).toMatchObject({ role: "tool", content: FIRST_RESULT });
});

it("resolves each citation to the passage the tutorial names, and numbers the permit passage [5]", async () => {
  const { first, second } = await run(script());
  expect(show(first)).toEqual([
    "Answer: You can have bulky waste picked up for free four times a year [2]. An extra pickup costs 25 euros [2].",
    "  [2] Bulky waste, such as furniture, is picked up after an appointment. Each household can have it picked up for free four times a year. Each extra pickup costs 25 euros.",
  ]);
  expect(show(second)).toEqual([
    "Answer: A resident parking permit costs 120 euros a year [5].",
    "  [5] A resident parking permit costs 120 euros a year.",
  ]);
  const answer = second.byType(ModelOutput).at(-1)!;
  expect(answer.content).not.toContain("[5]");
  expect(answer.markers[0]!.cited).toEqual([{ written: 5, source: "parking-permits#0" }]);
});

it("replays a finished thread to exactly the request hashes its outputs recorded", async () => {
  const { agent, second } = await run(script());
  const calls = await replay(second.events, (input) => agent.build(undefined, accepted(Text, input)[1], input.model));
  expect(calls.map((call) => call.request?.hash)).toEqual(
    second.byType(ModelOutput).map((output) => output.requestHash),
  );
  expect(calls.every((call) => call.matches)).toBe(true);
});
