// A turn that waits for a person, on Temporal: an approval that survives a SIGKILLed worker, a denial,
// the `answer` Update's validator, a deadline, cancellation during a model call and during a wait, and the
// same trace as the local runner, timestamps aside.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Failure, Input, ToolOutput, type Event } from "../../src/domain/events.js";
import { CANCELLED } from "../../src/domain/requests.js";
import type { Trace } from "../../src/domain/trace.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { AnswerRefusedError } from "../../src/runtime/runner/requests.js";
import { TURN_CANCELLED, type TurnStatus } from "../../src/temporal/contract.js";
import { answerRequest, turnStatus } from "../../src/temporal/requests.js";
import { startTurn, type TurnHandle } from "../../src/temporal/start-turn.js";
import type { ScriptedOutput } from "../../src/testing/index.js";
import { CLERK_MODEL, CLERK_SCRIPTS, clerkCatalog, clerkModel, type RunLog, type Waiting } from "../fixtures/person.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import {
  gateFolder,
  openStore,
  recordHistory,
  sharedBundleFile,
  spawnWorker,
  withWorker,
  withoutTimes,
  type TestStore,
} from "./harness.js";

// A loaded machine runs a Temporal test for minutes: the crash test spawns a worker and waits for a retry.
const LONG = 300_000;

// Short timeouts, so the server hands a dead worker's tasks to the new worker within seconds.
const SETTINGS = { heartbeatSeconds: 2, controlSeconds: 3 };

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundleFile();
});
afterAll(() => temporal.close());

async function start(threadId: string, taskQueue: string, payload = "Please do it.") {
  return startTurn(temporal.client, {
    agent: "clerk",
    threadId,
    input: { payload, model: CLERK_MODEL },
    taskQueue,
    settings: SETTINGS,
  });
}

/** Query the turn until its status passes `ready`. */
async function statusWhen(client: Client, threadId: string, ready: (status: TurnStatus) => boolean) {
  for (;;) {
    const status = await turnStatus(client, threadId).catch(() => null);
    if (status !== null && ready(status)) return status;
    await sleep(100);
  }
}
const waiting = (status: TurnStatus) => status.state === "waiting" && status.requests.length > 0;

async function traceOf(store: TestStore, threadId: string): Promise<Trace> {
  const { catalog } = clerkCatalog(store.store, { script: [] });
  return readTrace(store.store, catalog.types("clerk"), threadId);
}
const types = (events: readonly Event[]) => events.map((event) => event.type);

async function updatesAccepted(turn: TurnHandle): Promise<number> {
  const history = await temporal.client.workflow.getHandle(turn.workflowId, turn.runId).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length;
}

/** The same thread on the local runner, driven by `drive`: its trace. */
async function locally(
  script: readonly ScriptedOutput[],
  threadId: string,
  drive: (thread: Awaited<ReturnType<typeof openLocal>>) => Promise<unknown>,
  waitingOptions?: Waiting,
): Promise<Trace> {
  const store = await openStore("sqlite");
  try {
    const thread = await openLocal(store, script, threadId, waitingOptions);
    await drive(thread).catch(() => undefined);
    return await traceOf(store, threadId);
  } finally {
    await store.close();
  }
}
async function openLocal(store: TestStore, script: readonly ScriptedOutput[], threadId: string, options?: Waiting) {
  const { catalog } = clerkCatalog(store.store, { script, waiting: options });
  const [thread] = await catalog.open("clerk", Input({ payload: "Please do it.", model: CLERK_MODEL }), { threadId });
  return thread;
}

