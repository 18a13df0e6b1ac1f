// A rolling deploy: a turn of an agent that the first worker's catalog lacks (an older version) is not
// lost. Its openTurn (a local activity, which would retry on the same worker for ever) fails with
// UnknownAgentError, which fails the workflow task; once a worker of the version that has the agent
// polls, it takes the retried task and the turn runs to its end. The old worker records nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { TURN_WORKFLOW, workflowIdOf } from "../../src/temporal/contract.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { TOWN_MODEL, TOWN_QUESTIONS, TOWN_SCRIPT, passModel, townAgent } from "../fixtures/temporal/town.js";
import { temporalCliPath } from "../setup/global.js";
import {
  connectClient,
  temporalAddress,
  temporalNamespace,
  uniqueTaskQueue,
  type TestClient,
} from "../support/temporal.js";
import { openStore, sharedBundle, withWorker } from "./harness.js";

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundle();
});
afterAll(() => temporal.close());

describe("a turn of an agent that an older worker lacks", () => {
  it("waits out the old worker and completes on the new one, recorded once", async () => {
    const { store, close } = await openStore("sqlite");
    const taskQueue = uniqueTaskQueue("rolling-deploy");
    const threadId = "rolling-deploy";
    const refused: string[] = [];
    const old = new AgentCatalog(
      store,
      { librarian: townAgent(passModel(TOWN_SCRIPT)) },
      { version: "old", observer: { call: () => void refused.push("call") } },
    );
    const current = new AgentCatalog(store, { assistant: townAgent(passModel(TOWN_SCRIPT)) }, { version: "new" });
    try {
      const turn = await startTurn(temporal.client, {
        agent: "assistant",
        threadId,
        input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
        taskQueue,
      });
      // The old worker takes the turn first and finds no such agent: long enough for a retry or two.
      await withWorker(old, taskQueue, () => sleep(3_000));
      expect((await readTrace(store, current.types("assistant"), threadId)).events).toEqual([]);
      const result = await withWorker(current, taskQueue, () => turn.result());
      expect(result).toBeDefined();
      const trace = await readTrace(store, current.types("assistant"), threadId);
      expect(trace.events.map((event) => event.type)).toEqual(["input", "model-output", "tool-output", "model-output"]);
      expect(refused).toEqual([]);
      // The old worker did take the turn: its workflow tasks failed, naming the missing agent.
      const failedTasks = ((await turn.workflow.fetchHistory()).events ?? []).filter(
        (event) => event.workflowTaskFailedEventAttributes?.failure?.message?.includes('No agent "assistant"') === true,
      );
      expect(failedTasks.length).toBeGreaterThan(0);
    } finally {
      await close();
    }
  }, 60_000);
});

describe("a turn of an agent that no worker has", () => {
  it("fails with UnknownAgentError after settings.unknownAgentSeconds, for a caller of the raw CLI", async () => {
    const { store, close } = await openStore("sqlite");
    const taskQueue = uniqueTaskQueue("unknown-agent");
    const threadId = "unknown-agent";
    const catalog = new AgentCatalog(store, { assistant: townAgent(passModel(TOWN_SCRIPT)) }, { version: "only" });
    const argument = {
      agent: "assistent",
      threadId,
      input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
      settings: { unknownAgentSeconds: 2 },
    };
    const cli = (...words: string[]) =>
      promisify(execFile)(temporalCliPath(), [
        ...words,
        ...["--address", temporalAddress(), "--namespace", temporalNamespace()],
      ]);
    try {
      await cli(
        ...["workflow", "start", "--type", TURN_WORKFLOW, "--task-queue", taskQueue],
        ...["--workflow-id", workflowIdOf(threadId), "--input", JSON.stringify(argument)],
      );
      const handle = temporal.client.workflow.getHandle(workflowIdOf(threadId));
      const failure = await withWorker(catalog, taskQueue, () =>
        handle.result().then(
          () => null,
          (error) => error,
        ),
      );
      expect(failure?.cause?.type).toBe("UnknownAgentError");
      expect(failure?.cause?.message).toContain('No worker took agent "assistent" within 2 s');
      // The turn was never opened. (That the workflow tasks failed meanwhile, naming the agent, the test above shows:
      // on a loaded machine the first task may come after the 2 s, and fail the turn at once.)
      const description = await handle.describe();
      expect(description.status.name).toBe("FAILED");
      expect(description.closeTime!.getTime() - description.startTime.getTime()).toBeGreaterThanOrEqual(2_000);
      expect((await readTrace(store, catalog.types("assistant"), threadId)).events).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});
