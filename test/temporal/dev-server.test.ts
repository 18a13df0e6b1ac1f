/**
 * The harness smoke test: the run's Temporal dev server answers, a worker bundles and runs a workflow on
 * a task queue of its own, and the soev-agents search attributes are registered and readable.
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { msToTs } from "@temporalio/common/lib/time.js";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SearchAttributeConflictError } from "../../src/temporal/errors.js";
import {
  AGENT_SEARCH_ATTRIBUTE,
  THREAD_SEARCH_ATTRIBUTE,
  registerSearchAttributes,
  turnSearchAttributes,
} from "../../src/temporal/search-attributes.js";
import {
  connectClient,
  connectWorker,
  temporalNamespace,
  uniqueTaskQueue,
  type TestClient,
} from "../support/temporal.js";

const KEYWORD = 2; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
const TEXT = 1; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT
const echoWorkflows = fileURLToPath(new URL("../fixtures/workflows/echo.ts", import.meta.url));

let temporal: TestClient;

beforeAll(async () => {
  temporal = await connectClient();
});

afterAll(async () => {
  await temporal.close();
});

describe("the run's Temporal dev server", () => {
  it("runs a workflow on a worker with its own task queue, and keeps the turn's search attributes", async () => {
    const connection = await connectWorker();
    const taskQueue = uniqueTaskQueue("smoke");
    try {
      const worker = await Worker.create({
        connection,
        namespace: temporalNamespace(),
        taskQueue,
        workflowsPath: echoWorkflows,
      });
      const threadId = randomUUID();
      const { result, attributes } = await worker.runUntil(async () => {
        const handle = await temporal.client.workflow.start("echo", {
          args: ["hello"],
          taskQueue,
          workflowId: `smoke-${threadId}`,
          typedSearchAttributes: turnSearchAttributes({ threadId, agent: "smoke-agent" }),
        });
        const result: unknown = await handle.result();
        return { result, attributes: (await handle.describe()).typedSearchAttributes };
      });
      expect(result).toBe("echo: hello");
      expect(attributes.get(THREAD_SEARCH_ATTRIBUTE)).toBe(threadId);
      expect(attributes.get(AGENT_SEARCH_ATTRIBUTE)).toBe("smoke-agent");
    } finally {
      await connection.close();
    }
  });

  it("has SoevThreadId and SoevAgent registered as Keyword, SoevThreadTokens as Int, and registering again adds nothing", async () => {
    const namespace = temporalNamespace();
    const listed = await temporal.connection.operatorService.listSearchAttributes({ namespace });
    expect(listed.customAttributes?.[THREAD_SEARCH_ATTRIBUTE.name]).toBe(KEYWORD);
    expect(listed.customAttributes?.[AGENT_SEARCH_ATTRIBUTE.name]).toBe(KEYWORD);
    await expect(registerSearchAttributes(temporal.connection, namespace)).resolves.toEqual([]);
  });
});

describe("registerSearchAttributes on a namespace without them", () => {
  it("adds both, then adds nothing on a second call", async () => {
    const namespace = await freshNamespace();
    await expect(registerSearchAttributes(temporal.connection, namespace)).resolves.toEqual([
      "SoevThreadId",
      "SoevAgent",
      "SoevThreadTokens",
    ]);
    await expect(registerSearchAttributes(temporal.connection, namespace)).resolves.toEqual([]);
    const listed = await temporal.connection.operatorService.listSearchAttributes({ namespace });
    expect(listed.customAttributes).toMatchObject({ SoevThreadId: KEYWORD, SoevAgent: KEYWORD, SoevThreadTokens: 3 });
  });

  it("refuses a namespace where SoevAgent has another type, and adds nothing", async () => {
    const namespace = await freshNamespace();
    await temporal.connection.operatorService.addSearchAttributes({ namespace, searchAttributes: { SoevAgent: TEXT } });
    const registering = registerSearchAttributes(temporal.connection, namespace);
    await expect(registering).rejects.toBeInstanceOf(SearchAttributeConflictError);
    await expect(registering).rejects.toThrow(/SoevAgent.*another type than KEYWORD/);
    const listed = await temporal.connection.operatorService.listSearchAttributes({ namespace });
    expect(listed.customAttributes?.SoevThreadId).toBeUndefined();
  });
});

/** Register a namespace of the test's own and wait until the server knows it (its cache refreshes). */
async function freshNamespace(): Promise<string> {
  const namespace = `soev-smoke-${randomUUID().slice(0, 8)}`;
  await temporal.connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs("1 day"),
  });
  for (;;) {
    try {
      await temporal.connection.operatorService.listSearchAttributes({ namespace });
      return namespace;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
