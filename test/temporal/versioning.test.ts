// Worker Deployment versioning: two versions of the worker on one task queue of the dev server. A turn
// that started on version 1 finishes there, while version 2 is current and takes every new turn.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { NativeConnection } from "@temporalio/worker";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { runWorker } from "../../worker.js";
import { passModel, TOWN_MODEL, TOWN_QUESTIONS, TOWN_SCRIPT, townAgent } from "../fixtures/temporal/town.js";
import {
  connectClient,
  connectWorker,
  temporalNamespace,
  uniqueTaskQueue,
  type TestClient,
} from "../support/temporal.js";
import { openStore, sharedBundle, type TestStore } from "./harness.js";

let temporal: TestClient;
let store: TestStore;
let connection: NativeConnection;
beforeAll(async () => {
  temporal = await connectClient();
  connection = await connectWorker();
  store = await openStore("sqlite");
  await sharedBundle();
});
afterAll(async () => {
  await store.close();
  await connection.close();
  await temporal.close();
});

/** A latch the first tool call of version 1 waits on, so its turn is still running when version 2 arrives. */
function latch(): { reached: Promise<void>; release: () => void; wait: () => Promise<void> } {
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { reached, release, wait: () => (reach(), released) };
}

/** The current version's build id of a deployment, or null while it has none. */
async function currentBuildId(deploymentName: string): Promise<string | null> {
  try {
    const described = await connection.workflowService.describeWorkerDeployment({
      namespace: temporalNamespace(),
      deploymentName,
    });
    return described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? null;
  } catch {
    return null;
  }
}

async function waitForCurrent(deploymentName: string, buildId: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if ((await currentBuildId(deploymentName)) === buildId) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Version ${buildId} of deployment ${deploymentName} did not become current within a minute.`);
}

it("a running turn stays on the version that started it while new turns go to the new current version", async () => {
  const deploymentName = `soev-test-${randomBytes(4).toString("hex")}`;
  const taskQueue = uniqueTaskQueue("versioning");
  const calls: string[] = [];
  const gate = latch();
  let firstTool = true;
  const catalogOf = (version: string) =>
    new AgentCatalog(
      store.store,
      {
        assistant: townAgent(
          passModel(TOWN_SCRIPT, async () => void calls.push(version)),
          async () => {
            if (version === "v1" && firstTool) {
              firstTool = false;
              await gate.wait();
            }
          },
        ),
      },
      { version },
    );
  const stopping = new AbortController();
  const bundle = await sharedBundle();
  const worker = (version: string) =>
    runWorker({
      catalog: catalogOf(version),
      connection,
      namespace: temporalNamespace(),
      taskQueue,
      workflowBundle: bundle,
      deployment: { name: deploymentName },
      shutdownGraceTime: "1s",
      signal: stopping.signal,
    });
  const input = (payload: string) => ({ payload, model: TOWN_MODEL });
  const workers: Promise<void>[] = [];
  try {
    workers.push(worker("v1"));
    await waitForCurrent(deploymentName, "v1");
    const first = await startTurn(temporal.client, {
      agent: "assistant",
      input: input(TOWN_QUESTIONS[0]!),
      taskQueue,
    });
    await gate.reached;

    workers.push(worker("v2"));
    await waitForCurrent(deploymentName, "v2");
    const second = await startTurn(temporal.client, {
      agent: "assistant",
      input: input(TOWN_QUESTIONS[0]!),
      taskQueue,
    });
    await second.result();
    expect(calls).toEqual(["v1", "v2", "v2"]);

    gate.release();
    expect((await first.result()).sources).toEqual(["waste-collection#2"]);
    expect(calls).toEqual(["v1", "v2", "v2", "v1"]);

    for (const [turn, buildId] of [
      [first, "v1"],
      [second, "v2"],
    ] as const) {
      const info = (await turn.workflow.describe()).raw.workflowExecutionInfo?.versioningInfo;
      expect(info?.deploymentVersion).toMatchObject({ deploymentName, buildId });
      expect(String(info?.behavior)).toMatch(/PINNED|^1$/);
    }
  } finally {
    gate.release();
    stopping.abort();
    await Promise.allSettled(workers);
  }
  await Promise.all(workers);
}, 120_000);
