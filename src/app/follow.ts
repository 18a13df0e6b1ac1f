/**
 * Following a thread over Server-Sent Events: each trace event as the store appends it (`id` is its
 * position in the thread's log, so Last-Event-ID resumes with no gap and no duplicate), the model's
 * fragments while it writes, keep-alive comments, and an `end` event when the running turn ends.
 */
import { CancelledFailure, TerminatedFailure, WorkflowFailedError } from "@temporalio/client";
import type { Client, WorkflowExecutionDescription } from "@temporalio/client";
import type { SSEStreamingApi } from "hono/streaming";
import type { LogEntry, StoredEvent } from "../domain/event-types.js";
import type { LiveChannel, LiveFragment } from "../ports/live.js";
import type { TraceStore } from "../ports/store.js";
import { workflowIdOf } from "../temporal/contract.js";

/** How a turn ended, as the `end` event tells it. */
export interface TurnEnding {
  /** "completed", "failed", "cancelled", "terminated", "timed-out"; "idle" when no turn of the thread ran here. */
  status: string;
  workflowId: string;
  /** The workflow's result (a short summary of the answer) when it completed. */
  result?: unknown;
  /** The error's name and message when it failed. */
  failure?: { error: string; message: string };
}

/** What a follow needs. */
export interface FollowOptions {
  store: TraceStore;
  live: LiveChannel;
  client: Client;
  threadId: string;
  /** Send the events after this position. */
  after: number;
  keepAliveMilliseconds: number;
  /** Ends the follow (the app closes). */
  signal: AbortSignal;
}

/** An event as the stream sends it: its position, header and own fields. */
export function eventData(entry: LogEntry<StoredEvent>): Record<string, unknown> {
  // The fingerprint that checked the event is the store's business, not the client's.
  const { payload, checked: _checked, ...header } = entry.event;
  return { position: entry.position, ...header, ...payload };
}

/** How a follow writes what it follows: as the native events, or in another protocol. */
export interface FollowWriter {
  fragment(fragment: LiveFragment): Promise<unknown>;
  event(entry: LogEntry<StoredEvent>): Promise<unknown>;
  end(ending: TurnEnding): Promise<unknown>;
  keepAlive(): Promise<unknown>;
}

/** The native stream's writer: `event`, `fragment` and `end` events. */
export function nativeWriter(stream: SSEStreamingApi): FollowWriter {
  return {
    fragment: (fragment) => stream.writeSSE({ event: "fragment", data: JSON.stringify(fragment) }),
    event: (entry) =>
      stream.writeSSE({ id: String(entry.position), event: "event", data: JSON.stringify(eventData(entry)) }),
    end: (ending) => stream.writeSSE({ event: "end", data: JSON.stringify(ending) }),
    keepAlive: () => stream.write(": keep-alive\n\n"),
  };
}

/** Follow the thread on `stream` until its running turn ends (or none runs), the client leaves or the app closes. */
export async function followThread(
  stream: SSEStreamingApi,
  options: FollowOptions,
  writer: FollowWriter = nativeWriter(stream),
): Promise<void> {
  const { store, live, client, threadId } = options;
  const gone = new AbortController();
  const leave = () => gone.abort();
  stream.onAbort(leave);
  options.signal.addEventListener("abort", leave, { once: true });
  let writing: Promise<unknown> = Promise.resolve();
  // One write at a time, in the order asked: fragments and events interleave as they arrive.
  const write = (send: () => Promise<unknown>): void => {
    writing = writing.then(send).catch(leave);
  };
  const unsubscribe = await live.subscribe(threadId, (fragment) => {
    write(() => writer.fragment(fragment));
  });
  const keepAlive = setInterval(() => write(() => writer.keepAlive()), options.keepAliveMilliseconds);
  let last = options.after;
  const send = async (entry: LogEntry<StoredEvent>) => {
    // Every fragment of the call reaches the stream before its output: the channel delivers what came before.
    if (entry.event.type === "model_output") await live.sync();
    last = entry.position;
    write(() => writer.event(entry));
  };
  try {
    const following = new AbortController();
    const stop = () => following.abort();
    gone.signal.addEventListener("abort", stop, { once: true });
    const ending = turnEnding(client, threadId).finally(stop);
    ending.catch(() => undefined);
    for await (const entry of store.read(threadId, { after: last, follow: true, signal: following.signal })) {
      await send(entry);
      if (following.signal.aborted) break;
    }
    if (gone.signal.aborted) return;
    // The turn ended: what it recorded is in the store; send the rest, then the end.
    for await (const entry of store.read(threadId, { after: last })) await send(entry);
    const ended = await ending;
    write(() => writer.end(ended));
    await writing;
  } finally {
    clearInterval(keepAlive);
    unsubscribe();
    options.signal.removeEventListener("abort", leave);
  }
}

/** Wait for the thread's running turn to end and say how; a turn that ended before is told at once. */
async function turnEnding(client: Client, threadId: string): Promise<TurnEnding> {
  const workflowId = workflowIdOf(threadId);
  const handle = client.workflow.getHandle(workflowId);
  let description: WorkflowExecutionDescription;
  try {
    description = await handle.describe();
  } catch {
    return { status: "idle", workflowId };
  }
  const status = description.status.name;
  if (status !== "RUNNING") {
    if (status === "COMPLETED") return { status: "completed", workflowId, result: await handle.result() };
    return endingOf(status, workflowId, await handle.result().catch((error: unknown) => error));
  }
  try {
    return { status: "completed", workflowId, result: await handle.result() };
  } catch (error) {
    return endingOf("FAILED", workflowId, error);
  }
}

function endingOf(status: string, workflowId: string, error: unknown): TurnEnding {
  const cause = error instanceof WorkflowFailedError ? error.cause : error;
  if (cause instanceof CancelledFailure || status === "CANCELLED") return { status: "cancelled", workflowId };
  if (cause instanceof TerminatedFailure || status === "TERMINATED") return { status: "terminated", workflowId };
  if (status === "TIMED_OUT") return { status: "timed-out", workflowId };
  const named = cause instanceof Error ? cause : new Error(String(cause));
  const type = (named as { type?: unknown }).type;
  return {
    status: "failed",
    workflowId,
    failure: { error: typeof type === "string" ? type : named.name, message: named.message },
  };
}
