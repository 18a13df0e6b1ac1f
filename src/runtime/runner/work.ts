/**
 * The runner's reads and writes of the store. One unit of work, exactly once in the trace: read, skip what
 * is recorded, run, and append with the stream's expected length. When another writer moved the stream,
 * read again and decide again.
 */
import { type Event, Failure, type Input } from "../../domain/events.js";
import { encode, type EventTypes } from "../../domain/registry.js";
import { Trace } from "../../domain/trace.js";
import { StreamMovedError } from "../../ports/errors.js";
import { scrubSecrets } from "../../ports/secrets.js";
import type { Observer } from "../../ports/observer.js";
import type { Lease, TraceStore } from "../../ports/store.js";
import type { Step, StepContext, Work } from "../contracts.js";

/** Read a thread's whole log and decode it. An unknown thread gives an empty trace. */
export async function readTrace(store: TraceStore, types: EventTypes, threadId: string): Promise<Trace> {
  const entries = [];
  for await (const entry of store.read(threadId))
    entries.push({ position: entry.position, event: types.decode(entry.event) });
  return new Trace(entries);
}

/** Where a unit of work reads and records: the store, the registry, the lease and the code version. */
export interface Recorder {
  store: TraceStore;
  types: EventTypes;
  threadId: string;
  lease?: Lease | null;
  version?: string | null;
}

/** What running one unit of work did: the events it recorded, or none when the trace had them already. */
export interface WorkResult {
  recorded: Event[];
  skipped: boolean;
}

/**
 * Run one unit of a step's work against the store, exactly once in the trace. A caller that has just read
 * the thread passes that trace and saves a read: a view that is out of date is caught by the append's
 * `expected` and decided again.
 */
export async function runWork(
  recorder: Recorder,
  step: Step,
  context: Omit<StepContext, "trace"> & { trace?: Trace },
  work: Work,
): Promise<WorkResult> {
  let trace = context.trace ?? (await readTrace(recorder.store, recorder.types, recorder.threadId));
  if (step.done({ ...context, trace }, work.key)) return { recorded: [], skipped: true };
  const kind = work.kind;
  if (kind === "model" || kind === "tool")
    safely(() =>
      context.observer?.call?.(
        recorder.threadId,
        context.stream,
        context.node,
        kind,
        work.name,
        kind === "tool" ? work.key : null,
      ),
    );
  const events = await step.run({ ...context, trace }, work.key);
  if (events.length === 0) return { recorded: [], skipped: true };
  for (;;) {
    try {
      const recorded = await append(recorder, events, trace, context.stream);
      for (const event of recorded) safely(() => context.observer?.event?.(recorder.threadId, context.agent, event));
      return { recorded, skipped: false };
    } catch (error) {
      if (!StreamMovedError.isInstance(error)) throw error;
      trace = await readTrace(recorder.store, recorder.types, recorder.threadId);
      if (step.done({ ...context, trace }, work.key)) return { recorded: [], skipped: true };
    }
  }
}

/** Append events to one stream, refused if the stream grew since `trace` was read. */
export async function append(
  recorder: Recorder,
  events: readonly Event[],
  trace: Trace,
  stream: string,
): Promise<Event[]> {
  const expected = { [stream]: trace.stream(stream).length };
  const stored = await recorder.store.append(
    recorder.threadId,
    events.map((event) => encode({ ...event, version: event.version ?? recorder.version ?? null })),
    { expected, lease: recorder.lease ?? null },
  );
  return stored.map((event) => recorder.types.decode(event));
}

/** Record that a step failed: the error's class name and message. A fact: appended unchecked by `expected`. */
export async function recordFailure(
  recorder: Recorder,
  error: unknown,
  where: { stream: string; node: string | null; callId?: string | null },
): Promise<Event> {
  const failure = Failure({
    error: error instanceof Error ? error.name : "Error",
    message: scrubSecrets(error instanceof Error ? error.message : String(error)),
    retryable: (error as { retryable?: unknown } | null)?.retryable === true,
    callId: where.callId ?? null,
    stream: where.stream,
    origin: where.node,
    version: recorder.version ?? null,
  });
  const [stored] = await recorder.store.append(recorder.threadId, [encode(failure)], { lease: recorder.lease ?? null });
  return recorder.types.decode(stored!);
}

/** Call an observer method; an observer that raises is logged and never changes the run. */
export function safely(watch: () => void): void {
  try {
    watch();
  } catch (error) {
    ignored(error);
  }
}

/**
 * Run `body` inside the observer's run context (Observer.run). An observer that raises, before, around or
 * after the body, or that never calls it, is logged and never changes the run: the body runs exactly once,
 * and its result or its error is the run's, whatever the observer returns.
 */
export async function observedRun<T>(
  observer: Observer | undefined,
  run: { threadId: string; agent: string | null; opening: Input | null },
  body: () => Promise<T>,
): Promise<T> {
  if (!observer?.run) return body();
  let outcome: Promise<T> | undefined;
  const once = (): Promise<T> => {
    if (outcome === undefined) {
      outcome = body();
      // Handled here: the run awaits it below, even when the observer drops it.
      outcome.catch(() => undefined);
    }
    return outcome;
  };
  try {
    await observer.run(run.threadId, run.agent, run.opening, once);
  } catch (error) {
    const bodyError =
      outcome === undefined
        ? undefined
        : await outcome.then(
            () => undefined,
            (raised) => raised,
          );
    // The body's own error, passed through the observer, is the run's error: not the observer's fault.
    if (bodyError === undefined || bodyError !== error) ignored(error);
  }
  if (outcome === undefined) ignored(new Error("its run() returned without calling the body; the body ran without it"));
  return once();
}

function ignored(error: unknown): void {
  console.warn(`soev-agents: an observer raised and was ignored: ${String(error)}`);
}