describe("an approval-gated tool on Temporal", { timeout: LONG }, () => {
  it("waits with no worker busy, survives a SIGKILLed worker, runs once when approved, and the next turn works", async () => {
    const store = await openStore("sqlite");
    const taskQueue = uniqueTaskQueue("person-crash");
    const runLog = join(gateFolder(), "runs.log");
    const threadId = "person-crash";
    try {
      const doomed = await spawnWorker({
        taskQueue,
        store: store.spec,
        gate: null,
        env: { SOEV_TEST_CLERK: "mail", SOEV_TEST_RUN_LOG: runLog },
      });
      const turn = await start(threadId, taskQueue);
      const status = await statusWhen(temporal.client, threadId, waiting);
      expect(status).toMatchObject({ threadId, agent: "clerk", state: "waiting", running: [] });
      expect(status.requests).toEqual([
        expect.objectContaining({
          requestId: "mail-1:approval",
          kind: "approval",
          tool: "send_mail",
          callId: "mail-1",
        }),
      ]);
      expect(status.requests[0]!.text).toContain('send_mail({"to":"ada@example.org","subject":"Invoice"})');
      const described = await turn.workflow.describe();
      const pending = (described.raw.pendingActivities ?? []).length;
      expect(pending, "no activity runs while the turn waits").toBe(0);
      await recordHistory(temporal.client, "person-waiting", turn, turn.runId);

      doomed.process.kill("SIGKILL");
      expect(await doomed.exited).toBe("SIGKILL");

      const log: RunLog = { runs: [], file: runLog };
      const { catalog } = clerkCatalog(store.store, { script: CLERK_SCRIPTS.mail, log });
      const { result, next } = await withWorker(catalog, taskQueue, async () => {
        const answered = await answerRequest(temporal.client, threadId, {
          requestId: "mail-1:approval",
          payload: { approved: true },
        });
        expect(answered).toMatchObject({ requestId: "mail-1:approval", seq: 3 });
        const result = await turn.result();
        await recordHistory(temporal.client, "person-answered", turn, turn.runId);
        const next = await (await start(threadId, taskQueue, "Hi.")).result();
        return { result, next };
      });
      expect(result).toMatchObject({ answer: "I sent the mail.", toolCalls: 1 });
      expect(next.answer).toBe("Hello again.");
      const trace = await traceOf(store, threadId);
      expect(types(trace.events)).toEqual([
        "input",
        "model-output",
        "request",
        "response",
        "tool-output",
        "model-output",
        "input",
        "model-output",
      ]);
      expect(trace.byType(ToolOutput)[0]).toMatchObject({
        callId: "mail-1",
        text: 'Sent "Invoice" to ada@example.org.',
      });
      expect(readFileSync(runLog, "utf8").trim().split("\n")).toEqual(["send_mail ada@example.org"]);

      const local = await locally(CLERK_SCRIPTS.mail, threadId, async (thread) => {
        await thread.resume();
        await thread.answer("mail-1:approval", { approved: true });
        await thread.send(Input({ payload: "Hi.", model: CLERK_MODEL }));
      });
      expect(withoutTimes(trace)).toEqual(withoutTimes(local));
    } finally {
      await store.close();
    }
  });

  it("denied, the tool never runs and the model reads the denial; the local runner records the same", async () => {
    const store = await openStore("sqlite");
    const taskQueue = uniqueTaskQueue("person-deny");
    const threadId = "person-deny";
    try {
      const { catalog, log, model } = clerkCatalog(store.store, { script: CLERK_SCRIPTS.mail });
      await withWorker(catalog, taskQueue, async () => {
        const turn = await start(threadId, taskQueue);
        await statusWhen(temporal.client, threadId, waiting);
        await answerRequest(temporal.client, threadId, {
          requestId: "mail-1:approval",
          payload: { approved: false, reason: "not before Monday" },
        });
        await turn.result();
      });
      expect(log.runs).toEqual([]);
      expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain(
        "A person denied this call of send_mail: not before Monday",
      );
      const trace = await traceOf(store, threadId);
      const local = await locally(CLERK_SCRIPTS.mail, threadId, async (thread) => {
        await thread.resume();
        await thread.answer("mail-1:approval", { approved: false, reason: "not before Monday" });
      });
      expect(withoutTimes(trace)).toEqual(withoutTimes(local));
    } finally {
      await store.close();
    }
  });

  it("the Update's validator refuses an unknown id, a payload that does not fit and a second answer, recording nothing", async () => {
    const store = await openStore("sqlite");
    const taskQueue = uniqueTaskQueue("person-refuse");
    const threadId = "person-refuse";
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The model's second call waits, so the turn still runs when the second answer comes.
    const model = clerkModel(CLERK_SCRIPTS.mail, (pass) => (pass === 1 ? held : Promise.resolve()));
    try {
      const { catalog } = clerkCatalog(store.store, { script: CLERK_SCRIPTS.mail, model });
      await withWorker(catalog, taskQueue, async () => {
        const turn = await start(threadId, taskQueue);
        await statusWhen(temporal.client, threadId, waiting);
        const before = (await traceOf(store, threadId)).length;
        const answer = (requestId: string, payload: unknown) =>
          answerRequest(temporal.client, threadId, { requestId, payload: payload as never });
        await expect(answer("mail-9:approval", { approved: true })).rejects.toThrow(AnswerRefusedError);
        await expect(answer("mail-9:approval", { approved: true })).rejects.toThrow(
          'No request "mail-9:approval" waits for an answer in this turn; waiting: mail-1:approval.',
        );
        await expect(answer("mail-1:approval", { approved: "yes" })).rejects.toThrow(
          /does not fit its schema \(payload.approved: expected boolean, got string\)/,
        );
        await expect(answer("mail-1:approval", { approved: true, extra: 1 })).rejects.toThrow(/extra: is not allowed/);
        expect((await traceOf(store, threadId)).length).toBe(before);
        expect(await updatesAccepted(turn)).toBe(0);

        await answer("mail-1:approval", { approved: true });
        await expect(answer("mail-1:approval", { approved: false })).rejects.toThrow(
          'Request "mail-1:approval" is answered already; an answer is recorded once.',
        );
        expect(await updatesAccepted(turn)).toBe(1);
        release();
        await turn.result();
      });
      const trace = await traceOf(store, threadId);
      expect(types(trace.events)).toEqual([
        "input",
        "model-output",
        "request",
        "response",
        "tool-output",
        "model-output",
      ]);
    } finally {
      release();
      await store.close();
    }
  });
});

