// Tutorial 1 on a scripted model: the agent searches, reads the passages as text, and answers.
import { expect, it } from "vitest";
import { ScriptedModel } from "../../../src/testing/index.js";
import { LIBRARY } from "./library.js";
import { PROMPT, QUESTION, main, search } from "./agent.js";

it("searches the library, gives the model the passages, and prints the answer", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste" } }] },
    "You can have bulky waste picked up for free four times a year.",
  ]);
  const answer = await main(model);
  expect(answer).toBe("You can have bulky waste picked up for free four times a year.");
  const [first, second] = model.requests;
  expect(first!.messages).toEqual([
    { role: "system", content: PROMPT },
    { role: "user", content: QUESTION },
  ]);
  expect(first!.tools.map((tool) => tool.name)).toEqual(["search"]);
  expect(second!.messages.at(-1)).toMatchObject({
    role: "tool",
    content: expect.stringContaining("Waste collection: Bulky waste, such as furniture"),
  });
});

it("tells the model when nothing is found", async () => {
  const output = await search({ query: "swimming pool", library: LIBRARY });
  expect(output.error).toBe("Nothing found for these words. Try other words.");
});
