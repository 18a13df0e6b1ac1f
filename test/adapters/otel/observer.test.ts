import { z } from "zod";
import { context, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  CLOSED_SPAN_EVENT,
  InMemoryTraceStore,
  OtelObserver,
  RUN_SPAN,
  SPAN_ATTRIBUTES as A,
  GEN_AI_ATTRIBUTES,
} from "../../../src/adapters/index.js";
import { Compaction, Failure, Input, ModelOutput, ToolOutput, type Event } from "../../../src/domain/index.js";
import type { Observer } from "../../../src/ports/observer.js";
import { InvalidQueryError } from "../../../src/ports/index.js";
import { AgentCatalog, tool } from "../../../src/runtime/index.js";
import { ScriptedModel, type ScriptedOutput } from "../../../src/testing/index.js";
import { MODEL_NODE, ReActAgent, TOOLS_NODE } from "../../../src/toolkit/index.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

/** The span ids that were active while the lookup tool ran. */
const activeInTool: (string | undefined)[] = [];

const lookup = tool({
  name: "lookup",
  description: "Look up a word.",
  args: { word: z.string().describe("The word.") },
  run: async ({ word }) => {
    activeInTool.push(activeSpanId());
    if (word === "nothing") throw new InvalidQueryError("Nothing is not a word to look up.");
    if (word === "crash") throw new Error("The dictionary fell over.");
    return ToolOutput({ text: `"${word}" is a word.` });
  },
});

// The tests with a broken tracer make a span active whose every method raises.
function activeSpanId(): string | undefined {
  try {
    return trace.getActiveSpan()?.spanContext().spanId;
  } catch {
    return undefined;
  }
}

/** A turn that looks `word` up, then answers. */
function script(word: string): ScriptedOutput[] {
  return [
    { toolCalls: [{ name: "lookup", arguments: { word } }], usage: { promptTokens: 40, completionTokens: 7 } },
    { content: "It is a word.", usage: { promptTokens: 60, completionTokens: 5 } },
  ];
}

/** Run one local turn of an agent with the lookup tool, in a catalog with `observer`. */
async function runTurn(word: string, observer: Observer | undefined, threadId?: string) {
  const agent = new ReActAgent({
    model: new ScriptedModel(script(word)),
    prompt: "You look words up.",
    tools: [lookup],
  });
  const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { observer, version: "test" });
  const [thread] = await catalog.open("assistant", Input({ payload: `Look up ${word}.`, model: "scripted" }), {
    threadId,
  });
  return { thread, turn: thread.resume() };
}

const spanNamed = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((span) => span.name === name);
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

describe("OtelObserver on a local turn", () => {
  it("exports one run span with the model and tool calls as its children", async () => {
    activeInTool.length = 0;
    const { thread, turn } = await runTurn("bulky", new OtelObserver());
    const outputs = (await turn).byType(ModelOutput);

    const [run, ...moreRuns] = spanNamed(RUN_SPAN);
    expect(moreRuns).toHaveLength(0);
    expect(run!.attributes).toEqual({
      [A.threadId]: thread.id,
      [A.agent]: "assistant",
      [A.model]: "scripted",
      [A.payload]: "Look up bulky.",
    });
    expect(run!.status.code).toBe(SpanStatusCode.UNSET);

    const models = spanNamed("soev.model scripted");
    expect(models).toHaveLength(2);
    models.forEach((span, index) => {
      expect(parentOf(span)).toBe(idOf(run!));
      expect(span.spanContext().traceId).toBe(run!.spanContext().traceId);
      expect(span.attributes).toMatchObject({
        [A.threadId]: thread.id,
        [A.stream]: "main",
        [A.node]: MODEL_NODE,
        [A.callKind]: "model",
        [A.promptCharacters]: outputs[index]!.promptCharacters!,
        [A.requestHash]: outputs[index]!.requestHash!,
      });
      expect(span.attributes[A.callId]).toBeUndefined();
    });
    expect(models[0]!.attributes).toMatchObject({
      [A.promptTokens]: 40,
      [A.completionTokens]: 7,
      [GEN_AI_ATTRIBUTES.inputTokens]: 40,
      [GEN_AI_ATTRIBUTES.outputTokens]: 7,
      [GEN_AI_ATTRIBUTES.finishReasons]: ["tool_calls"],
      [A.finishReason]: "tool_calls",
      [A.toolCalls]: 1,
    });
    expect(models[1]!.attributes).toMatchObject({
      [A.promptTokens]: 60,
      [A.completionTokens]: 5,
      [GEN_AI_ATTRIBUTES.inputTokens]: 60,
      [GEN_AI_ATTRIBUTES.outputTokens]: 5,
      [A.finishReason]: "stop",
      [A.toolCalls]: 0,
    });

    const [tool] = spanNamed("soev.tool lookup");
    expect(parentOf(tool!)).toBe(idOf(run!));
    expect(tool!.attributes).toMatchObject({
      [A.stream]: "main",
      [A.node]: TOOLS_NODE,
      [A.callId]: outputs[0]!.toolCalls[0]!.id,
    });
    expect(tool!.status.code).toBe(SpanStatusCode.UNSET);
    // The run span is the active span while the run's work runs.
    expect(activeInTool).toEqual([idOf(run!)]);
  });

  it("gives the span of a tool call whose output has an error the error status", async () => {
    const { turn } = await runTurn("nothing", new OtelObserver());
    expect((await turn).byType(ToolOutput)[0]!.error).toMatch(/Nothing is not a word/);
    const [tool] = spanNamed("soev.tool lookup");
    expect(tool!.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: expect.stringMatching(/Nothing is not a word/) as string,
    });
    expect(spanNamed("soev.model scripted").map((span) => span.status.code)).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
    ]);
  });

  it("ends a failed run's span and its unanswered call with the error status", async () => {
    const { turn } = await runTurn("crash", new OtelObserver());
    await expect(turn).rejects.toThrow("The dictionary fell over.");
    const [run] = spanNamed(RUN_SPAN);
    expect(run!.status).toEqual({ code: SpanStatusCode.ERROR, message: "The dictionary fell over." });
    expect(run!.events.map((event) => event.name)).toContain("exception");
    const [tool] = spanNamed("soev.tool lookup");
    expect(tool!.status.code).toBe(SpanStatusCode.ERROR);
    expect(parentOf(tool!)).toBe(idOf(run!));
  });
});

