// The security review's findings on Temporal: what reaches history with a codec and in idsOnly mode,
// secrets in error text, a turn under another thread's workflow id, the authorization hook, and the
// argument's limits (findings 3, 4, 5 and 7).
import { randomBytes } from "node:crypto";
import { Client, WorkflowFailedError } from "@temporalio/client";
import { ApplicationFailure, type DataConverter } from "@temporalio/common";
import { Worker } from "@temporalio/worker";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { QUESTIONS, assistant } from "../../examples/tutorials/02-citations/agent.js";
import { createActivities } from "../../activities/index.js";
import { OpenAIChatModel } from "../../src/adapters/openai/chat-model.js";
import { Failure } from "../../src/domain/events.js";
import type { ChatModel } from "../../src/ports/model.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import type { Authorize } from "../../src/temporal/authorize.js";
import { AesGcmCodec } from "../../src/temporal/codec.js";
import { encryptedDataConverter, failureConverterPath } from "../../src/temporal/data-converters.js";
import { ValueError } from "../../src/domain/errors.js";
import { ToolOutput } from "../../src/domain/events.js";
import { tool } from "../../src/runtime/index.js";
import { ReActAgent, ReActConfig } from "../../src/toolkit/index.js";
import { bundleTurnWorkflows, createTurnWorker } from "../../worker.js";
import { z } from "zod";
import { TURN_WORKFLOW, workflowIdOf, type TurnArgument, type TurnResult } from "../../src/temporal/contract.js";
import { startTurn, type StartTurnOptions } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { CompatibleServer } from "../fixtures/openai-compatible-server.js";
import { activityOf, connectWorker, temporalNamespace, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { historyText, sharedBundle, type TestStore, useClientAndStore } from "./harness.js";

// A word of the user's that must not reach history: in the input, the tool's arguments and the answer.
const SECRET = "pelican4242";
const QUESTION = `Where does the ${SECRET} nest? **Tell me** [now](http://x)`;
const scripted = () =>
  new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: `${SECRET} nest` } }] },
    `The ${SECRET} nests by the river.`,
  ]);

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));

const codecKey = randomBytes(32);
const codec = new AesGcmCodec({ keyId: "test-1", keys: { "test-1": codecKey } });
const encrypted: DataConverter = { payloadCodecs: [codec] };

/** Run `body` while a worker of `model`'s assistant polls a queue of its own, with the options given. */
async function withTownWorker<T>(
  model: ChatModel,
  options: { dataConverter?: DataConverter; authorize?: Authorize },
  body: (taskQueue: string, catalog: AgentCatalog) => Promise<T>,
): Promise<T> {
  const catalog = new AgentCatalog(store.store, { assistant: assistant(model) }, { version: "tutorial-2" });
  const taskQueue = uniqueTaskQueue("security");
  const connection = await connectWorker();
  try {
    const worker = await Worker.create({
      connection,
      namespace: temporalNamespace(),
      taskQueue,
      workflowBundle: await sharedBundle(),
      activities: createActivities({ catalog, authorize: options.authorize }),
      ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    });
    return await worker.runUntil(() => body(taskQueue, catalog));
  } finally {
    await connection.close();
  }
}

function turnOptions(taskQueue: string, options: Partial<StartTurnOptions> = {}): StartTurnOptions {
  return {
    agent: "assistant",
    threadId: `security-${randomBytes(4).toString("hex")}`,
    input: { payload: QUESTION, model: "scripted" },
    taskQueue,
    ...options,
  };
}

