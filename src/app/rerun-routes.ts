/**
 * The comparison routes: GET /reruns/{batchId}, a re-run batch's report over the caller's threads (JSON or
 * markdown), and GET /threads/{threadId}/calls/{n}/whatif, what a candidate agent would have sent at a call.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { WorkflowNotFoundError } from "@temporalio/client";
import { UnknownThreadError } from "../runtime/errors.js";
import { compareRerun, rerunMarkdown } from "../runtime/rerun-report.js";
import { whatIfAgent, type WhatIfCall } from "../runtime/what-if.js";
import { rerunThreadIdOf, workflowIdOf } from "../temporal/contract.js";
import { describeRerun, rerunWorkflowIdOf, type RerunDescription } from "../temporal/rerun.js";
import type { AppEnv, AppParts } from "./app-parts.js";
import { ProblemError, problemContent } from "./problems.js";
import { json, ownedThread, refusals, temporalLink } from "./routes.js";
import { BatchIdParam, RerunQuery, RerunView, WhatIfParam, WhatIfQuery, WhatIfView } from "./rerun-schemas.js";
import { FORM_NAMES } from "./views.js";

/** GET /reruns/{batchId}. */
export const rerunRoute = createRoute({
  method: "get",
  path: "/reruns/{batchId}",
  summary: "A re-run batch's report: the caller's recorded threads against their candidate threads, turn by turn",
  request: { params: BatchIdParam, query: RerunQuery },
  responses: {
    200: {
      description: "The report (text/markdown with `?format=markdown`).",
      content: { "application/json": { schema: RerunView }, "text/markdown": { schema: { type: "string" } } },
    },
    401: refusals[401],
    404: problemContent("No such batch, none of its threads is the caller's, or its agents are not the app's."),
  },
});

/** GET /threads/{threadId}/calls/{n}/whatif. */
export const whatIfRoute = createRoute({
  method: "get",
  path: "/threads/{threadId}/calls/{n}/whatif",
  summary: "What a candidate agent of the catalog would have sent at model call n, against what was recorded",
  request: { params: WhatIfParam, query: WhatIfQuery },
  responses: {
    200: json(WhatIfView, "The comparison of the two requests."),
    ...refusals,
  },
});

/** Add the comparison routes to the app (under the API key check of /reruns and /threads). */
export function rerunRoutes(hono: OpenAPIHono<AppEnv>, parts: AppParts): void {
  hono.openapi(rerunRoute, async (c) => {
    const { batchId } = c.req.valid("param");
    const batch = await ownedBatch(parts, batchId, c.get("principal"));
    const report = await compareRerun({
      original: { catalog: parts.catalog, agent: batch.memo.agent },
      candidate: { catalog: parts.catalog, agent: batch.memo.candidate },
      threads: batch.threads,
    });
    if (c.req.valid("query").format === "markdown")
      return c.body(rerunMarkdown(report), 200, { "content-type": "text/markdown; charset=utf-8" }) as never;
    const link = (threadId: string) => temporalLink(parts, workflowIdOf(threadId), null);
    return c.json(
      {
        batchId,
        status: batch.status,
        agent: batch.memo.agent,
        candidate: batch.memo.candidate,
        result: batch.result,
        temporalUi: temporalLink(parts, rerunWorkflowIdOf(batchId), null),
        threads: batch.threads.map((pair) => ({
          ...pair,
          temporalUi: { original: link(pair.original), candidate: link(pair.candidate) },
        })),
        report,
      },
      200,
    );
  });

  hono.openapi(whatIfRoute, async (c) => {
    const { threadId, n } = c.req.valid("param");
    const { candidate } = c.req.valid("query");
    const { agent } = await ownedThread(parts, threadId, c.get("principal"));
    if (!parts.catalog.names.includes(candidate))
      throw new ProblemError(
        404,
        "No such agent",
        `No agent "${candidate}": the catalog has ${parts.catalog.names.join(", ")}.`,
        {
          agent: candidate,
        },
      );
    const call = (await whatIfAgent(parts.catalog, threadId, candidate))[n - 1];
    if (call === undefined)
      throw new ProblemError(404, "No such model call", `Thread "${threadId}" has no model call ${n}.`, {
        threadId,
        n,
      });
    return c.json(whatIfView(call, agent, candidate), 200);
  });
}

/** A batch with its memo, and the caller's recorded threads of it with their candidate threads. */
interface OwnedBatch extends RerunDescription {
  memo: NonNullable<RerunDescription["memo"]>;
  threads: { original: string; candidate: string }[];
}

/** The batch, when one of its recorded threads is the caller's and its agents are the app's; else 404. */
async function ownedBatch(parts: AppParts, batchId: string, principal: string): Promise<OwnedBatch> {
  const notFound = new ProblemError(404, "Batch not found", `No re-run batch "${batchId}" of your threads is here.`, {
    batchId,
  });
  const described = await describeRerun(parts.client, batchId).catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) throw notFound;
    throw error;
  });
  const { memo } = described;
  if (memo === null || ![memo.agent, memo.candidate].every((name) => parts.catalog.names.includes(name)))
    throw notFound;
  const threads: OwnedBatch["threads"] = [];
  for (const threadId of memo.threadIds)
    if (await owns(parts, threadId, principal))
      threads.push({ original: threadId, candidate: rerunThreadIdOf(batchId, threadId) });
  if (threads.length === 0) throw notFound;
  return { ...described, memo, threads };
}

async function owns(parts: AppParts, threadId: string, principal: string): Promise<boolean> {
  try {
    await ownedThread(parts, threadId, principal);
    return true;
  } catch (error) {
    if (error instanceof ProblemError || error instanceof UnknownThreadError) return false;
    throw error;
  }
}

function whatIfView(call: WhatIfCall, agent: string, candidate: string) {
  const { difference } = call;
  return {
    n: call.call,
    agent,
    candidate,
    same: call.same,
    built: { recorded: call.recorded !== null, candidate: call.candidate !== null },
    difference: difference && {
      ...difference,
      forms: difference.forms.map((form) => ({
        ...form,
        recorded: FORM_NAMES[form.recorded] ?? "FULL",
        candidate: FORM_NAMES[form.candidate] ?? "FULL",
      })),
    },
  };
}
