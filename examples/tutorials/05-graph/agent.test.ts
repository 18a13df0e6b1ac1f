// Tutorial 5 on scripted models: the graph routes by the triage call's answer.
import { expect, it } from "vitest";
import { ScriptedModel } from "../../../src/testing/index.js";
import { DECLINE, TRIAGE, ask } from "./agent.js";

it("answers a question on another topic with the fixed reply, after one model call", async () => {
  const model = new ScriptedModel(["other"]);
  expect(await ask(model, "Where can I learn to swim?")).toBe(DECLINE);
  expect(model.requests).toHaveLength(1);
  expect(model.requests[0]!.messages).toEqual([
    { role: "system", content: TRIAGE },
    { role: "user", content: "Where can I learn to swim?" },
  ]);
});

it("searches and answers a question on waste, without showing the answer call the triage", async () => {
  const model = new ScriptedModel([
    "waste",
    { toolCalls: [{ name: "search", arguments: { query: "residual waste" } }] },
    "Residual waste is collected every Tuesday morning [2].",
  ]);
  expect(await ask(model, "When is residual waste collected?")).toBe(
    "Residual waste is collected every Tuesday morning.",
  );
  const [, answerCall, afterSearch] = model.requests;
  expect(answerCall!.messages.map((message) => message.role)).toEqual(["system", "user"]);
  expect(answerCall!.tools.map((tool) => tool.name)).toEqual(["search"]);
  expect(afterSearch!.messages.at(-1)).toMatchObject({
    role: "tool",
    content: expect.stringContaining('<passage id="2" cite="[2]">Residual waste'),
  });
});
