// The W3C traceparent of an HTTP request parents the turn it starts: the app enters the request's trace
// context (Observer.request), the OpenTelemetry plugin on the app's Temporal client carries it into the
// workflow's headers, and the worker's spans of the turn, down to the model call's, share its trace id.
import { randomBytes } from "node:crypto";
import { context, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Client, Connection } from "@temporalio/client";
import { OpenTelemetryPlugin } from "@temporalio/interceptors-opentelemetry";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OtelObserver } from "../../src/adapters/otel/observer.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { bundleTurnWorkflows } from "../../worker.js";
import { passModel, TOWN_MODEL, TOWN_QUESTIONS, TOWN_SCRIPT, townAgent } from "../fixtures/temporal/town.js";
import { temporalAddress, temporalNamespace } from "../support/temporal.js";
import { readEvents } from "./sse.js";
import { startAppStack, type AppStack } from "./stack.js";

const KEY = { authorization: "Bearer alice-key" };
const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);
const provider = new BasicTracerProvider({ spanProcessors: [processor] });
const tracer = provider.getTracer("soev-app-tracing-test");
const contextManager = new AsyncLocalStorageContextManager();

let stack: AppStack;
let connection: Connection;

beforeAll(async () => {
  // What an app's OpenTelemetry set-up (NodeSDK) registers: the context follows async calls, and the W3C
  // propagator carries it through the headers of the workflow and its activities.
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const plugin = new OpenTelemetryPlugin({
    tracer,
    spanProcessor: processor as never,
    resource: resourceFromAttributes({ "service.name": "soev-app-test" }) as never,
  });
  connection = await Connection.connect({ address: temporalAddress() });
  stack = await startAppStack({
    catalog: (store) =>
      new AgentCatalog(
        store,
        { assistant: townAgent(passModel(TOWN_SCRIPT)) },
        { version: "app-tracing", observer: new OtelObserver({ tracer }) },
      ),
    // The app's client carries the plugin: a turn it starts continues the request's trace.
    app: {
      client: new Client({ connection, namespace: temporalNamespace(), plugins: [plugin] }),
      defaultModel: TOWN_MODEL,
    },
    worker: { workflowBundle: await bundleTurnWorkflows({ plugins: [plugin] }), plugins: [plugin] },
  });
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await connection?.close();
  await provider.shutdown();
  context.disable();
  propagation.disable();
});

it("the traceparent of POST /threads is the trace of the worker's model and tool spans of that turn", async () => {
  const traceId = randomBytes(16).toString("hex");
  const parentSpanId = randomBytes(8).toString("hex");
  const opened = await fetch(`${stack.served.url}/threads`, {
    method: "POST",
    headers: { ...KEY, "content-type": "application/json", traceparent: `00-${traceId}-${parentSpanId}-01` },
    body: JSON.stringify({ agent: "assistant", input: TOWN_QUESTIONS[0] }),
  });
  expect(opened.status, await opened.clone().text()).toBe(202);
  const { events } = (await opened.json()) as { events: string };
  const messages = await readEvents(events, KEY);
  expect(messages.at(-1)!.data.status).toBe("completed");
  await processor.forceFlush();
  const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
  const names = spans.map((span) => span.name);
  expect(names.filter((name) => name.startsWith("soev.model"))).toHaveLength(2);
  expect(names.some((name) => name.startsWith("soev.tool"))).toBe(true);
  // The workflow's start is the child of the caller's span: the request's span id is its parent.
  const started = spans.find((span) => span.name === "StartWorkflow:soevTurn")!;
  expect(started.parentSpanContext?.spanId).toBe(parentSpanId);
  // A request without a traceparent starts a trace of its own.
  const other = await fetch(`${stack.served.url}/threads`, {
    method: "POST",
    headers: { ...KEY, "content-type": "application/json" },
    body: JSON.stringify({ agent: "assistant", input: TOWN_QUESTIONS[0] }),
  });
  expect(other.status).toBe(202);
  await readEvents(((await other.json()) as { events: string }).events, KEY);
  await processor.forceFlush();
  const starts = exporter.getFinishedSpans().filter((span) => span.name === "StartWorkflow:soevTurn");
  expect(starts.map((span) => span.spanContext().traceId === traceId).sort()).toEqual([false, true]);
}, 120_000);