describe("what reaches Temporal history", () => {
  it("holds the conversation in clear without a codec (the control of the next test)", async () => {
    await withTownWorker(scripted(), {}, async (taskQueue) => {
      const turn = await startTurn(temporal.client, turnOptions(taskQueue));
      expect((await turn.result()).answer).toContain(SECRET);
      expect(await historyText(temporal.client, turn.workflowId)).toContain(SECRET);
    });
  });

  it("with the AES-GCM codec on client and worker: no payload, summary or detail holds the user's text", async () => {
    await withTownWorker(scripted(), { dataConverter: encrypted }, async (taskQueue) => {
      const client = new Client({
        connection: temporal.connection,
        namespace: temporalNamespace(),
        dataConverter: encrypted,
      });
      const turn = await startTurn(client, turnOptions(taskQueue));
      const result = await turn.result();
      // The client decodes: the result reads as usual.
      expect(result.answer).toBe(`The ${SECRET} nests by the river.`);
      const text = await historyText(temporal.client, turn.workflowId);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("river");
      expect(text).toContain("binary/encrypted");
    });
  });

  it("in idsOnly mode: summaries, details and the result name ids, models and tools, never the user's text", async () => {
    await withTownWorker(scripted(), {}, async (taskQueue) => {
      const turn = await startTurn(temporal.client, turnOptions(taskQueue, { settings: { idsOnly: true } }));
      const result = await turn.result();
      expect(result).toMatchObject({ threadId: turn.threadId, answer: "", truncated: true, citations: [] });
      expect(result.modelCalls).toBe(2);
      const description = await turn.workflow.describe();
      expect(await description.staticSummary()).toBe("assistant");
      expect(await description.staticDetails()).not.toContain(SECRET);
      const history = await temporal.client.workflow.getHandle(turn.workflowId).fetchHistory();
      const summaries = (history.events ?? []).flatMap((event) =>
        event.userMetadata?.summary?.data ? [Buffer.from(event.userMetadata.summary.data).toString("utf8")] : [],
      );
      expect(summaries).toContain('"tool search"');
      for (const summary of summaries) expect(summary).not.toContain(SECRET);
    });
  });

  it("in idsOnly forced by the worker: no user text in activity summaries or the result, whatever the starter asked", async () => {
    const catalog = new AgentCatalog(store.store, { assistant: assistant(scripted()) }, { version: "ids-only" });
    const taskQueue = uniqueTaskQueue("ids-only");
    const connection = await connectWorker();
    try {
      const options = { catalog, connection, namespace: temporalNamespace(), taskQueue, idsOnly: true };
      await expect(createTurnWorker({ ...options, workflowBundle: await sharedBundle() })).rejects.toThrow(
        /forces idsOnly, but its workflowBundle was made without it/,
      );
      const worker = await createTurnWorker({
        ...options,
        workflowBundle: await bundleTurnWorkflows({ idsOnly: true }),
      });
      await worker.runUntil(async () => {
        const turn = await startTurn(temporal.client, turnOptions(taskQueue, { settings: { idsOnly: false } }));
        const result = await turn.result();
        expect(result).toMatchObject({ answer: "", truncated: true, citations: [] });
        const history = await temporal.client.workflow.getHandle(turn.workflowId).fetchHistory();
        const summaries = (history.events ?? []).flatMap((event) =>
          event.activityTaskScheduledEventAttributes && event.userMetadata?.summary?.data
            ? [Buffer.from(event.userMetadata.summary.data).toString("utf8")]
            : [],
        );
        expect(summaries).toContain('"tool search"');
        expect(summaries.join("\n")).not.toContain(SECRET);
        const completed = (history.events ?? []).flatMap((event) =>
          event.activityTaskCompletedEventAttributes?.result?.payloads
            ? event.activityTaskCompletedEventAttributes.result.payloads.map((payload) =>
                Buffer.from(payload.data ?? new Uint8Array()).toString("utf8"),
              )
            : [],
        );
        expect(completed.join("\n")).not.toContain(SECRET);
      });
    } finally {
      await connection.close();
    }
  });

  it("escapes the user's markdown in the turn's details", async () => {
    await withTownWorker(scripted(), {}, async (taskQueue) => {
      const turn = await startTurn(temporal.client, turnOptions(taskQueue));
      await turn.result();
      const description = await turn.workflow.describe();
      const details = await description.staticDetails();
      expect(details).toContain("\\*\\*Tell me\\*\\* \\[now\\]\\(http://x\\)");
      expect(await description.staticSummary()).toBe(
        `assistant: Where does the ${SECRET} nest? \\*\\*Tell me\\*\\* \\[now\\]\\(http://x\\)`,
      );
      expect(details).toContain("**Agent:** assistant");
    });
  });
});

