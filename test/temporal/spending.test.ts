// Budgets on Temporal: a scripted model that would call a tool forever ends at the turn's token budget with the
// recorded BudgetExceededError Failure (not retried: the budget is spent, whatever the attempt), and a thread over
// its budget refuses the next turn's input before anything is recorded.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { WorkflowFailedError } from "@temporalio/client";
import { expect, it } from "vitest";
import { Failure, ModelOutput } from "../../src/domain/events.js";
import type { SpendingLimits } from "../../src/runtime/spending.js";
import { looperCatalog } from "../fixtures/looper.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { workflowIdOf } from "../../src/temporal/contract.js";
import { temporalCliPath } from "../setup/global.js";
import { temporalAddress, temporalNamespace, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { useClientAndStore, withWorker, type TestStore } from "./harness.js";

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));

const looping = (spending: SpendingLimits) => looperCatalog(store.store, spending);

it("ends a looping turn at its token budget with one recorded Failure, and refuses the thread's next input", async () => {
  const catalog = looping({ turnTokens: 500, threadTokens: 500 });
  const taskQueue = uniqueTaskQueue("spending");
  await withWorker(catalog, taskQueue, async () => {
    const start = (payload: string) =>
      startTurn(temporal.client, {
        agent: "looper",
        threadId: "over-budget",
        input: { payload, model: "gpt-4.1-mini" },
        taskQueue,
      });
    const failed = await (await start("Go.")).result().then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    expect(String((failed as WorkflowFailedError).cause?.message)).toMatch(/turnTokens budget is spent: 550 tokens/);
    const trace = await catalog.read("over-budget", "looper");
    expect(trace.byType(ModelOutput)).toHaveLength(5);
    expect(trace.byType(Failure).map((failure) => failure.error)).toEqual(["BudgetExceededError"]);

    const before = trace.length;
    const refused = await (await start("And again?")).result().then(
      () => null,
      (error: unknown) => error,
    );
    expect(String((refused as WorkflowFailedError).cause?.message)).toMatch(/threadTokens budget is spent: 550 tokens/);
    expect((await catalog.read("over-budget", "looper")).length).toBe(before);
  });
});

it("sets SoevThreadTokens as a turn ends, so `temporal workflow list --query` finds the expensive thread", async () => {
  const catalog = looping({ modelCallsPerTurn: 1 });
  const taskQueue = uniqueTaskQueue("thread-tokens");
  const run = (threadId: string) =>
    startTurn(temporal.client, {
      agent: "looper",
      threadId,
      input: { payload: "Go.", model: "gpt-4.1-mini" },
      taskQueue,
    }).then((turn) => turn.result().catch(() => null));
  const suffix = taskQueue.slice(-8);
  const [cheap, costly] = [`cheap-${suffix}`, `costly-${suffix}`];
  await withWorker(looping({ modelCallsPerTurn: 1 }), taskQueue, () => run(cheap));
  // Three turns of one call each: 330 tokens on the costly thread, 110 on the cheap one.
  await withWorker(catalog, taskQueue, async () => {
    for (let turn = 0; turn < 3; turn++) await run(costly);
  });
  const { stdout } = await promisify(execFile)(temporalCliPath(), [
    ...["workflow", "list", "--query", `SoevThreadTokens > 200 AND TaskQueue = "${taskQueue}"`, "--output", "json"],
    ...["--address", temporalAddress(), "--namespace", temporalNamespace()],
  ]);
  const listed = (JSON.parse(stdout) as { execution: { workflowId: string } }[]).map((row) => row.execution.workflowId);
  expect(new Set(listed)).toEqual(new Set([workflowIdOf(costly)]));
});
