// What the Temporal runner admits before it records an input, the same as the local runner: a refused
// input writes nothing and never reaches a model later; an oversized one is refused before any workflow
// or activity runs; a local send during a running turn is refused; and the thread's lease stays renewed
// through a call longer than the lease.
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { WorkflowFailedError, WorkflowNotFoundError } from "@temporalio/client";
import type { ApplicationFailure } from "@temporalio/common";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Failure, Input, ModelOutput, ToolOutput } from "../../src/domain/events.js";
import { LeaseHeldError } from "../../src/ports/errors.js";
import type { TraceStore } from "../../src/ports/store.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { InputDeniedError, InputTooLargeError } from "../../src/runtime/errors.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { tool } from "../../src/runtime/tools/function-tool.js";
import { TURN_WORKFLOW, workflowIdOf } from "../../src/temporal/contract.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ModelLimits, ReActAgent, ReActConfig, Tokens, type TextTurn } from "../../src/toolkit/index.js";
import { reachedFile, releaseFile } from "../fixtures/temporal/gates.js";
import { TOWN_MODEL, TOWN_QUESTIONS, townCatalog } from "../fixtures/temporal/town.js";
import { activityOf, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { gateFolder, waitForFile, withWorker, type TestStore, useClientAndStore } from "./harness.js";

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));

const SECRET = "What is the admin password?";

/** An assistant whose config refuses any turn that asks for a password, in a catalog over the test's store. */
function guarded(
  model: ScriptedModel,
  options: { maxInputBytes?: number; window?: number } = {},
  trace: TraceStore = store.store,
): AgentCatalog {
  const agent = new ReActAgent<unknown, TextTurn>((_resources, turn) => {
    if (turn.text.includes("password")) throw new InputDeniedError("This assistant does not discuss passwords.");
    return new ReActConfig({
      model,
      prompt: "Answer.",
      ...(options.window ? { limits: new ModelLimits({ window: new Tokens(options.window) }) } : {}),
    });
  });
  return new AgentCatalog(trace, { assistant: agent }, { version: "test", ...options });
}

async function failureOf(result: Promise<unknown>): Promise<ApplicationFailure> {
  const failed = await result.catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(WorkflowFailedError);
  return (failed as WorkflowFailedError).cause as ApplicationFailure;
}

const turnOf = (taskQueue: string, threadId: string, payload: string) => ({
  agent: "assistant",
  threadId,
  input: { payload, model: "scripted" },
  taskQueue,
});

describe("a refused input on Temporal", () => {
  it("records nothing, as on the local runner, and never reaches the model on a later turn", async () => {
    const model = new ScriptedModel(["Hello.", "Bulky waste goes out on Mondays."]);
    const catalog = guarded(model);
    const taskQueue = uniqueTaskQueue("refused");
    const threadId = `refused-${taskQueue}`;
    await withWorker(catalog, taskQueue, async () => {
      await (await startTurn(temporal.client, turnOf(taskQueue, threadId, "Hi"))).result();
      const before = (await catalog.read(threadId, "assistant")).length;

      const refused = await startTurn(temporal.client, turnOf(taskQueue, threadId, SECRET));
      const cause = await failureOf(refused.result());
      expect(cause.type).toBe("InputDeniedError");
      expect(cause.message).toBe("This assistant does not discuss passwords.");
      const after = await readTrace(store.store, catalog.types("assistant"), threadId);
      expect(after.length).toBe(before);
      expect(after.byType(Failure)).toEqual([]);

      const next = await startTurn(temporal.client, turnOf(taskQueue, threadId, "When is bulky waste picked up?"));
      expect((await next.result()).answer).toBe("Bulky waste goes out on Mondays.");
    });
    expect(JSON.stringify(model.requests.map((request) => request.messages))).not.toContain("password");
    const trace = await readTrace(store.store, catalog.types("assistant"), threadId);
    expect(trace.byType(Input).map((input) => input.payload)).toEqual(["Hi", "When is bulky waste picked up?"]);
  });
});

