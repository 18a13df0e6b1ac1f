/** The /threads routes: open a thread, start its next turn, follow it, show it and its model calls, cancel it. */
import { randomUUID } from "node:crypto";
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { WorkflowNotFoundError } from "@temporalio/client";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { Input } from "../domain/events.js";
import type { JsonValue } from "../domain/json.js";
import { accepted } from "../runtime/agent.js";
import { UnknownThreadError } from "../runtime/errors.js";
import { workflowIdOf } from "../temporal/contract.js";
import { startTurn } from "../temporal/start-turn.js";
import type { AppEnv, AppParts } from "./app-parts.js";
import { followThread } from "./follow.js";
import { ProblemError, problemContent, threadNotFound } from "./problems.js";
import { UI_MESSAGE_STREAM_HEADERS, uiMessageWriter } from "./ui-message-stream.js";
import {
  AgentList,
  CallParam,
  CallView,
  Cancelled,
  EventsQuery,
  NextTurnBody,
  OpenThreadBody,
  StartedTurn,
  ThreadIdParam,
  ThreadList,
  ThreadView,
  ThreadsQuery,
} from "./schemas.js";
import { callOf, turnsOf, usageView } from "./views.js";

/** An OpenAPI response of JSON with `schema`. */
export const json = <T>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
/** The refusals every thread route may answer. */
export const refusals = {
  401: problemContent("No API key, or one the app does not know."),
  404: problemContent("No such thread of the caller's."),
};
/** The stream routes take the API key, or a browser token of the thread as `?token=`. */
const STREAM_SECURITY: Record<string, string[]>[] = [{ apiKey: [] }, { browserToken: [] }];
/** An OpenAPI request body of JSON with `schema`. */
export const body = <T>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });

/** The route that opens a thread: POST /threads. */
export const openThreadRoute = createRoute({
  method: "post",
  path: "/threads",
  summary: "Open a thread and start its first turn",
  request: body(OpenThreadBody),
  responses: {
    202: json(StartedTurn, "The turn started."),
    401: refusals[401],
    403: problemContent("The authorize hook refused the turn."),
    404: problemContent("No such agent."),
    413: problemContent("The body is too large."),
    422: problemContent("The input does not fit the agent's input type; `field` names where."),
  },
});

/** POST /threads/{threadId}/turns. */
export const nextTurnRoute = createRoute({
  method: "post",
  path: "/threads/{threadId}/turns",
  summary: "Start the thread's next turn",
  request: { params: ThreadIdParam, ...body(NextTurnBody) },
  responses: {
    202: json(StartedTurn, "The turn started."),
    ...refusals,
    403: problemContent("The authorize hook refused the turn."),
    409: problemContent("A turn of the thread is running; `workflowId` names it."),
    413: problemContent("The body is too large."),
    422: problemContent("The input does not fit the agent's input type; `field` names where."),
  },
});

/** GET /threads/{threadId}/events. */
export const eventsRoute = createRoute({
  method: "get",
  path: "/threads/{threadId}/events",
  summary: "Follow the thread (Server-Sent Events)",
  description:
    "Events `event` (a trace event; `id` is its position in the thread's log: resume with Last-Event-ID or ?after=), " +
    "`fragment` (the model's text or reasoning while it writes; a higher `attempt` of the same `key` replaces a lower one's text), " +
    "and `end` (the running turn completed, failed or was cancelled). Comments keep the connection alive.",
  request: { params: ThreadIdParam, query: EventsQuery },
  security: STREAM_SECURITY,
  responses: {
    200: { description: "The event stream.", content: { "text/event-stream": { schema: { type: "string" } } } },
    ...refusals,
  },
});