describe("failure messages with the codec", () => {
  // A tool whose error quotes the user's text: the turn fails with it, and history keeps the failure.
  const lookup = tool({
    name: "lookup",
    description: "Look a record up.",
    args: { query: z.string() },
    run: async ({ query }) => {
      if (query.includes(SECRET)) throw new ValueError(`No record matches "${query}": ask about another bird.`);
      return ToolOutput({ text: "found" });
    },
  });
  const failing = () =>
    new ReActAgent(
      new ReActConfig({
        model: new ScriptedModel([{ toolCalls: [{ name: "lookup", arguments: { query: `${SECRET} nest` } }] }]),
        prompt: "You look things up.",
        tools: [lookup],
      }),
    );

  async function failedTurn(worker: DataConverter, client: DataConverter, bundle: { code: string }) {
    const catalog = new AgentCatalog(store.store, { assistant: failing() }, { version: "failures" });
    const taskQueue = uniqueTaskQueue("failures");
    const connection = await connectWorker();
    try {
      const running = await Worker.create({
        connection,
        namespace: temporalNamespace(),
        taskQueue,
        workflowBundle: bundle,
        activities: createActivities({ catalog }),
        dataConverter: worker,
      });
      return await running.runUntil(async () => {
        const decoding = new Client({
          connection: temporal.connection,
          namespace: temporalNamespace(),
          dataConverter: client,
        });
        const turn = await startTurn(decoding, turnOptions(taskQueue));
        const failed = await turn.result().catch((error: unknown) => error);
        expect(failed).toBeInstanceOf(WorkflowFailedError);
        return { failed: failed as WorkflowFailedError, history: await historyText(temporal.client, turn.workflowId) };
      });
    } finally {
      await connection.close();
    }
  }

  it("stay in clear with the codec alone (the control of the next test)", async () => {
    const { history } = await failedTurn(encrypted, encrypted, await sharedBundle());
    expect(history).toContain("No record matches");
    expect(history).toContain(SECRET);
  });

  it("are encrypted with the failure converter, loaded by path in the worker and its bundle, and read by the client", async () => {
    const strict = new AesGcmCodec({ keyId: "test-1", keys: { "test-1": codecKey }, strict: true });
    const bundle = await bundleTurnWorkflows({ failureConverterPath: failureConverterPath() });
    const { failed, history } = await failedTurn(
      encryptedDataConverter(strict),
      encryptedDataConverter(strict),
      bundle,
    );
    expect(history).not.toContain(SECRET);
    expect(history).not.toContain("No record matches");
    expect(history).toContain("binary/encrypted");
    // The client holds the key: it reads the message as the tool wrote it.
    const messages: string[] = [];
    for (let error: unknown = failed; error instanceof Error; error = error.cause) messages.push(error.message);
    expect(messages.join("\n")).toContain(`No record matches "${SECRET} nest"`);
  });
});

describe("secrets in error text", () => {
  const server = CompatibleServer.forFile();

  it("a provider's 401 carrying a key leaves no key in history or in the trace's Failure", async () => {
    const key = "sk-proj-abcd1234efgh5678";
    server.reply({
      status: 401,
      json: {
        error: { message: `Incorrect API key provided: ${key}. Find your key at https://platform.openai.com.` },
      },
    });
    const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0 });
    const model = new OpenAIChatModel(client, { model: "town-model" });
    await withTownWorker(model, {}, async (taskQueue, catalog) => {
      const turn = await startTurn(
        temporal.client,
        turnOptions(taskQueue, { input: { payload: QUESTIONS[0]!, model: "town-model" } }),
      );
      const failed = await turn.result().catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(WorkflowFailedError);
      const cause = (failed as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.message).toContain("Incorrect API key provided: [redacted]");
      const text = await historyText(temporal.client, turn.workflowId);
      expect(text).toContain("[redacted]");
      expect(text).not.toContain("abcd1234");
      const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
      const failure = trace.byType(Failure).at(-1)!;
      expect(failure.message).toContain("[redacted]");
      expect(failure.message).not.toContain("abcd1234");
    });
  });
});

