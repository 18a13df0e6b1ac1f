/**
 * Problem details (RFC 9457): every error the app answers is `application/problem+json` with a title,
 * the status, a detail that says what was wrong and what to send, and fields of its own.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The media type of a problem. */
export const PROBLEM_TYPE = "application/problem+json";

/** The schema of a problem, as the OpenAPI document shows it. */
export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: "about:blank" }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().optional(),
    /** The field of the body that was refused, as a path such as "input.question". */
    field: z.string().optional(),
  })
  .catchall(z.unknown())
  .openapi("Problem");

/** An error a route throws to answer with a problem; onError turns it into the response. */
export class ProblemError extends Error {
  override readonly name = "ProblemError";

  constructor(
    readonly status: ContentfulStatusCode,
    readonly title: string,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

/** The response of a problem. */
export function problemResponse(c: Context, problem: ProblemError): Response {
  const body = {
    type: "about:blank",
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    instance: new URL(c.req.url).pathname,
    ...problem.extra,
  };
  return c.body(JSON.stringify(body), problem.status, { "content-type": PROBLEM_TYPE });
}

/** The OpenAPI response of a problem with `status`, described. */
export function problemContent(description: string): {
  description: string;
  content: { [PROBLEM_TYPE]: { schema: typeof ProblemSchema } };
} {
  return { description, content: { [PROBLEM_TYPE]: { schema: ProblemSchema } } };
}

/** The thread was not found, or is another principal's: the same answer for both, so ids leak nothing. */
export function threadNotFound(threadId: string): ProblemError {
  return new ProblemError(
    404,
    "Thread not found",
    `No thread "${threadId}" of yours is here. Open a thread with POST /threads; its id is in the answer.`,
    { threadId },
  );
}