/** GET /threads/{threadId}/ui-stream. */
export const uiStreamRoute = createRoute({
  method: "get",
  path: "/threads/{threadId}/ui-stream",
  summary: "Follow the thread as the AI SDK's UI message stream (useChat)",
  description:
    "The events after `after` and the running turn's fragments as one assistant message in the UI message " +
    "stream protocol v1 (header `x-vercel-ai-ui-message-stream: v1`): text and reasoning parts, tool inputs and " +
    "outputs, the cited passages as source documents, a failure as an error, then `finish` and `[DONE]`.",
  request: { params: ThreadIdParam, query: EventsQuery },
  security: STREAM_SECURITY,
  responses: {
    200: { description: "The UI message stream.", content: { "text/event-stream": { schema: { type: "string" } } } },
    ...refusals,
  },
});

/** GET /threads/{threadId}. */
export const threadRoute = createRoute({
  method: "get",
  path: "/threads/{threadId}",
  summary: "The thread's turns: inputs, answers with their cited passages, tool calls, failures",
  request: { params: ThreadIdParam },
  responses: { 200: json(ThreadView, "The thread."), ...refusals },
});

/** GET /threads/{threadId}/calls/{n}. */
export const callRoute = createRoute({
  method: "get",
  path: "/threads/{threadId}/calls/{n}",
  summary: "What the model received in call n, rebuilt from the trace, with why each result has its form",
  request: { params: CallParam },
  responses: { 200: json(CallView, "The model call."), ...refusals },
});

/** POST /threads/{threadId}/cancel. */
export const cancelRoute = createRoute({
  method: "post",
  path: "/threads/{threadId}/cancel",
  summary: "Cancel the running turn (recorded on the trace; the lease is released)",
  request: { params: ThreadIdParam },
  responses: {
    202: json(Cancelled, "The cancellation was asked for; the event stream ends with status cancelled."),
    ...refusals,
    409: problemContent("No turn of the thread is running."),
  },
});

/** GET /threads. */
export const threadsRoute = createRoute({
  method: "get",
  path: "/threads",
  summary: "The caller's threads, newest first",
  request: { query: ThreadsQuery },
  responses: { 200: json(ThreadList, "The threads."), 401: refusals[401] },
});

/** GET /agents. */
export const agentsRoute = createRoute({
  method: "get",
  path: "/agents",
  summary: "The agents of the catalog",
  responses: { 200: json(AgentList, "The agents."), 401: refusals[401] },
});

