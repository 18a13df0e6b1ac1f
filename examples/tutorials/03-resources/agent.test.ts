// Tutorial 3 on scripted models: the same agent searches each user's own library.
import { expect, it } from "vitest";
import { ScriptedModel } from "../../../src/testing/index.js";
import { TownApp } from "./agent.js";

function script(): ScriptedModel {
  return new ScriptedModel([{ toolCalls: [{ name: "search", arguments: { query: "bulky waste" } }] }, "Done."]);
}

it("gives each thread the library of its user", async () => {
  const model = script();
  const app = new TownApp(model);
  await app.ask("alice", "How often can I have bulky waste picked up?", "scripted");
  expect(model.requests[1]!.messages.at(-1)).toMatchObject({
    role: "tool",
    content: expect.stringContaining("Bulky waste, such as furniture"),
  });

  const bobsModel = script();
  await new TownApp(bobsModel).ask("bob", "How often can I have bulky waste picked up?", "scripted");
  const result = bobsModel.requests[1]!.messages.at(-1);
  expect(result).toMatchObject({ role: "tool", content: expect.stringContaining("No new passages for these words") });
  expect(result).not.toMatchObject({ content: expect.stringContaining("Bulky waste") });
});