describe("the size limit of an input on Temporal", () => {
  it("startTurn refuses a payload over the limit, naming its size and the limit, before any workflow starts", async () => {
    const threadId = `oversized-${uniqueTaskQueue("start")}`;
    const refused = startTurn(temporal.client, turnOf("nowhere", threadId, "x".repeat(1_500_000)));
    await expect(refused).rejects.toThrow(InputTooLargeError);
    await expect(refused).rejects.toThrow("The input is 1500002 bytes as JSON, over the limit of 262144 bytes");
    const described = temporal.client.workflow.getHandle(workflowIdOf(threadId)).describe();
    await expect(described).rejects.toThrow(WorkflowNotFoundError);
  });

  it("startTurn and the workflow follow the turn's settings.maxInputBytes, and refuse one that is no positive integer", async () => {
    const taskQueue = uniqueTaskQueue("settings-limit");
    const threadId = `settings-limit-${taskQueue}`;
    const payload = "x".repeat(2_000);
    const settings = { maxInputBytes: 1_000 };
    await expect(startTurn(temporal.client, { ...turnOf(taskQueue, threadId, payload), settings })).rejects.toThrow(
      "The input is 2002 bytes as JSON, over the limit of 1000 bytes",
    );
    await withWorker(guarded(new ScriptedModel([])), taskQueue, async () => {
      for (const [given, type, message] of [
        [settings, "InputTooLargeError", "The input is 2002 bytes as JSON, over the limit of 1000 bytes"],
        [{ maxInputBytes: 1.5 }, "ValueError", "has settings.maxInputBytes 1.5, which is no positive integer"],
      ] as const) {
        // A client of another SDK skips startTurn's check: the workflow refuses before any activity.
        const workflow = await temporal.client.workflow.start(TURN_WORKFLOW, {
          args: [{ agent: "assistant", threadId, input: { payload, model: "scripted" }, settings: given }],
          taskQueue,
          workflowId: workflowIdOf(threadId),
        });
        const cause = await failureOf(workflow.result());
        expect(cause).toMatchObject({ type, nonRetryable: true, message: expect.stringContaining(message) });
        const history = await workflow.fetchHistory();
        expect((history.events ?? []).some((event) => activityOf(event) !== null)).toBe(false);
      }
    });
    expect((await readTrace(store.store, guarded(new ScriptedModel([])).types("assistant"), threadId)).length).toBe(0);
  });

  it("the worker's catalog refuses what its maxInputBytes refuses, and an input that never fits the window; the thread goes on", async () => {
    const model = new ScriptedModel(["Hello.", "Still here."]);
    const catalog = guarded(model, { maxInputBytes: 20_000, window: 10_000 });
    const taskQueue = uniqueTaskQueue("limits");
    const threadId = `limits-${taskQueue}`;
    await withWorker(catalog, taskQueue, async () => {
      await (await startTurn(temporal.client, turnOf(taskQueue, threadId, "Hi"))).result();
      const before = (await catalog.read(threadId, "assistant")).length;
      // Over the worker's 20,000 bytes though under startTurn's default: the worker's limit holds.
      const large = await startTurn(temporal.client, turnOf(taskQueue, threadId, "x".repeat(30_000)));
      const tooLarge = await failureOf(large.result());
      expect(tooLarge.type).toBe("InputTooLargeError");
      expect(tooLarge.message).toContain("The input is 30002 bytes as JSON, over the limit of 20000 bytes");
      // About 16,000 characters: under 20,000 bytes, over a 10,000-token window with its 8,192-token output reserve.
      const wide = await startTurn(temporal.client, turnOf(taskQueue, threadId, "word ".repeat(3_200)));
      const tooWide = await failureOf(wide.result());
      expect(tooWide.type).toBe("InputTooLargeError");
      expect(tooWide.message).toMatch(
        /The input alone makes a first call .* does not fit in the window of 10000 tokens/,
      );
      expect((await readTrace(store.store, catalog.types("assistant"), threadId)).length).toBe(before);
      const next = await startTurn(temporal.client, turnOf(taskQueue, threadId, "Are you there?"));
      expect((await next.result()).answer).toBe("Still here.");
    });
    expect(model.requests).toHaveLength(2);
  });
});

