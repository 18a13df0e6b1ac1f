// The town assistant of `npm run app` on the offline demo model and the local runner: a booking waits for
// approval, then asks for the slot with a schema whose fields the playground draws; a denial's reason
// reaches the answer.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DemoModel, InMemoryTraceStore } from "../src/adapters/index.js";
import { Input, ModelOutput, Request, ToolOutput } from "../src/domain/index.js";
import { DEMO_MODEL } from "../src/adapters/demo-model.js";
import { exampleCatalog } from "./catalog.js";
import { PickupSlot } from "./town-assistant.js";

const BOOK = "Please book a bulky waste pickup for an old sofa.";

async function booking() {
  const catalog = exampleCatalog(new InMemoryTraceStore(), new DemoModel());
  const [thread] = await catalog.open("assistant", Input({ payload: BOOK, model: DEMO_MODEL }));
  const waiting = await thread.resume();
  return { thread, waiting };
}

describe("the town assistant's booking", () => {
  it("waits for approval, asks for the slot, and books what the resident chose", async () => {
    const { thread, waiting } = await booking();
    const [approval] = waiting.byType(Request);
    expect(approval).toMatchObject({
      requestId: expect.stringMatching(/:approval$/),
      kind: "approval",
      tool: "book_pickup",
      arguments: { items: "Please book a bulky waste pickup for an old sofa" },
    });
    const approved = await thread.answer(approval!.requestId, { approved: true });
    const question = approved.byType(Request).at(-1)!;
    expect(question).toMatchObject({ kind: "question", tool: "book_pickup" });
    expect(question.text).toMatch(/^When should the crew pick up /);
    // The schema the playground builds its form from: a string, an enum, an integer and a boolean.
    expect(question.schema).toMatchObject({
      type: "object",
      properties: {
        date: { type: "string", pattern: expect.any(String) },
        time: { type: "string", enum: ["morning", "afternoon"] },
        pieces: { type: "integer", minimum: 1, maximum: 20 },
        callAhead: { type: "boolean" },
      },
      required: expect.arrayContaining(["date", "time", "pieces"]),
    });
    const slot: z.input<typeof PickupSlot> = { date: "2026-12-01", time: "morning", pieces: 2, callAhead: true };
    const done = await thread.answer(question.requestId, slot);
    expect(done.byType(ToolOutput).at(-1)!.text).toMatch(
      /^Booked the pickup of .* on 2026-12-01 in the morning, 2 pieces\. The crew phones 30 minutes before it comes\./,
    );
    expect(done.byType(ModelOutput).at(-1)!.content).toMatch(/passes on what book_pickup returned: Booked the pickup/);
  });

  it("does not run when denied, and the answer says why", async () => {
    const { thread, waiting } = await booking();
    const done = await thread.answer(waiting.byType(Request)[0]!.requestId, {
      approved: false,
      reason: "Not this week.",
    });
    expect(done.byType(Request)).toHaveLength(1);
    expect(done.byType(ModelOutput).at(-1)!.content).toContain("denied this call of book_pickup: Not this week.");
  });

  it("still answers a question about the town from the documents, citing them", async () => {
    const catalog = exampleCatalog(new InMemoryTraceStore(), new DemoModel());
    const question = "How often can I have bulky waste picked up, and what does it cost?";
    const [thread] = await catalog.open("assistant", Input({ payload: question, model: DEMO_MODEL }));
    const trace = await thread.resume();
    expect(trace.byType(ModelOutput)[0]!.toolCalls[0]!.name).toBe("search");
    expect(trace.byType(ModelOutput).at(-1)!.markers.length).toBeGreaterThan(0);
  });
});
