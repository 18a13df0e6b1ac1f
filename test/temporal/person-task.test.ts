// Asking inside a delegated task: a ToolDelegation's task (a child workflow on Temporal) whose tool needs
// approval. The turn's `status` shows the task's request, `answerRequest` on the thread reaches it, the tool
// runs once, the task's result is handed back, and the local runner records the same trace.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Failure, Input, ToolOutput, type Event } from "../../src/domain/events.js";
import { CANCELLED } from "../../src/domain/requests.js";
import { taskWorkflowIdOf } from "../../src/temporal/contract.js";
import type { Trace } from "../../src/domain/trace.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import type { TurnStatus } from "../../src/temporal/contract.js";
import { answerRequest, turnStatus } from "../../src/temporal/requests.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { CLERK_MODEL, CLERK_SCRIPTS, errandCatalog, type RunLog } from "../fixtures/person.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { openStore, recordHistory, sharedBundle, withWorker, withoutTimes, type TestStore } from "./harness.js";

const TASK_STREAM = "task-errand-1";
const REQUEST = "mail-1:approval";

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundle();
});
afterAll(() => temporal.close());

async function traceOf(store: TestStore, threadId: string): Promise<Trace> {
  const { catalog } = errandCatalog(store.store);
  return readTrace(store.store, catalog.types("office"), threadId);
}
const types = (events: readonly Event[]) => events.map((event) => event.type);

/** The office's thread on the local runner, its first turn run until it waits. */
async function localThread(store: TestStore, threadId: string, log?: RunLog) {
  const { catalog } = errandCatalog(store.store, log);
  const [thread] = await catalog.open("office", Input({ payload: "Send the invoice.", model: CLERK_MODEL }), {
    threadId,
  });
  await thread.resume();
  return thread;
}

