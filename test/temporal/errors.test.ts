// Errors on Temporal: a TransientError is retried with backoff (the retry-after honoured); any other error
// fails the turn once, recorded as a Failure, and the workflow fails with the error's name and message.
import { WorkflowFailedError, type Client } from "@temporalio/client";
import { ApplicationFailure } from "@temporalio/common";
import type { temporal as proto } from "@temporalio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutsideWorldError } from "../../src/domain/errors.js";
import { Failure, ModelOutput } from "../../src/domain/events.js";
import { TransientError } from "../../src/ports/errors.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { startTurn, type TurnHandle } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { QUESTIONS, assistant } from "../../examples/tutorials/02-citations/agent.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { STORE_KINDS, openStore, recordHistory, sharedBundle, withWorker } from "./harness.js";

/** A service that refuses the key for good: no retry can help. */
class KeyRevokedError extends OutsideWorldError {}

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundle();
});
afterAll(() => temporal.close());

/** The started event of each callModel activity of a run: its attempt, and the failure before it. */
async function modelAttempts(
  client: Client,
  turn: TurnHandle,
): Promise<proto.api.history.v1.IActivityTaskStartedEventAttributes[]> {
  const events = (await client.workflow.getHandle(turn.workflowId, turn.runId).fetchHistory()).events ?? [];
  const models = new Set(
    events
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === "callModel")
      .map((event) => Number(event.eventId)),
  );
  return events.flatMap((event) => {
    const started = event.activityTaskStartedEventAttributes;
    return started && models.has(Number(started.scheduledEventId)) ? [started] : [];
  });
}

describe.each(STORE_KINDS)("on %s", (kind) => {
  it("a model that raises TransientError twice and then answers: the turn completes, on the third attempt", async () => {
    const store = await openStore(kind);
    try {
      const model = new ScriptedModel([
        new TransientError("The model service answered 503.", { retryAfter: 1 }),
        new TransientError("The model service answered 429: slow down.", { retryAfter: 1 }),
        { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }] },
        "Four times a year, for free [2].",
      ]);
      const catalog = new AgentCatalog(store.store, { assistant: assistant(model) }, { version: "tutorial-2" });
      const taskQueue = uniqueTaskQueue("transient");
      const turn = await startTurn(temporal.client, {
        agent: "assistant",
        threadId: `transient-${kind}`,
        input: { payload: QUESTIONS[0]!, model: "scripted" },
        taskQueue,
      });
      const result = await withWorker(catalog, taskQueue, () => turn.result());
      if (kind === "sqlite") await recordHistory(temporal.client, "transient-retries", turn, turn.runId);

      expect(result).toMatchObject({ answer: "Four times a year, for free [2].", modelCalls: 2, toolCalls: 1 });
      const [first, second] = await modelAttempts(temporal.client, turn);
      expect(first!.attempt).toBe(3);
      expect(first!.lastFailure).toMatchObject({
        message: "The model service answered 429: slow down.",
        applicationFailureInfo: {
          type: "TransientError",
          nonRetryable: false,
          nextRetryDelay: { seconds: expect.anything() },
        },
      });
      expect(Number(first!.lastFailure!.applicationFailureInfo!.nextRetryDelay!.seconds)).toBe(1);
      expect(second!.attempt).toBe(1);
      const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
      expect(trace.events.map((event) => event.type)).toEqual(["input", "model-output", "tool-output", "model-output"]);
    } finally {
      await store.close();
    }
  });

  it("a permanent error fails the workflow with its name and message, and the trace records one Failure", async () => {
    const store = await openStore(kind);
    try {
      const model = new ScriptedModel([
        new KeyRevokedError("The API key was revoked: set a new key and start the turn again."),
      ]);
      const catalog = new AgentCatalog(store.store, { assistant: assistant(model) }, { version: "tutorial-2" });
      const taskQueue = uniqueTaskQueue("permanent");
      const turn = await startTurn(temporal.client, {
        agent: "assistant",
        threadId: `permanent-${kind}`,
        input: { payload: QUESTIONS[0]!, model: "scripted" },
        taskQueue,
      });
      const failed = await withWorker(catalog, taskQueue, () =>
        turn.result().then(
          () => null,
          (error: unknown) => error,
        ),
      );
      if (kind === "sqlite") await recordHistory(temporal.client, "permanent-failure", turn, turn.runId);

      expect(failed).toBeInstanceOf(WorkflowFailedError);
      const cause = (failed as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect(cause).toMatchObject({
        type: "KeyRevokedError",
        message: "The API key was revoked: set a new key and start the turn again.",
        nonRetryable: true,
      });
      expect((await modelAttempts(temporal.client, turn)).map((started) => started.attempt)).toEqual([1]);
      const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
      expect(trace.events.map((event) => event.type)).toEqual(["input", "failure"]);
      expect(trace.byType(Failure)[0]).toMatchObject({
        error: "KeyRevokedError",
        message: "The API key was revoked: set a new key and start the turn again.",
        origin: "model",
        callId: null,
      });
      expect(trace.byType(ModelOutput)).toEqual([]);
      expect(await store.store.lease(turn.threadId)).toBeNull();
    } finally {
      await store.close();
    }
  });
});
