/**
 * What one pass (a model call and a tool call) costs the runtime does not grow with the thread: the rows
 * it reads from the store, the events it decodes and the events it looks at (each `is` of an event type)
 * are the same on a thread of 10 prior events as on one of 2,000. The context builder here shows the
 * running turn alone, so what it costs does not grow either: any growth is the runner's, the trace's or
 * the steps'. Counts, not timings: bench/stores.ts times the same pass.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { echo } from "../fixtures/echo-tool.js";
import { InMemoryTraceStore, SqliteTraceStore } from "../../src/adapters/index.js";
import {
  CORE_EVENT_TYPES,
  Event,
  EventTypes,
  Input,
  ModelOutput,
  THREAD_NUMBERING,
  ToolOutput,
  type EventType,
  type LogEntry,
  type StoredEvent,
  type Trace,
} from "../../src/domain/index.js";
import { AssistantMessage, ChatRequest, ToolResult, UserMessage, type Message } from "../../src/ports/index.js";
import type { ReadOptions, TraceStore } from "../../src/ports/store.js";
import {
  AgentCatalog,
  END,
  Graph,
  LlmStep,
  ToolStep,
  type Agent,
  type ContextBuilder,
} from "../../src/runtime/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

/** Passes per measured turn. */
const PASSES = 3;

/** A builder that shows the running turn alone: its own cost does not grow with the thread. */
const turnOnly: ContextBuilder = {
  build(trace: Trace) {
    const messages: Message[] = trace.turn.map((event) => {
      if (ModelOutput.is(event)) return AssistantMessage(event.content, { toolCalls: event.toolCalls });
      if (ToolOutput.is(event)) return ToolResult(event.callId ?? "", event.text ?? "");
      return UserMessage(JSON.stringify((event as Input).payload));
    });
    return {
      request: new ChatRequest(messages, [echo.def()]),
      model: "scripted",
      numbering: trace.thread.index(THREAD_NUMBERING),
      citations: null,
    };
  },
};

function agentOf(model: ScriptedModel): Agent {
  return {
    input: z.string(),
    elementTypes: [],
    eventTypes: [],
    build: () =>
      new Graph()
        .addNode("model", new LlmStep({ builder: turnOnly, model }))
        .addNode("tools", new ToolStep({ tools: [echo] }))
        .addEdge("model", (trace) => ((trace.lastOf(ModelOutput)?.toolCalls.length ?? 0) > 0 ? "tools" : END))
        .addEdge("tools", "model"),
  };
}

/** Completed turns of a question, a tool call and an answer: `count` events. */
function history(count: number): ReturnType<typeof Input | typeof ModelOutput | typeof ToolOutput>[] {
  const events = [];
  for (let turn = 0; events.length < count; turn++) {
    events.push(Input({ payload: `Question ${turn}?`, origin: "assistant" }));
    events.push(ModelOutput({ toolCalls: [{ id: `prior-${turn}`, name: "echo", arguments: { words: "hi" } }] }));
    events.push(ToolOutput({ callId: `prior-${turn}`, text: "hi" }));
    events.push(ModelOutput({ content: `Answer ${turn}.` }));
  }
  return events.slice(0, count);
}

/** What the runtime did: rows read from the store, events decoded, events looked at by type. */
interface Work {
  fetched: number;
  decoded: number;
  looked: number;
}

const counts: Work = { fetched: 0, decoded: 0, looked: 0 };
const restores: (() => void)[] = [];

/** Count every `is` of the event types, and every decode of the registry, until the test ends. */
function countLooks(): void {
  for (const type of [Event, ...CORE_EVENT_TYPES] as EventType<any, any>[]) {
    const is = type.is;
    (type as { is: unknown }).is = (value: unknown) => (counts.looked++, is(value));
    restores.push(() => ((type as { is: unknown }).is = is));
  }
  for (const method of ["decode", "fullDecode"] as const) {
    const decode = EventTypes.prototype[method];
    EventTypes.prototype[method] = function (this: EventTypes, stored: StoredEvent) {
      counts.decoded++;
      return decode.call(this, stored);
    };
    restores.push(() => (EventTypes.prototype[method] = decode));
  }
}

afterEach(() => {
  for (const restore of restores.splice(0)) restore();
});

function counted<T extends TraceStore>(store: T): T {
  const read = store.read.bind(store);
  store.read = async function* (threadId: string, options?: ReadOptions): AsyncGenerator<LogEntry<StoredEvent>> {
    for await (const entry of read(threadId, options)) {
      counts.fetched++;
      yield entry;
    }
  };
  return store;
}

/** The work of a turn of PASSES passes on a thread of `prior` events, after a warm-up turn. */
async function turnWork(store: TraceStore, prior: number): Promise<Work> {
  const turn = [
    ...Array.from({ length: PASSES }, () => ({ toolCalls: [{ name: "echo", arguments: { words: "hi" } }] })),
    "Done.",
  ];
  const model = new ScriptedModel([...turn, ...turn, ...turn]);
  const catalog = new AgentCatalog(counted(store), { assistant: agentOf(model) }, { version: "test" });
  const [thread] = await catalog.open("assistant", Input({ payload: "Start", model: "scripted" }));
  const types = catalog.types("assistant");
  const events = history(prior);
  for (let from = 0; from < events.length; from += 500)
    await store.append(
      thread.id,
      events.slice(from, from + 500).map((event) => types.check(event)),
    );
  await thread.send(Input({ payload: "Warm up", model: "scripted" }));
  Object.assign(counts, { fetched: 0, decoded: 0, looked: 0 });
  const trace = await thread.send(Input({ payload: "Measured", model: "scripted" }));
  expect(trace.turn.filter((event) => ToolOutput.is(event))).toHaveLength(PASSES);
  expect(trace.length).toBe(1 + prior + 2 * (2 + 2 * PASSES));
  return { ...counts };
}

const stores = {
  memory: () => new InMemoryTraceStore(),
  sqlite: () => new SqliteTraceStore(":memory:"),
};

describe.each(Object.entries(stores))("one pass on the %s store", (_name, make) => {
  it("reads, decodes and looks at as many events on a thread of 2,000 prior events as on one of 10", async () => {
    countLooks();
    const small = await turnWork(make(), 10);
    const large = await turnWork(make(), 2_000);

    expect(large).toEqual(small);
    // What a turn reads is what it appended and the anchors: nothing of the thread before it.
    expect(small.fetched).toBeLessThan(4 * (2 + 2 * PASSES));
  });
});
