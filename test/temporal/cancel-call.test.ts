// Cancel stops the spend: a turn cancelled while its model call waits on the provider aborts that request within
// a second (the call learns of the cancel from a heartbeat's answer, and aborts its fetch), and records the
// cancellation once. The provider is a local server that speaks chat completions and never answers.
import { expect, it } from "vitest";
import { assistant } from "../../examples/tutorials/02-citations/agent.js";
import { OpenAIChatModel } from "../../src/adapters/openai/chat-model.js";
import { Failure } from "../../src/domain/events.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { CompatibleServer } from "../fixtures/openai-compatible-server.js";
import { uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { useClientAndStore, withWorker, type TestStore } from "./harness.js";

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));
const server = CompatibleServer.forFile();

/** Resolve once `ready()` holds (the server and the worker run in this process: polled, not timed). */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10));
}

it("aborts the model's request within a second of the cancel, and records one cancellation", async () => {
  server.reply({ silent: true });
  const model = new OpenAIChatModel(server.client(), { model: "town-model" });
  const catalog = new AgentCatalog(store.store, { assistant: assistant(model) });
  const taskQueue = uniqueTaskQueue("cancel-call");
  await withWorker(catalog, taskQueue, async () => {
    const turn = await startTurn(temporal.client, {
      agent: "assistant",
      threadId: "cancel-call",
      input: { payload: "How often can I have bulky waste picked up?", model: "town-model" },
      taskQueue,
    });
    await until(() => server.requests.length === 1);
    const cancelledAt = Date.now();
    await turn.workflow.cancel();
    await until(() => server.requests[0]!.abortedAt !== null);
    expect(server.requests[0]!.abortedAt! - cancelledAt).toBeLessThan(1000);
    await expect(turn.result()).rejects.toThrow();
  });
  const trace = await catalog.read("cancel-call", "assistant");
  expect(trace.byType(Failure).map((failure) => failure.error)).toEqual(["CancelledError"]);
  expect(server.requests).toHaveLength(1);
});
