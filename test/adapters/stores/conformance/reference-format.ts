/**
 * Conformance of the stored format: threads in the reference's format (snake_case fields and type names, as the
 * Python library writes them: test/fixtures/reference) are kept as written, decode strictly, encode back byte for
 * byte, and are continued by a turn and replayed on every store.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Document, Passage } from "../../../../examples/tutorials/02-citations/tools.js";
import { assistant } from "../../../../examples/tutorials/02-citations/agent.js";
import { Input, type ModelOutput, type StoredEvent } from "../../../../src/domain/events.js";
import { EventTypes, encode } from "../../../../src/domain/registry.js";
import { AgentCatalog } from "../../../../src/runtime/catalog.js";
import { replay } from "../../../../src/runtime/replay.js";
import { ScriptedModel } from "../../../../src/testing/index.js";
import { collect, threadId, type OpenStore, type StoreFixture } from "./support.js";

const referenceEvents = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/reference/${name}`, import.meta.url), "utf8")) as StoredEvent[];

/** An event's time as the stores keep it: the same instant, in ISO 8601 with milliseconds and "Z". */
const storedTime = (event: StoredEvent): StoredEvent => ({ ...event, ts: new Date(event.ts!).toISOString() });

/** The events of a thread as the store gives them back, without the check fingerprint (the store's business). */
async function storedEvents(fixture: StoreFixture, thread: string): Promise<StoredEvent[]> {
  return (await collect(fixture.store.read(thread))).map(({ event: { checked: _checked, ...event } }) => event);
}

/** The reference-format part of the suite. */
export function referenceFormatConformance(open: OpenStore): void {
  describe("the reference's stored format", () => {
    let fixture: StoreFixture;
    afterEach(async () => fixture?.close());

    it("keeps every event type as written, decodes it strictly, and encodes it back byte for byte", async () => {
      fixture = await open();
      const thread = threadId("reference");
      const written = referenceEvents("events.json");
      await fixture.store.load(thread, written);
      const stored = await storedEvents(fixture, thread);
      expect(stored).toEqual(written.map(storedTime));
      const types = new EventTypes({ elements: [Document, Passage] });
      const decoded = stored.map((event) => types.decode(event));
      expect(decoded.map((event) => event.type)).toEqual([
        "input",
        "model-output",
        "tool-output",
        "request",
        "response",
        "model-output",
        "reopened",
        "compaction",
        "failure",
        "task-input",
      ]);
      // The user's JSON keeps its own keys; the framework's fields read in this port's names.
      expect(decoded[0]).toMatchObject({ payload: { user_id: 7 }, principal: "alice" });
      expect(decoded[1]).toMatchObject({
        toolCalls: [{ id: "call-1", arguments: { max_results: 3 } }],
        finishReason: "tool_calls",
        usage: { promptTokens: 120, completionTokens: 14, cachedTokens: 64 },
        promptCharacters: 480,
      });
      expect(decoded[2]).toMatchObject({ callId: "call-1", elements: [{ title: "Parking" }, { ref: "permits" }] });
      expect(decoded[3]).toMatchObject({ requestId: "call-1:ask:0", defaultAnswer: { payload: { zone_name: "A" } } });
      expect(decoded[9]).toMatchObject({ callId: "call-4", expects: { type: "string" } });
      expect(decoded.map((event) => JSON.stringify(encode(event)))).toEqual(
        stored.map((event) => JSON.stringify(event)),
      );
    });

    it("continues a thread the Python library wrote with a turn, replays every call, and leaves its events as written", async () => {
      fixture = await open();
      const thread = "reference-thread";
      const written = referenceEvents("tutorial-2-thread.json");
      await fixture.store.load(thread, written);
      const model = new ScriptedModel(["Each extra pickup costs 25 euros [1]."]);
      const catalog = new AgentCatalog(fixture.store, { assistant: assistant(model) }, { version: "ts" });
      const trace = await (
        await catalog.thread(thread)
      ).send(Input({ payload: "And an extra pickup?", model: "scripted" }));
      // The model read the earlier turn: its tool call, the passages, and the answer.
      const seen = JSON.stringify(model.requests[0]!.messages);
      expect(seen).toContain("four times a year");
      expect(seen).toContain("call_1");
      expect((trace.events.at(-1) as ModelOutput).content).toBe("Each extra pickup costs 25 euros.");
      const replayed = await replay(catalog, thread);
      expect(replayed).toHaveLength(3);
      expect(replayed.map((call) => call.matches)).toEqual([true, true, true]);
      expect((await storedEvents(fixture, thread)).slice(0, written.length)).toEqual(written.map(storedTime));
    });
  });
}