describe("a question on Temporal", { timeout: LONG }, () => {
  it("is answered by the Update with a payload that fits its zod schema", async () => {
    const store = await openStore("sqlite");
    const taskQueue = uniqueTaskQueue("person-question");
    const threadId = "person-question";
    try {
      const { catalog, log } = clerkCatalog(store.store, { script: CLERK_SCRIPTS.booking });
      await withWorker(catalog, taskQueue, async () => {
        const turn = await start(threadId, taskQueue);
        const status = await statusWhen(temporal.client, threadId, waiting);
        expect(status.requests[0]).toMatchObject({ requestId: "book-1:ask:0", kind: "question", deadline: null });
        await expect(
          answerRequest(temporal.client, threadId, { requestId: "book-1:ask:0", payload: { date: "tomorrow" } }),
        ).rejects.toThrow(/payload.date: must match/);
        await answerRequest(temporal.client, threadId, { requestId: "book-1:ask:0", payload: { date: "2026-12-01" } });
        expect((await turn.result()).answer).toBe("Booked.");
      });
      expect(log.runs).toEqual(["book_slot 2026-12-01"]);
    } finally {
      await store.close();
    }
  });

  it("whose deadline passes ends the turn with one NoAnswerError Failure, as on the local runner", async () => {
    const store = await openStore("sqlite");
    const taskQueue = uniqueTaskQueue("person-deadline");
    const threadId = "person-deadline";
    const deadline = { deadlineSeconds: 1 };
    try {
      const { catalog, log } = clerkCatalog(store.store, { script: CLERK_SCRIPTS.booking, waiting: deadline });
      await withWorker(catalog, taskQueue, async () => {
        const turn = await start(threadId, taskQueue);
        await expect(turn.result()).rejects.toThrow();
        const failure = await turn.result().then(
          () => null,
          (error: { cause?: { type?: string; message?: string } }) => error.cause,
        );
        expect(failure).toMatchObject({ type: "NoAnswerError" });
        expect(failure?.message).toContain('No answer to request "book-1:ask:0"');
      });
      expect(log.runs).toEqual([]);
      const trace = await traceOf(store, threadId);
      expect(types(trace.events)).toEqual(["input", "model-output", "request", "failure"]);
      expect(trace.byType(Failure)[0]).toMatchObject({ error: "NoAnswerError", callId: "book-1" });
      expect(await store.store.lease(threadId)).toBeNull();
      const local = await locally(
        CLERK_SCRIPTS.booking,
        threadId,
        async (thread) => {
          await thread.resume();
          await sleep(1100);
          await thread.resume();
        },
        deadline,
      );
      expect(withoutTimes(trace)).toEqual(withoutTimes(local));
    } finally {
      await store.close();
    }
  });
});