describe("a person in the loop of a delegated task", { timeout: 180_000 }, () => {
  it("the local runner waits in the task, lists its request on the thread, and answering runs the task on", async () => {
    const store = await openStore("sqlite");
    try {
      const log: RunLog = { runs: [] };
      const thread = await localThread(store, "errand-local", log);
      expect((await thread.requests()).map((request) => [request.requestId, request.stream])).toEqual([
        [REQUEST, TASK_STREAM],
      ]);
      // Resuming while it waits changes nothing.
      const before = (await thread.trace()).length;
      await thread.resume();
      expect((await thread.trace()).length).toBe(before);
      expect(log.runs).toEqual([]);
      await thread.answer(REQUEST, { approved: true });
      expect(log.runs).toEqual(["send_mail ada@example.org"]);
      expect(await thread.requests()).toEqual([]);
      const trace = await thread.trace();
      expect(types(trace.stream(TASK_STREAM).events)).toEqual([
        "task-input",
        "model-output",
        "request",
        "response",
        "tool-output",
        "model-output",
      ]);
      expect(trace.stream("main").byType(ToolOutput)[0]).toMatchObject({ callId: "errand-1" });
      expect(trace.stream("main").events.at(-1)).toMatchObject({
        type: "model-output",
        content: "The errand is done.",
      });
    } finally {
      await store.close();
    }
  });

  it("on Temporal: the turn's status shows the task's request, answerRequest reaches it, the same trace as the local runner", async () => {
    const store = await openStore("sqlite");
    const threadId = "errand-temporal";
    const taskQueue = uniqueTaskQueue("person-task");
    try {
      const log: RunLog = { runs: [] };
      const { catalog } = errandCatalog(store.store, log);
      const result = await withWorker(catalog, taskQueue, async () => {
        const turn = await startTurn(temporal.client, {
          agent: "office",
          threadId,
          input: { payload: "Send the invoice.", model: CLERK_MODEL },
          taskQueue,
        });
        let status: TurnStatus | null = null;
        while (status === null || status.requests.length === 0) {
          await sleep(100);
          status = await turnStatus(temporal.client, threadId).catch(() => null);
        }
        expect(status).toMatchObject({ state: "waiting", node: expect.any(String) });
        expect(status.requests).toEqual([
          expect.objectContaining({ requestId: REQUEST, kind: "approval", tool: "send_mail", stream: TASK_STREAM }),
        ]);
        expect(log.runs).toEqual([]);
        await recordHistory(temporal.client, "person-task-waiting", turn, turn.runId);
        // An answer that does not fit is refused by the turn, as for its own requests.
        await expect(
          answerRequest(temporal.client, threadId, { requestId: REQUEST, payload: { approved: "yes" } }),
        ).rejects.toThrow(/does not fit/);
        const answered = await answerRequest(temporal.client, threadId, {
          requestId: REQUEST,
          payload: { approved: true },
        });
        expect(answered.requestId).toBe(REQUEST);
        await expect(
          answerRequest(temporal.client, threadId, { requestId: REQUEST, payload: { approved: true } }),
        ).rejects.toThrow(/answered already/);
        const result = await turn.result();
        await recordHistory(temporal.client, "person-task-answered", turn, turn.runId);
        await recordHistory(temporal.client, "person-task-answered-task", {
          workflowId: taskWorkflowIdOf(threadId, TASK_STREAM),
        });
        return result;
      });
      expect(result.answer).toBe("The errand is done.");
      expect(log.runs).toEqual(["send_mail ada@example.org"]);
      const trace = await traceOf(store, threadId);

      const localStore = await openStore("sqlite");
      try {
        const thread = await localThread(localStore, threadId);
        await thread.answer(REQUEST, { approved: true });
        expect(withoutTimes(trace)).toEqual(withoutTimes(await thread.trace()));
      } finally {
        await localStore.close();
      }
    } finally {
      await store.close();
    }
  });

  it("cancelled while its task waits: the task and the turn each record the cancellation once, the lease is released, the next turn works, as on the local runner", async () => {
    const store = await openStore("sqlite");
    const threadId = "errand-cancel";
    const taskQueue = uniqueTaskQueue("person-task-cancel");
    try {
      const log: RunLog = { runs: [] };
      const { catalog } = errandCatalog(store.store, log);
      await withWorker(catalog, taskQueue, async () => {
        const start = (payload: string) =>
          startTurn(temporal.client, { agent: "office", threadId, input: { payload, model: CLERK_MODEL }, taskQueue });
        const turn = await start("Send the invoice.");
        while (((await turnStatus(temporal.client, threadId).catch(() => null))?.requests.length ?? 0) === 0)
          await sleep(100);
        await turn.workflow.cancel();
        await expect(turn.result()).rejects.toThrow();
        expect(await store.store.lease(threadId)).toBeNull();
        await (await start("Thanks.")).result();
      });
      expect(log.runs).toEqual([]);
      const trace = await traceOf(store, threadId);
      expect(types(trace.stream(TASK_STREAM).events)).toEqual(["task-input", "model-output", "request", "failure"]);
      expect(trace.byType(Failure)).toEqual([
        expect.objectContaining({ ...CANCELLED, stream: TASK_STREAM }),
        expect.objectContaining({ ...CANCELLED, stream: "main" }),
      ]);
      const localStore = await openStore("sqlite");
      try {
        const thread = await localThread(localStore, threadId);
        await thread.cancel();
        expect(await thread.requests()).toEqual([]);
        await thread.send(Input({ payload: "Thanks.", model: CLERK_MODEL }));
        expect(withoutTimes(trace)).toEqual(withoutTimes(await thread.trace()));
      } finally {
        await localStore.close();
      }
    } finally {
      await store.close();
    }
  });

  it("a question of the task whose deadline passes ends the task and the turn, as on the local runner", async () => {
    const store = await openStore("sqlite");
    const threadId = "errand-deadline";
    const taskQueue = uniqueTaskQueue("person-task-deadline");
    const waiting = { deadlineSeconds: 1 };
    try {
      const { catalog } = errandCatalog(store.store, undefined, CLERK_SCRIPTS.booking, waiting);
      await withWorker(catalog, taskQueue, async () => {
        const turn = await startTurn(temporal.client, {
          agent: "office",
          threadId,
          input: { payload: "Send the invoice.", model: CLERK_MODEL },
          taskQueue,
        });
        await expect(turn.result()).rejects.toThrow();
        expect(await store.store.lease(threadId)).toBeNull();
      });
      const trace = await traceOf(store, threadId);
      expect(trace.byType(Failure).map((failure) => [failure.stream, failure.error])).toEqual([
        [TASK_STREAM, "NoAnswerError"],
        ["main", "NoAnswerError"],
      ]);
      const localStore = await openStore("sqlite");
      try {
        const { catalog: local } = errandCatalog(localStore.store, undefined, CLERK_SCRIPTS.booking, waiting);
        const [thread] = await local.open("office", Input({ payload: "Send the invoice.", model: CLERK_MODEL }), {
          threadId,
        });
        await thread.resume();
        await sleep(1500);
        await thread.resume().catch(() => undefined);
        expect(withoutTimes(trace)).toEqual(withoutTimes(await thread.trace()));
      } finally {
        await localStore.close();
      }
    } finally {
      await store.close();
    }
  });
});