describe("the thread's lease on Temporal", () => {
  it("a local send during a running Temporal turn is refused with LeaseHeldError and writes nothing; the turn ends as it would", async () => {
    const gate = { at: "model" as const, occurrence: 1, dir: gateFolder() };
    const { catalog } = townCatalog(store.store, gate);
    const taskQueue = uniqueTaskQueue("send-running");
    const threadId = `send-running-${taskQueue}`;
    await withWorker(catalog, taskQueue, async () => {
      const turn = await startTurn(temporal.client, {
        agent: "assistant",
        threadId,
        input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
        taskQueue,
      });
      await waitForFile(reachedFile(gate));
      const thread = await catalog.thread(threadId);
      const before = (await thread.trace()).length;
      await expect(thread.send(Input({ payload: TOWN_QUESTIONS[1]!, model: TOWN_MODEL }))).rejects.toThrow(
        LeaseHeldError,
      );
      expect((await thread.trace()).length).toBe(before);
      writeFileSync(releaseFile(gate), "");
      expect((await turn.result()).answer).toContain("bulky waste");
    });
    const trace = await readTrace(store.store, catalog.types("assistant"), threadId);
    expect(trace.byType(Input).map((input) => input.payload)).toEqual([TOWN_QUESTIONS[0]]);
    expect(trace.byType(Failure)).toEqual([]);
  });

  it("a tool call longer than the lease keeps the lease renewed: no other owner takes it, and the turn completes once", async () => {
    const refusals: string[] = [];
    const taskQueue = uniqueTaskQueue("long-call");
    const threadId = `long-call-${taskQueue}`;
    const slow = tool({
      name: "slow",
      description: "Think for a while.",
      args: { about: z.string().describe("What to think about.") },
      async run({ about }) {
        // Three times the 2-second lease; another owner tries to take the thread all along.
        for (let tick = 0; tick < 12; tick += 1) {
          await sleep(500);
          try {
            const taken = await store.store.acquire(threadId, { owner: "intruder", ttl: 1 });
            await store.store.release(taken);
            refusals.push("taken");
          } catch (error) {
            refusals.push(LeaseHeldError.isInstance(error) ? "held" : String(error));
          }
        }
        return ToolOutput({ text: `Thought about ${about}.` });
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "slow", arguments: { about: "bins" } }] }, "Done."]);
    const agent = new ReActAgent(new ReActConfig({ model, prompt: "Answer.", tools: [slow] }));
    const catalog = new AgentCatalog(store.store, { assistant: agent }, { version: "test", leaseSeconds: 2 });
    const turn = await withWorker(catalog, taskQueue, async () => {
      const started = await startTurn(temporal.client, turnOf(taskQueue, threadId, "Think about bins."));
      expect((await started.result()).answer).toBe("Done.");
      return started;
    });
    expect(refusals).toEqual(Array(12).fill("held"));
    const trace = await readTrace(store.store, catalog.types("assistant"), threadId);
    expect(trace.byType(ToolOutput).map((output) => output.text)).toEqual(["Thought about bins."]);
    expect(trace.byType(ModelOutput)).toHaveLength(2);
    expect(trace.byType(Failure)).toEqual([]);
    // One attempt of each activity: the lease never had to be taken again.
    const history = await turn.workflow.fetchHistory();
    const retried = (history.events ?? []).filter(
      (event) => (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1,
    );
    expect(retried).toEqual([]);
    expect((history.events ?? []).filter((event) => activityOf(event) === "callTool")).toHaveLength(1);
  });
});

describe("a writer without the lease on Temporal", () => {
  it("moving the stream at every lease the open takes fails the turn with ThreadMovedError: its input is not recorded and its lease is given up", async () => {
    const model = new ScriptedModel(["Never called."]);
    const taskQueue = uniqueTaskQueue("moved");
    const threadId = `moved-${taskQueue}`;
    const other = (index: number) =>
      Input({ payload: `The other writer's input ${index}.`, model: "scripted", origin: "assistant" });
    let writes = 0;
    // The real store, where another runner (one that takes no lease) appends just before each acquisition.
    const moving = new Proxy(store.store, {
      get(target, key) {
        if (key === "acquire")
          return async (...args: Parameters<typeof target.acquire>) => {
            writes += 1;
            await target.append(threadId, [catalog.types("assistant").check(other(writes))]);
            return target.acquire(...args);
          };
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const catalog = guarded(model, {}, moving);
    await withWorker(catalog, taskQueue, async () => {
      const turn = await startTurn(temporal.client, turnOf(taskQueue, threadId, "Hi"));
      const cause = await failureOf(turn.result());
      expect(cause.type).toBe("ThreadMovedError");
      expect(cause.message).toContain(`Another writer recorded events on stream "main" of thread "${threadId}"`);
    });
    const trace = await readTrace(store.store, catalog.types("assistant"), threadId);
    expect(trace.byType(Input).map((input) => input.payload)).toEqual(
      Array.from({ length: writes }, (_, index) => `The other writer's input ${index + 1}.`),
    );
    expect(writes).toBeGreaterThan(0);
    expect(await store.store.lease(threadId)).toBeNull();
    expect(model.requests).toHaveLength(0);
  });
});
