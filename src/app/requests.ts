/**
 * The routes of a person in the loop: the requests the thread's running turn waits on, read from the
 * trace (so they list while no worker runs), and the answer, checked against the trace first (so a refused
 * answer is a 404, 409 or 422 naming why, and records nothing), then sent as the turn's `answer` Update.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import { Request, Response } from "../domain/events.js";
import type { JsonValue } from "../domain/json.js";
import { answerIssues, deadlineOf } from "../domain/requests.js";
import type { Trace } from "../domain/trace.js";
import { AnswerRefusedError, threadRequests } from "../runtime/runner/requests.js";
import { NoTurnError } from "../temporal/errors.js";
import { answerRequest } from "../temporal/requests.js";
import type { AppEnv, AppParts } from "./app-parts.js";
import { ProblemError, problemContent } from "./problems.js";
import { body, json, ownedThread, refusals, turnRunning } from "./routes.js";
import { AnswerBody, Answered, PendingRequestView, RequestList, RequestParam, ThreadIdParam } from "./schemas.js";

/** GET /threads/{threadId}/requests. */
export const requestsRoute = createRoute({
  method: "get",
  path: "/threads/{threadId}/requests",
  summary: "The requests the running turn waits on: questions and approvals, with their schema and deadline",
  request: { params: ThreadIdParam },
  responses: {
    200: json(RequestList, "The waiting requests, oldest first; none when no turn runs."),
    ...refusals,
  },
});

/** POST /threads/{threadId}/requests/{requestId}. */
export const answerRoute = createRoute({
  method: "post",
  path: "/threads/{threadId}/requests/{requestId}",
  summary: "Answer a waiting request: approve or deny a call, or answer a question (recorded once)",
  request: { params: RequestParam, ...body(AnswerBody) },
  responses: {
    200: json(Answered, "The answer is recorded as a Response; the turn goes on."),
    401: refusals[401],
    404: problemContent("No such thread of the caller's, or no such request on it."),
    409: problemContent("The request is answered already, or no longer waits (its turn ended)."),
    413: problemContent("The body is too large."),
    422: problemContent("The answer does not fit the request's schema; `field` names where in the payload."),
  },
});

/** A waiting request as the routes show it. */
type RequestView = z.infer<typeof PendingRequestView>;

/** Add the request routes to the app. */
export function requestRoutes(hono: OpenAPIHono<AppEnv>, parts: AppParts): void {
  hono.openapi(requestsRoute, async (c) => {
    const { threadId } = c.req.valid("param");
    const { agent } = await ownedThread(parts, threadId, c.get("principal"));
    const running = await turnRunning(parts, threadId);
    const requests = running ? requestViews(await parts.catalog.read(threadId, agent)) : [];
    return c.json({ threadId, running, requests } as never, 200);
  });

  hono.openapi(answerRoute, async (c) => {
    const { threadId, requestId } = c.req.valid("param");
    const answer = c.req.valid("json");
    const { agent } = await ownedThread(parts, threadId, c.get("principal"));
    const asked = await openRequest(parts, threadId, agent, requestId);
    const payload = payloadOf(answer);
    const problem = answerIssues(asked, payload);
    if (problem !== null) {
      const field = ["payload", problem.issues[0]?.path ?? ""].filter((part) => part !== "").join(".");
      throw new ProblemError(
        422,
        "Answer refused",
        `${problem.message} Send an answer that fits the request's schema.`,
        {
          field,
          issues: problem.issues.map((issue) => ({ ...issue, path: issue.path ? `payload.${issue.path}` : "payload" })),
          schema: asked.schema,
        },
      );
    }
    // The trace shows a request as soon as a worker records it; its turn's workflow learns of it when
    // that activity returns. An answer the workflow refuses while the trace says the request still
    // waits is sent again, for a while; once the trace says otherwise, that is the answer.
    const until = Date.now() + parts.limits.startSeconds * 1000;
    for (;;) {
      try {
        const result = await answerRequest(parts.client, threadId, { requestId, payload: payload as JsonValue });
        return c.json({ threadId, requestId, seq: result.seq }, 200);
      } catch (error) {
        if (error instanceof NoTurnError) throw noLongerWaits(threadId, requestId);
        if (!(error instanceof AnswerRefusedError)) throw error;
        await openRequest(parts, threadId, agent, requestId);
        if (Date.now() > until)
          throw new ProblemError(409, "Answer refused", `${error.message} Nothing was recorded.`, {
            threadId,
            requestId,
          });
        await sleep(200);
      }
    }
  });
}

/** The requests the thread's turn waits on, on every stream (a delegated task's too), oldest first. */
export function requestViews(trace: Trace): RequestView[] {
  const positions = new Map(trace.entries.map((entry) => [entry.event, entry.position]));
  return threadRequests(trace).map((request) => {
    const deadline = deadlineOf(request);
    return {
      requestId: request.requestId,
      kind: request.kind,
      text: request.text,
      stream: request.stream,
      callId: request.callId,
      tool: request.tool,
      arguments: request.arguments,
      schema: request.schema,
      deadline: deadline === null ? null : new Date(deadline).toISOString(),
      hasDefault: request.defaultAnswer !== null,
      position: positions.get(request) ?? 0,
    };
  });
}

/**
 * The Request of the id, while it waits for an answer on the thread's running turn: else a 404 (no such
 * request) or a 409 (answered already, or its turn ended).
 */
async function openRequest(parts: AppParts, threadId: string, agent: string, requestId: string): Promise<Request> {
  const trace = await parts.catalog.read(threadId, agent);
  const asked = trace.byType(Request).findLast((request) => request.requestId === requestId);
  if (asked === undefined)
    throw new ProblemError(
      404,
      "Request not found",
      `No request "${requestId}" was made on thread "${threadId}": GET /threads/${threadId}/requests lists the waiting ones.`,
      { threadId, requestId },
    );
  const answered = trace
    .stream(asked.stream)
    .byType(Response)
    .some((event) => event.requestId === requestId);
  if (answered)
    throw new ProblemError(
      409,
      "Answered already",
      `Request "${requestId}" is answered already; an answer is recorded once.`,
      {
        threadId,
        requestId,
      },
    );
  if (!threadRequests(trace).some((request) => request.requestId === requestId))
    throw noLongerWaits(threadId, requestId);
  return asked;
}

/** The answer's payload: `payload` as sent, or an approval's `{ approved, reason }`. */
function payloadOf(body: { payload?: unknown; approved?: boolean; reason?: string }): unknown {
  if (body.payload !== undefined) return body.payload;
  if (body.approved === undefined) return undefined;
  return body.reason === undefined ? { approved: body.approved } : { approved: body.approved, reason: body.reason };
}

function noLongerWaits(threadId: string, requestId: string): ProblemError {
  return new ProblemError(
    409,
    "The request no longer waits",
    `Request "${requestId}" no longer waits: its turn ended (see GET /threads/${threadId}).`,
    { threadId, requestId },
  );
}
