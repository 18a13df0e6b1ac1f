// The offline demo model runs tutorial 2 end to end: it searches, then quotes a passage with a citation that resolves.
import { expect, it } from "vitest";
import { DemoModel, InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Input, ModelOutput, Numbering } from "../../../src/domain/index.js";
import { AgentCatalog } from "../../../src/runtime/index.js";
import { LIBRARY } from "../01-first-agent/library.js";
import { QUESTIONS, assistant } from "./agent.js";

it("answers a tutorial-2 question by quoting the bulky-waste passage under the number the thread gave it", async () => {
  const model = new DemoModel();
  const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: assistant(model) });
  const [thread] = await agents.open("assistant", Input({ payload: QUESTIONS[0]!, model: model.resolve(null) }));
  const trace = await thread.resume();
  const answer = trace.byType(ModelOutput).at(-1)!;
  const cited = answer.markers.flatMap((marker) => marker.cited);
  const number = new Numbering(trace.events).numberOf("waste-collection#2");
  expect(cited).toEqual([{ written: number, source: "waste-collection#2" }]);
  expect(answer.content).toContain(LIBRARY.section("waste-collection#2").text);
  expect(answer.model).toBe("offline-demo");
});