/** Add the routes to the app. */
export function threadRoutes(hono: OpenAPIHono<AppEnv>, parts: AppParts): void {
  const { catalog, client } = parts;

  hono.openapi(openThreadRoute, async (c) => {
    const { agent, input, model } = c.req.valid("json");
    try {
      catalog.agent(agent);
    } catch {
      throw new ProblemError(
        404,
        "No such agent",
        `No agent "${agent}": the catalog has ${catalog.names.join(", ")}.`,
        { agent },
      );
    }
    return c.json(
      await start(c, parts, { agent, threadId: null, payload: input as JsonValue, model: model ?? parts.defaultModel }),
      202,
    );
  });

  hono.openapi(nextTurnRoute, async (c) => {
    const { threadId } = c.req.valid("param");
    const { input, model } = c.req.valid("json");
    const { agent } = await ownedThread(parts, threadId, c.get("principal"));
    return c.json(
      await start(c, parts, { agent, threadId, payload: input as JsonValue, model: model ?? parts.defaultModel }),
      202,
    );
  });

  hono.openapi(eventsRoute, async (c) => {
    const { threadId } = c.req.valid("param");
    const { after } = c.req.valid("query");
    await ownedThread(parts, threadId, c.get("principal"));
    const lastEventId = Number(c.req.header("last-event-id"));
    const from = Number.isInteger(lastEventId) && lastEventId >= 0 ? lastEventId : (after ?? 0);
    c.header("Cache-Control", "no-cache");
    c.header("X-Accel-Buffering", "no");
    return streamSSE(c, (stream) =>
      followThread(stream, {
        store: catalog.store,
        live: parts.live,
        client,
        threadId,
        after: from,
        keepAliveMilliseconds: parts.limits.keepAliveSeconds * 1000,
        signal: parts.closing,
      }),
    ) as never;
  });

  hono.openapi(uiStreamRoute, async (c) => {
    const { threadId } = c.req.valid("param");
    const { after } = c.req.valid("query");
    const { agent } = await ownedThread(parts, threadId, c.get("principal"));
    for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) c.header(name, value);
    return streamSSE(c, (out) =>
      followThread(
        out,
        {
          store: catalog.store,
          live: parts.live,
          client,
          threadId,
          after: after ?? 0,
          keepAliveMilliseconds: parts.limits.keepAliveSeconds * 1000,
          signal: parts.closing,
        },
        uiMessageWriter(out, catalog.types(agent), `${threadId}-${after ?? 0}`),
      ),
    ) as never;
  });

  hono.openapi(threadRoute, async (c) => {
    const { threadId } = c.req.valid("param");
    const { agent, principal } = await ownedThread(parts, threadId, c.get("principal"));
    const trace = await catalog.read(threadId, agent);
    const workflowId = workflowIdOf(threadId);
    return c.json(
      {
        threadId,
        agent,
        principal,
        position: trace.position,
        running: await turnRunning(parts, threadId),
        temporalUi: temporalLink(parts, workflowId, null),
        turns: turnsOf(trace, catalog.prices),
        usage: usageView(trace.events, catalog.prices),
        prices: catalog.prices.version,
      } as never,
      200,
    );
  });

  hono.openapi(callRoute, async (c) => {
    const { threadId, n } = c.req.valid("param");
    const { agent } = await ownedThread(parts, threadId, c.get("principal"));
    const trace = await catalog.read(threadId, agent);
    return c.json((await callOf(catalog, threadId, agent, trace, n)) as never, 200);
  });

  hono.openapi(cancelRoute, async (c) => {
    const { threadId } = c.req.valid("param");
    await ownedThread(parts, threadId, c.get("principal"));
    const workflowId = workflowIdOf(threadId);
    if (!(await turnRunning(parts, threadId)))
      throw new ProblemError(
        409,
        "No turn is running",
        `No turn of thread "${threadId}" is running: there is nothing to cancel.`,
        {
          threadId,
        },
      );
    await client.workflow.getHandle(workflowId).cancel();
    return c.json({ threadId, workflowId, cancelled: true as const }, 202);
  });

  hono.openapi(threadsRoute, async (c) => {
    const { limit } = c.req.valid("query");
    const principal = c.get("principal");
    // The store's index of first inputs by principal: one page of the caller's threads, nobody else's read.
    const page = await catalog.store.threads({ limit: limit ?? 20, principal });
    const threads = page.map(([threadId, first]) => ({
      threadId,
      agent: first.origin,
      startedAt: first.ts,
      input: (first.payload.payload ?? null) as JsonValue,
    }));
    return c.json({ threads }, 200);
  });

  hono.openapi(agentsRoute, (c) => c.json({ agents: catalog.names }, 200));
}

/** A turn to start. */
interface TurnStart {
  agent: string;
  threadId: string | null;
  payload: JsonValue;
  model: string | null;
}

/**
 * Start a turn: check the input against the agent's input type and ask the authorize hook first, so a
 * refused request records nothing; then wait (a while) until a worker recorded the input, so the thread
 * is readable by the time the client follows it.
 */
async function start(c: Context<AppEnv>, parts: AppParts, turn: TurnStart) {
  const principal = c.get("principal");
  accepted(parts.catalog.agent(turn.agent).input, Input({ payload: turn.payload, model: turn.model }));
  const threadId = turn.threadId ?? randomUUID();
  if (!(await parts.authorize({ principal, agent: turn.agent, threadId })))
    throw new ProblemError(403, "Turn refused", `The app's authorize hook does not let "${principal}" open this turn.`);
  const before = turn.threadId === null ? 0 : await lastPosition(parts, turn.threadId);
  const started = await startTurn(parts.client, {
    agent: turn.agent,
    threadId,
    principal,
    input: { payload: turn.payload, model: turn.model },
    taskQueue: parts.taskQueue,
    ...(parts.settings ? { settings: parts.settings } : {}),
  });
  const ended = started.result();
  const recorded = await inputRecorded(parts, started.threadId, before, ended);
  if (!recorded) await refusedTurn(ended);
  const base = new URL(c.req.url);
  return {
    threadId: started.threadId,
    workflowId: started.workflowId,
    runId: started.runId,
    events: new URL(`/threads/${encodeURIComponent(started.threadId)}/events?after=${before}`, base).href,
    temporalUi: temporalLink(parts, started.workflowId, started.runId),
    recorded,
  };
}

