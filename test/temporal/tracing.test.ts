// One trace per turn: with @temporalio/interceptors-opentelemetry on the client and the worker, the span
// around startTurn, the workflow, its activities and the observer's model and tool spans share one trace,
// each span the child of the one before it.
import { context, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { Client } from "@temporalio/client";
import { OpenTelemetryPlugin } from "@temporalio/interceptors-opentelemetry";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OtelObserver } from "../../src/adapters/index.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { bundleTurnWorkflows, createTurnWorker } from "../../worker.js";
import { passModel, TOWN_MODEL, TOWN_QUESTIONS, TOWN_SCRIPT, townAgent } from "../fixtures/temporal/town.js";
import {
  connectClient,
  connectWorker,
  temporalNamespace,
  uniqueTaskQueue,
  type TestClient,
} from "../support/temporal.js";
import { openStore, type TestStore } from "./harness.js";

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);
const provider = new BasicTracerProvider({ spanProcessors: [processor] });
const tracer = provider.getTracer("soev-tracing-test");
const contextManager = new AsyncLocalStorageContextManager();

let temporal: TestClient;
let store: TestStore;
beforeAll(async () => {
  // What an app's OpenTelemetry set-up (NodeSDK) registers: the context follows async calls, and the
  // W3C propagator carries it through the headers of the workflow and its activities.
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  temporal = await connectClient();
  store = await openStore("sqlite");
});
afterAll(async () => {
  await store.close();
  await temporal.close();
  await provider.shutdown();
  context.disable();
  propagation.disable();
});

/** The parent span id, as OpenTelemetry 2 (parentSpanContext) and the workflow exporter (parentSpanId) give it. */
function parentOf(span: ReadableSpan): string | undefined {
  const legacy = span as ReadableSpan & { parentSpanId?: string };
  return span.parentSpanContext?.spanId ?? legacy.parentSpanId;
}

/** The names of the span and its ancestors, the span first. */
function chain(spans: ReadableSpan[], span: ReadableSpan): string[] {
  const byId = new Map(spans.map((item) => [item.spanContext().spanId, item]));
  const names: string[] = [];
  for (let current: ReadableSpan | undefined = span; current; current = byId.get(parentOf(current) ?? "")) {
    names.push(current.name);
  }
  return names;
}

it("startTurn, the workflow, its activities and the observer's model and tool spans form one trace", async () => {
  // The workflow spans are exported by the plugin's sink; the 1.x resource type of the plugin is only a carrier here.
  const plugin = new OpenTelemetryPlugin({
    tracer,
    spanProcessor: processor as never,
    resource: resourceFromAttributes({ "service.name": "soev-test" }) as never,
  });
  const catalog = new AgentCatalog(
    store.store,
    { assistant: townAgent(passModel(TOWN_SCRIPT)) },
    { version: "tracing", observer: new OtelObserver({ tracer }) },
  );
  const taskQueue = uniqueTaskQueue("tracing");
  const connection = await connectWorker();
  try {
    const worker = await createTurnWorker({
      catalog,
      connection,
      namespace: temporalNamespace(),
      taskQueue,
      workflowBundle: await bundleTurnWorkflows({ plugins: [plugin] }),
      plugins: [plugin],
    });
    const client = new Client({ connection: temporal.connection, namespace: temporalNamespace(), plugins: [plugin] });
    const traceId = await worker.runUntil(() =>
      tracer.startActiveSpan("request", async (request) => {
        const turn = await startTurn(client, {
          agent: "assistant",
          input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
          taskQueue,
        });
        await turn.result();
        request.end();
        return request.spanContext().traceId;
      }),
    );
    await processor.forceFlush();
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    const modelSpans = spans.filter((span) => span.name.startsWith("soev.model"));
    const toolSpan = spans.find((span) => span.name.startsWith("soev.tool"));
    expect(modelSpans).toHaveLength(2);
    expect(toolSpan).toBeDefined();
    expect(chain(spans, modelSpans[0]!)).toEqual([
      modelSpans[0]!.name,
      "soev.run",
      "RunActivity:callModel",
      "StartActivity:callModel",
      "RunWorkflow:soevTurn",
      "StartWorkflow:soevTurn",
      "request",
    ]);
    expect(chain(spans, toolSpan!).slice(1)).toEqual([
      "soev.run",
      "RunActivity:callTool",
      "StartActivity:callTool",
      "RunWorkflow:soevTurn",
      "StartWorkflow:soevTurn",
      "request",
    ]);
  } finally {
    await connection.close();
  }
}, 120_000);