describe("who may run a turn of a thread", () => {
  async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
    const failed = await promise.catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    return (failed as WorkflowFailedError).cause as ApplicationFailure;
  }

  it("a turn under a workflow id that is not its thread's fails non-retryably, before anything is read or written", async () => {
    await withTownWorker(scripted(), {}, async (taskQueue, catalog) => {
      const victim = `victim-${randomBytes(4).toString("hex")}`;
      const argument: TurnArgument = {
        agent: "assistant",
        threadId: victim,
        input: { payload: "hi", model: "scripted" },
      };
      const workflowId = `sec-attacker-${randomBytes(4).toString("hex")}`;
      const handle = await temporal.client.workflow.start(TURN_WORKFLOW, { args: [argument], taskQueue, workflowId });
      const cause = await failureOf(handle.result());
      expect(cause.type).toBe("WorkflowIdError");
      expect(cause.nonRetryable).toBe(true);
      expect(cause.message).toContain(`not "${workflowIdOf(victim)}"`);
      const history = await handle.fetchHistory();
      expect((history.events ?? []).some((event) => activityOf(event) !== null)).toBe(false);
      expect((await readTrace(store.store, catalog.types("assistant"), victim)).length).toBe(0);
    });
  });

  it("the worker asks authorize({ principal, agent, threadId }) before a turn opens, and a refused turn writes nothing", async () => {
    const asked: unknown[] = [];
    const authorize: Authorize = (request) => {
      asked.push(request);
      return request.principal === "ann";
    };
    await withTownWorker(scripted(), { authorize }, async (taskQueue, catalog) => {
      const refused = await startTurn(temporal.client, turnOptions(taskQueue, { principal: "mallory" }));
      const cause = await failureOf(refused.result());
      expect(cause.type).toBe("TurnDeniedError");
      expect(cause.message).toContain('Principal "mallory" may not run a turn of agent "assistant"');
      expect((await readTrace(store.store, catalog.types("assistant"), refused.threadId)).length).toBe(0);
      const allowed = await startTurn(temporal.client, turnOptions(taskQueue, { principal: "ann" }));
      expect((await allowed.result()).modelCalls).toBe(2);
      expect(asked).toEqual([
        { principal: "mallory", agent: "assistant", threadId: refused.threadId },
        { principal: "ann", agent: "assistant", threadId: allowed.threadId },
      ]);
    });
  });

  it("refuses an argument over the byte or depth limit before any activity, from a client that skips startTurn's check", async () => {
    await withTownWorker(scripted(), {}, async (taskQueue) => {
      let deep: unknown = "x";
      for (let level = 0; level < 40; level += 1) deep = [deep];
      for (const [payload, type, message] of [
        [
          "x".repeat(300 * 1024),
          "InputTooLargeError",
          /The input is 307202 bytes as JSON, over the limit of 262144 bytes/,
        ],
        [deep, "ValueError", /nested deeper than 32 levels/],
      ] as const) {
        const threadId = `security-${randomBytes(4).toString("hex")}`;
        const argument: TurnArgument = {
          agent: "assistant",
          threadId,
          input: { payload: payload as never, model: "scripted" },
        };
        const workflow = await temporal.client.workflow.start(TURN_WORKFLOW, {
          args: [argument],
          taskQueue,
          workflowId: workflowIdOf(threadId),
        });
        const cause = await failureOf(workflow.result() as Promise<TurnResult>);
        expect(cause.type).toBe(type);
        expect(cause.nonRetryable).toBe(true);
        expect(cause.message).toMatch(message);
        const history = await workflow.fetchHistory();
        expect((history.events ?? []).some((event) => activityOf(event) !== null)).toBe(false);
      }
    });
  });
});