describe("cancelling a turn on Temporal", { timeout: LONG }, () => {
  it("during a model call stops the call through its heartbeats, records one cancellation, releases the lease; the next turn works", async () => {
    const store = await openStore("sqlite");
    const taskQueue = uniqueTaskQueue("person-cancel-call");
    const threadId = "person-cancel-call";
    const script: ScriptedOutput[] = ["Hello.", "Hello again."];
    const noted: string[] = [];
    let blocked = false;
    const model = clerkModel(script, async () => {
      if (blocked) return;
      blocked = true;
      const signal = Context.current().cancellationSignal;
      noted.push("model call started");
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      noted.push("model call cancelled");
      throw signal.reason;
    });
    try {
      const { catalog } = clerkCatalog(store.store, { script, model });
      await withWorker(catalog, taskQueue, async () => {
        const turn = await start(threadId, taskQueue);
        await statusWhen(temporal.client, threadId, (status) => status.running.some((unit) => unit.kind === "model"));
        while (!noted.includes("model call started")) await sleep(50);
        await turn.workflow.cancel();
        await expect(turn.result()).rejects.toThrow();
        expect(noted).toEqual(["model call started", "model call cancelled"]);
        expect(await store.store.lease(threadId)).toBeNull();
        const next = await (await start(threadId, taskQueue, "Hi.")).result();
        expect(next.answer).toBe("Hello.");
      });
      const trace = await traceOf(store, threadId);
      expect(types(trace.events)).toEqual(["input", "failure", "input", "model-output"]);
      expect(trace.byType(Failure)).toEqual([
        expect.objectContaining({ ...TURN_CANCELLED, callId: null, origin: null, retryable: false }),
      ]);
    } finally {
      await store.close();
    }
  });

  it("during a wait records one cancellation, releases the lease, and the next turn works, as on the local runner", async () => {
    const store = await openStore("sqlite");
    const taskQueue = uniqueTaskQueue("person-cancel-wait");
    const threadId = "person-cancel-wait";
    try {
      const { catalog, log } = clerkCatalog(store.store, { script: CLERK_SCRIPTS.mail });
      await withWorker(catalog, taskQueue, async () => {
        const turn = await start(threadId, taskQueue);
        await statusWhen(temporal.client, threadId, waiting);
        await turn.workflow.cancel();
        await expect(turn.result()).rejects.toThrow();
        expect(await store.store.lease(threadId)).toBeNull();
        await expect(
          answerRequest(temporal.client, threadId, { requestId: "mail-1:approval", payload: { approved: true } }),
        ).rejects.toThrow();
        const next = await (await start(threadId, taskQueue, "Hi.")).result();
        expect(next.answer).toBe("I sent the mail.");
      });
      expect(log.runs).toEqual([]);
      const trace = await traceOf(store, threadId);
      expect(types(trace.events)).toEqual(["input", "model-output", "request", "failure", "input", "model-output"]);
      expect(trace.byType(Failure)).toEqual([expect.objectContaining(CANCELLED)]);
      const local = await locally(CLERK_SCRIPTS.mail, threadId, async (thread) => {
        await thread.resume();
        await thread.cancel();
        await thread.send(Input({ payload: "Hi.", model: CLERK_MODEL }));
      });
      expect(withoutTimes(trace)).toEqual(withoutTimes(local));
    } finally {
      await store.close();
    }
  });
});

it("the Failure of a cancelled turn is the same on both runners", () => {
  expect(TURN_CANCELLED).toEqual(CANCELLED);
});