describe("OtelObserver, told directly", () => {
  const opening = Input({ payload: { text: "x".repeat(500) }, model: null });

  it("ends a call's span with the error status when a Failure answers it, and adds other events to the run span", async () => {
    const observer = new OtelObserver();
    await observer.run("t1", null, opening, async () => {
      observer.call("t1", "main", "model", "model", "m", null);
      observer.call("t1", "main", "tools", "tool", "search", "call_9");
      observer.event("t1", null, {
        ...Failure({ error: "TransientError", message: "down", retryable: true, origin: "model" }),
        seq: 3,
      });
      observer.event("t1", null, { ...Failure({ error: "Error", message: "boom", callId: "call_9" }), seq: 4 });
      observer.event("t1", null, { ...Compaction({ summary: "s", keptFrom: 1 }), seq: 5 });
    });
    const [run] = spanNamed(RUN_SPAN);
    expect(run!.attributes[A.payload]).toHaveLength(200);
    expect(run!.attributes[A.model]).toBeUndefined();
    expect(run!.events.map((event) => [event.name, event.attributes])).toEqual([
      ["compaction", { [A.stream]: "main", [A.seq]: 5, [A.actor]: "model" }],
    ]);
    expect(spanNamed("soev.model m")[0]!.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "TransientError: down",
    });
    expect(spanNamed("soev.model m")[0]!.attributes[A.retryable]).toBe(true);
    expect(spanNamed("soev.tool search")[0]!.status).toEqual({ code: SpanStatusCode.ERROR, message: "Error: boom" });
  });

  it("ends every span still open at close(): calls outside a run, and a run that has not returned", async () => {
    const observer = new OtelObserver();
    observer.call("t2", "main", "model", "model", "m", null);
    let release!: () => void;
    const running = observer.run(
      "t3",
      "assistant",
      null,
      () => new Promise<string>((resolve) => (release = () => resolve("done"))),
    );
    await Promise.resolve();
    observer.call("t3", "main", "tools", "tool", "search", "call_1");
    expect(exporter.getFinishedSpans()).toHaveLength(0);

    observer.close();
    expect(
      exporter
        .getFinishedSpans()
        .map((span) => span.name)
        .sort(),
    ).toEqual(["soev.model m", RUN_SPAN, "soev.tool search"]);
    for (const span of exporter.getFinishedSpans())
      expect(span.events.map((event) => event.name)).toEqual([CLOSED_SPAN_EVENT]);
    expect(parentOf(spanNamed("soev.model m")[0]!)).toBeUndefined();
    expect(parentOf(spanNamed("soev.tool search")[0]!)).toBe(idOf(spanNamed(RUN_SPAN)[0]!));

    release();
    await expect(running).resolves.toBe("done");
    observer.event("t2", null, ModelOutput({ content: "late", origin: "model" }));
    expect(exporter.getFinishedSpans()).toHaveLength(3);
  });
});

describe("OtelObserver only watches", () => {
  const raising = (): never => {
    throw new Error("The tracer is broken.");
  };
  const brokenSpan = new Proxy({}, { get: () => raising }) as Span;
  const tracers: [string, Tracer][] = [
    ["a tracer that raises", { startSpan: raising, startActiveSpan: raising }],
    ["a tracer whose spans raise", { startSpan: () => brokenSpan, startActiveSpan: raising }],
  ];

  it.each(tracers)("records the same trace with %s as without an observer", async (_name, tracer) => {
    const plain = await (await runTurn("bulky", undefined, "same-thread")).turn;
    const watched = await (await runTurn("bulky", new OtelObserver({ tracer }), "same-thread")).turn;
    const facts = (events: readonly Event[]) => events.map((event) => ({ ...event, ts: null }));
    expect(facts(watched.events)).toEqual(facts(plain.events));
    expect(watched.events.map((event) => event.type)).toEqual(["input", "model-output", "tool-output", "model-output"]);

    const failed = await runTurn("crash", new OtelObserver({ tracer }));
    await expect(failed.turn).rejects.toThrow("The dictionary fell over.");
  });

  it("refuses a tracer that cannot start spans, at construction", () => {
    expect(() => new OtelObserver({ tracer: {} as Tracer })).toThrow(/needs an OpenTelemetry Tracer/);
  });
});
