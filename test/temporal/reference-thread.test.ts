// A thread in the reference's stored format, as the Python library writes it (test/fixtures/reference), is continued
// by a turn on Temporal, on both stores: the worker reads the earlier turn (its tool call and passages), the new
// turn's events follow in the same format, every model call replays byte for byte, and the earlier rows stay as
// they were written.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { assistant } from "../../examples/tutorials/02-citations/agent.js";
import type { StoredEvent } from "../../src/domain/events.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { replay } from "../../src/runtime/replay.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { connectClient, uniqueTaskQueue } from "../support/temporal.js";
import { STORE_KINDS, openStore, withWorker } from "./harness.js";

const WRITTEN = JSON.parse(
  readFileSync(new URL("../fixtures/reference/tutorial-2-thread.json", import.meta.url), "utf8"),
) as StoredEvent[];

async function storedEvents(store: { read(id: string): AsyncIterable<{ event: StoredEvent }> }) {
  const events: StoredEvent[] = [];
  for await (const { event } of store.read("reference-thread")) {
    const { checked: _checked, ...rest } = event;
    events.push(rest);
  }
  return events;
}

for (const kind of STORE_KINDS) {
  it(`continues a Python-written thread with a turn on Temporal and replays every call (${kind})`, async () => {
    const temporal = await connectClient();
    const { store, close } = await openStore(kind);
    try {
      await store.load("reference-thread", WRITTEN);
      const model = new ScriptedModel(["Each extra pickup costs 25 euros [1]."]);
      const catalog = new AgentCatalog(store, { assistant: assistant(model) }, { version: "ts" });
      const taskQueue = uniqueTaskQueue("reference-thread");
      const result = await withWorker(catalog, taskQueue, async () => {
        const turn = await startTurn(temporal.client, {
          agent: "assistant",
          threadId: "reference-thread",
          input: { payload: "And an extra pickup?", model: "scripted" },
          taskQueue,
        });
        return turn.result();
      });
      expect(result.answer).toBe("Each extra pickup costs 25 euros [1].");
      expect(JSON.stringify(model.requests[0]!.messages)).toContain("four times a year");
      const events = await storedEvents(store);
      expect(events.map((event) => event.type)).toEqual([
        ...WRITTEN.map((event) => event.type),
        "input",
        "model_output",
      ]);
      expect(events.slice(0, WRITTEN.length)).toEqual(
        WRITTEN.map((event) => ({ ...event, ts: new Date(event.ts!).toISOString() })),
      );
      expect((await replay(catalog, "reference-thread")).map((call) => call.matches)).toEqual([true, true, true]);
    } finally {
      await close();
      await temporal.close();
    }
  });
}
