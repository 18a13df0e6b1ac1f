/** OtelObserver: the built-in Observer, exporting each run and each model or tool call as an OpenTelemetry span. */
import {
  context,
  createTraceState,
  diag,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import { ValueError } from "../../domain/errors.js";
import { Failure, ModelOutput, ToolOutput, type Event, type Input } from "../../domain/events.js";
import type { CallKind, Observer } from "../../ports/observer.js";
import { scrubSecrets } from "../../ports/secrets.js";
import {
  CLOSED_SPAN_EVENT,
  RUN_SPAN,
  SUPERSEDED_SPAN_EVENT,
  callAttributes,
  callSpanName,
  eventAttributes,
  failureAttributes,
  outputAttributes,
  runAttributes,
} from "./attributes.js";

/** The name of the tracer that OtelObserver takes from the global tracer provider by default. */
export const TRACER_NAME = "soev-agents";

/** The settings of an OtelObserver. */
export interface OtelObserverOptions {
  /** The tracer that starts the spans. Default: `trace.getTracer("soev-agents")` of the global provider. */
  tracer?: Tracer;
}

/** One run span still open, and the thread it runs. */
interface OpenRun {
  threadId: string;
  span: Span;
}

/** One call span still open, waiting for the event that answers it, and the run it belongs to. */
interface OpenCall {
  span: Span;
  run: OpenRun | null;
}

/**
 * The built-in Observer: a "soev.run" span for each local run of a thread, a "soev.model <model>" or
 * "soev.tool <tool>" span for each call, child of its run's span, ended by the event that answers the call
 * (its ModelOutput, its ToolOutput, or a Failure), and a span event on the run span for every other event.
 * It only watches: a tracer that raises is logged through OpenTelemetry's `diag` and the run goes on unchanged.
 * Flushing the spans is the tracer provider's business: shut the provider down after `close()`.
 */
export class OtelObserver implements Observer {
  /** The tracer that starts the spans. */
  readonly tracer: Tracer;
  private readonly runs: OpenRun[] = [];
  private readonly calls = new Map<string, OpenCall>();

  constructor(options: OtelObserverOptions = {}) {
    const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
    if (typeof tracer?.startSpan !== "function") {
      throw new ValueError(
        "OtelObserver needs an OpenTelemetry Tracer as `tracer` (one with startSpan), or none for the global one.",
      );
    }
    this.tracer = tracer;
  }

  /** Run one HTTP request's work with the caller's W3C trace context (its `traceparent` header) as the active context. */
  request<T>(headers: Readonly<Record<string, string>>, body: () => Promise<T>): Promise<T> {
    const parent = watch("reading the traceparent header", () => remoteContext(headers));
    return parent ? context.with(parent, body) : body();
  }

  /** Run `body` inside an active "soev.run" span with the thread, the agent and the opening input. */
  async run<T>(threadId: string, agent: string | null, opening: Input | null, body: () => Promise<T>): Promise<T> {
    const span = watch("starting a run span", () =>
      this.tracer.startSpan(RUN_SPAN, { attributes: runAttributes(threadId, agent, opening) }, context.active()),
    );
    if (!span) return body();
    const run: OpenRun = { threadId, span };
    this.runs.push(run);
    try {
      const result = await enter(span, body);
      watch("ending a run span", () => this.endRun(run, null));
      return result;
    } catch (error) {
      watch("ending a run span", () => this.endRun(run, { error }));
      throw error;
    }
  }

  /** Start the span of one model or tool call, as a child of the thread's run span when a run is open. */
  call(
    threadId: string,
    stream: string,
    node: string | null,
    kind: CallKind,
    name: string,
    callId: string | null,
  ): void {
    watch("starting a call span", () => {
      const run = this.runOf(threadId);
      const parent: Context = run ? trace.setSpan(context.active(), run.span) : context.active();
      const attributes = callAttributes(threadId, stream, node, kind, name, callId);
      const span = this.tracer.startSpan(callSpanName(kind, name), { attributes }, parent);
      const key = kind === "model" ? modelKey(threadId, stream, node) : toolKey(threadId, stream, callId ?? name);
      const superseded = this.take(key);
      if (superseded) watch("ending a superseded call span", () => endSpan(superseded.span, SUPERSEDED_SPAN_EVENT));
      this.calls.set(key, { span, run: run ?? null });
    });
  }

  /** End the call span that an event answers, or add the event to the thread's run span. */
  event(threadId: string, _agent: string | null, event: Event): void {
    watch("recording an event", () => {
      if (this.answer(threadId, event)) return;
      const span = this.runOf(threadId)?.span ?? trace.getActiveSpan();
      span?.addEvent(event.type, eventAttributes(event));
    });
  }

  /** End every span still open: calls no event answered, then runs that did not return. */
  close(): void {
    for (const { span } of this.calls.values()) watch("closing a call span", () => endSpan(span, CLOSED_SPAN_EVENT));
    this.calls.clear();
    for (const { span } of this.runs.splice(0).reverse())
      watch("closing a run span", () => endSpan(span, CLOSED_SPAN_EVENT));
  }

  // Whether the event answers an open call: then it ends that call's span, described or not.
  private answer(threadId: string, event: Event): boolean {
    const key = answeredKey(threadId, event);
    const call = key === null ? undefined : this.take(key);
    if (!call) return false;
    watch("describing a call's answer", () => describe(call.span, event));
    watch("ending a call span", () => call.span.end());
    return true;
  }

  private take(key: string): OpenCall | undefined {
    const call = this.calls.get(key);
    this.calls.delete(key);
    return call;
  }

  // The innermost open run of the thread: a thread runs once at a time, its lease sees to that.
  private runOf(threadId: string): OpenRun | undefined {
    return this.runs.findLast((run) => run.threadId === threadId);
  }

  // A run that ends ends its calls no event answered: a failed unit of work records its Failure unobserved.
  private endRun(run: OpenRun, failed: { error: unknown } | null): void {
    const index = this.runs.indexOf(run);
    if (index < 0) return; // close() ended it already
    this.runs.splice(index, 1);
    for (const [key, call] of this.calls) {
      if (call.run !== run) continue;
      this.calls.delete(key);
      watch("ending an unanswered call span", () => {
        if (failed)
          call.span.setStatus({
            code: SpanStatusCode.ERROR,
            message: "The run ended with an error before this call was answered.",
          });
        call.span.end();
      });
    }
    if (failed) {
      const { error } = failed;
      // The span leaves the process: the error's text goes through scrubSecrets first.
      const message = scrubSecrets(error instanceof Error ? error.message : String(error));
      run.span.recordException(
        error instanceof Error
          ? { name: error.name, message, stack: error.stack === undefined ? undefined : scrubSecrets(error.stack) }
          : message,
      );
      run.span.setStatus({ code: SpanStatusCode.ERROR, message });
    }
    run.span.end();
  }
}

/** The context of a W3C `traceparent` header (version 00), or null when there is none or it is malformed. */
export function remoteContext(headers: Readonly<Record<string, string>>): Context | null {
  const header = Object.entries(headers).find(([name]) => name.toLowerCase() === "traceparent")?.[1];
  const match = header ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header.trim()) : null;
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return null;
  const state = Object.entries(headers).find(([name]) => name.toLowerCase() === "tracestate")?.[1];
  const spanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & 1,
    isRemote: true,
    ...(state ? { traceState: createTraceState(state) } : {}),
  };
  return trace.setSpanContext(context.active(), spanContext);
}

