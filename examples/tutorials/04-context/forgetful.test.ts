// The forgetful agent of tutorial 4 on a scripted model: select shows the model only the running turn.
import { expect, it } from "vitest";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Input, ModelOutput } from "../../../src/domain/index.js";
import { messageClass } from "../../../src/ports/index.js";
import { AgentCatalog } from "../../../src/runtime/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { PROMPT } from "./agent.js";
import { forgetful, main } from "./forgetful.js";

it("prints the tutorial's answers: the follow-up alone means nothing to the model", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "residual waste" } }] },
    "Residual waste is collected every Tuesday morning [2].",
    "What do you want to know about paper?",
  ]);
  expect(await main(model)).toEqual([
    "Answer: Residual waste is collected every Tuesday morning.",
    "Answer: What do you want to know about paper?",
    'In the trace: ["When is residual waste collected?","And paper?"]',
  ]);
  const followUp = model.requests[2]!;
  expect(followUp.messages.map((message) => [messageClass(message), message.content])).toEqual([
    ["SystemMessage", PROMPT],
    ["UserMessage", "And paper?"],
  ]);
});

it("keeps each element's number in the whole thread, so a later citation names the right passage", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "residual waste" } }] },
    "Residual waste is collected every Tuesday morning [2].",
    { toolCalls: [{ name: "search", arguments: { query: "paper" } }] },
    "Paper goes in the blue container [4].",
  ]);
  const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: forgetful(model) }, { version: "tutorial-4" });
  const [thread] = await agents.open(
    "assistant",
    Input({ payload: "When is residual waste collected?", model: "scripted" }),
  );
  await thread.resume();
  const followUp = Input({ payload: "And paper?", model: "scripted" });
  const trace = await (await agents.thread(thread.id, { input: followUp })).send(followUp);
  const lastRequest = model.requests[3]!;
  expect(lastRequest.messages.map((message) => messageClass(message))).toEqual([
    "SystemMessage",
    "UserMessage",
    "AssistantMessage",
    "ToolResult",
  ]);
  expect(lastRequest.messages.at(-1)!.content).toContain(
    '<passage id="4" cite="[4]">Paper and cardboard go in the blue container',
  );
  expect(trace.byType(ModelOutput).at(-1)!.markers[0]!.cited).toEqual([{ written: 4, source: "waste-collection#1" }]);
});