/**
 * A turn that ended before its input was recorded was refused by the worker (an input its agent's graph
 * does not take, such as one without a model): answer with why. A turn still queued is left to run.
 */
async function refusedTurn(ended: Promise<unknown>): Promise<void> {
  const outcome = await Promise.race([
    ended.then(
      () => null,
      (error: unknown) => error,
    ),
    new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined))),
  ]);
  if (outcome === undefined || outcome === null) return;
  const cause = (outcome as { cause?: unknown }).cause ?? outcome;
  const type = String((cause as { type?: unknown }).type ?? (cause as Error).name);
  const message = cause instanceof Error ? cause.message : String(cause);
  if (type === "InputDeniedError" || type === "InputTooLargeError" || type === "ValueError")
    throw new ProblemError(422, "Input refused", `${message} Nothing was recorded.`, { field: "input", error: type });
  throw new ProblemError(502, "The turn failed to start", `The worker refused the turn (${type}): ${message}`, {
    error: type,
  });
}

/** The thread's agent and owner, when the principal owns it; else 404 (the same for a thread that is not there). */
export async function ownedThread(
  parts: AppParts,
  threadId: string,
  principal: string,
): Promise<{ agent: string; principal: string | null }> {
  for await (const entry of parts.catalog.store.read(threadId)) {
    const first = entry.event;
    if (first.type !== "input" || first.payload.principal !== principal || first.origin === null) break;
    try {
      parts.catalog.agent(first.origin);
    } catch (error) {
      if (error instanceof UnknownThreadError) break;
      throw error;
    }
    return { agent: first.origin, principal };
  }
  throw threadNotFound(threadId);
}

/** Whether a turn of the thread runs, from the workflow's description (no worker needed). */
export async function turnRunning(parts: AppParts, threadId: string): Promise<boolean> {
  try {
    const description = await parts.client.workflow.getHandle(workflowIdOf(threadId)).describe();
    return description.status.name === "RUNNING";
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The Temporal UI's page of one run (a turn), or of every run of the workflow (a thread's turns) without a run id. */
export function temporalLink(parts: AppParts, workflowId: string, runId: string | null): string | null {
  if (parts.temporalUi === null) return null;
  const namespace = `${parts.temporalUi.replace(/\/$/, "")}/namespaces/${encodeURIComponent(parts.client.options.namespace)}`;
  if (runId !== null) return `${namespace}/workflows/${encodeURIComponent(workflowId)}/${runId}/history`;
  return `${namespace}/workflows?query=${encodeURIComponent(`WorkflowId="${workflowId}"`)}`;
}

async function lastPosition(parts: AppParts, threadId: string): Promise<number> {
  for await (const entry of parts.catalog.store.readBackwards(threadId)) return entry.position;
  return 0;
}

/** Wait until an input lands after `before`, the turn ends, or the start limit passes. */
async function inputRecorded(
  parts: AppParts,
  threadId: string,
  before: number,
  ended: Promise<unknown>,
): Promise<boolean> {
  const waiting = AbortSignal.any([AbortSignal.timeout(parts.limits.startSeconds * 1000), parts.closing]);
  const stop = new AbortController();
  const over = () => stop.abort();
  waiting.addEventListener("abort", over, { once: true });
  ended.then(over, over);
  try {
    for await (const entry of parts.catalog.store.read(threadId, { after: before, follow: true, signal: stop.signal }))
      if (entry.event.type === "input") return true;
    return false;
  } finally {
    waiting.removeEventListener("abort", over);
  }
}