/** Run `body` with `span` active; `body` runs exactly once even when the context manager raises. */
async function enter<T>(span: Span, body: () => Promise<T>): Promise<T> {
  let entered = false;
  const once = () => {
    entered = true;
    return body();
  };
  try {
    return await context.with(trace.setSpan(context.active(), span), once);
  } catch (error) {
    if (entered) throw error;
    diag.warn(
      `soev-agents OtelObserver: entering the run span's context failed, the run goes on without it: ${String(error)}`,
    );
    return body();
  }
}

// The key of the call that an event answers, or null for an event that answers no call.
function answeredKey(threadId: string, event: Event): string | null {
  if (ModelOutput.is(event)) return modelKey(threadId, event.stream, event.origin);
  if (Failure.is(event))
    return event.callId === null
      ? modelKey(threadId, event.stream, event.origin)
      : toolKey(threadId, event.stream, event.callId);
  if (ToolOutput.is(event) && event.callId !== null) return toolKey(threadId, event.stream, event.callId);
  return null;
}

// What the answer tells of its call: the model's facts, a failure, or a tool's error.
function describe(span: Span, event: Event): void {
  if (ModelOutput.is(event)) span.setAttributes(outputAttributes(event));
  if (Failure.is(event)) {
    span.setAttributes(failureAttributes(event));
    span.setStatus({ code: SpanStatusCode.ERROR, message: `${event.error}: ${event.message}` });
  }
  if (ToolOutput.is(event) && event.error !== null)
    span.setStatus({ code: SpanStatusCode.ERROR, message: event.error });
}

// A span that ends without its answer says why, in a span event.
function endSpan(span: Span, why: string): void {
  span.addEvent(why);
  span.end();
}

// An observer must never raise into the run: what fails is logged and skipped.
function watch<T>(what: string, action: () => T): T | undefined {
  try {
    return action();
  } catch (error) {
    diag.warn(`soev-agents OtelObserver: ${what} failed and was skipped: ${String(error)}`);
    return undefined;
  }
}

const modelKey = (threadId: string, stream: string, node: string | null): string =>
  JSON.stringify(["model", threadId, stream, node]);
const toolKey = (threadId: string, stream: string, callId: string): string =>
  JSON.stringify(["tool", threadId, stream, callId]);
