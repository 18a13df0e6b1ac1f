// The observer on Temporal: each unit activity runs inside the observer's run context, and the calls and
// events of the turn reach it, as on the local runner; one that raises never fails or changes the turn.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Event, Input } from "../../src/domain/events.js";
import type { CallKind, Observer } from "../../src/ports/observer.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { readTrace } from "../../src/runtime/runner/work.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { QUESTIONS, assistant } from "../../examples/tutorials/02-citations/agent.js";
import { connectClient, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { openStore, sharedBundle, withWorker } from "./harness.js";

/** An observer that writes down what it is told, and whether a call came inside a run. */
class RecordingObserver implements Observer {
  readonly seen: string[] = [];
  private inRun = 0;

  async run<T>(_threadId: string, _agent: string | null, opening: Input | null, body: () => Promise<T>): Promise<T> {
    this.seen.push(`run opened by ${String(opening?.payload)}`);
    this.inRun++;
    try {
      return await body();
    } finally {
      this.inRun--;
    }
  }

  call(_threadId: string, _stream: string, node: string | null, kind: CallKind, name: string): void {
    this.seen.push(`${this.inRun > 0 ? "in run" : "outside a run"}: ${kind} ${name} at ${node}`);
  }

  event(_threadId: string, _agent: string | null, event: Event): void {
    this.seen.push(`event ${event.type}`);
  }
}

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundle();
});
afterAll(() => temporal.close());

it("runs each model and tool call inside the observer's run, and tells it each recorded event", async () => {
  const store = await openStore("sqlite");
  try {
    const observer = new RecordingObserver();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search", arguments: { query: "bulky waste" } }] },
      "Four times a year [2].",
    ]);
    const catalog = new AgentCatalog(store.store, { assistant: assistant(model) }, { version: "tutorial-2", observer });
    const taskQueue = uniqueTaskQueue("observer");
    const turn = await startTurn(temporal.client, {
      agent: "assistant",
      input: { payload: QUESTIONS[0]!, model: "scripted" },
      taskQueue,
    });
    await withWorker(catalog, taskQueue, () => turn.result());
    const calls = observer.seen.filter((line) => line.includes(" at "));
    expect(calls).toEqual([
      "in run: model scripted at model",
      "in run: tool search at tools",
      "in run: model scripted at model",
    ]);
    expect(observer.seen.filter((line) => line.startsWith("run opened by"))).toEqual(
      Array(3).fill(`run opened by ${QUESTIONS[0]}`),
    );
    expect(observer.seen.filter((line) => line.startsWith("event"))).toEqual([
      "event model-output",
      "event tool-output",
      "event model-output",
    ]);
  } finally {
    await store.close();
  }
});

it("an observer that raises in run, call and event cannot fail or change the turn", async () => {
  const store = await openStore("sqlite");
  try {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const raising: Observer = {
      async run(_threadId, _agent, _opening, body) {
        const result = await body();
        throw new Error(`run raised after ${String(result)}`);
      },
      call() {
        throw new Error("call raised");
      },
      event() {
        throw new Error("event raised");
      },
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: "search", arguments: { query: "bulky waste" } }] },
      "Four times a year [2].",
    ]);
    const catalog = new AgentCatalog(
      store.store,
      { assistant: assistant(model) },
      { version: "tutorial-2", observer: raising },
    );
    const taskQueue = uniqueTaskQueue("observer-raising");
    const turn = await startTurn(temporal.client, {
      agent: "assistant",
      input: { payload: QUESTIONS[0]!, model: "scripted" },
      taskQueue,
    });
    const result = await withWorker(catalog, taskQueue, () => turn.result());

    expect(result).toMatchObject({ answer: "Four times a year [2].", modelCalls: 2, toolCalls: 1 });
    const trace = await readTrace(store.store, catalog.types("assistant"), turn.threadId);
    expect(trace.events.map((event) => event.type)).toEqual(["input", "model-output", "tool-output", "model-output"]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("an observer raised and was ignored"));
  } finally {
    vi.restoreAllMocks();
    await store.close();
  }
});
