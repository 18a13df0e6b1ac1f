/**
 * The browser token's route (POST /threads/{threadId}/token, with the API key) and its check on the stream
 * routes (GET /threads/{threadId}/events and /ui-stream with `?token=`), where a browser's EventSource cannot
 * send an `Authorization` header.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv, AppParts } from "./app-parts.js";
import { checkToken, issueToken, type TokenRefusal } from "./browser-tokens.js";
import { ProblemError } from "./problems.js";
import { json, ownedThread, refusals } from "./routes.js";
import { BrowserToken, ThreadIdParam } from "./schemas.js";

/** POST /threads/{threadId}/token. */
export const tokenRoute = createRoute({
  method: "post",
  path: "/threads/{threadId}/token",
  summary: "A short-lived token that opens this thread's streams as `?token=` (for EventSource and browsers)",
  description:
    "The token opens GET /threads/{threadId}/events and /ui-stream of this thread only, as its principal, " +
    "until `expiresAt` (the app's `limits.tokenSeconds`, default 5 minutes). It opens no other route: ask " +
    "for a new one with the API key when it expires.",
  request: { params: ThreadIdParam },
  responses: { 200: json(BrowserToken, "The token and the stream URLs that carry it."), ...refusals },
});

/** Add the token route to the app. */
export function tokenRoutes(hono: OpenAPIHono<AppEnv>, parts: AppParts): void {
  hono.openapi(tokenRoute, async (c) => {
    const { threadId } = c.req.valid("param");
    const principal = c.get("principal");
    await ownedThread(parts, threadId, principal);
    const expiresAt = parts.clock.now() + parts.limits.tokenSeconds * 1000;
    const token = issueToken(parts.tokenSecret, { threadId, principal, expiresAt });
    const base = new URL(c.req.url);
    const stream = (name: string) =>
      new URL(`/threads/${encodeURIComponent(threadId)}/${name}?token=${encodeURIComponent(token)}`, base).href;
    return c.json(
      {
        token,
        threadId,
        expiresAt: new Date(expiresAt).toISOString(),
        events: stream("events"),
        uiStream: stream("ui-stream"),
      },
      200,
    );
  });
}

/** The stream routes a token opens: the thread id of the path, or null for any other route. */
function streamThread(c: Context): string | null {
  if (c.req.method !== "GET") return null;
  const match = /^\/threads\/([^/]+)\/(?:events|ui-stream)$/.exec(new URL(c.req.url).pathname);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}

/**
 * The principal of a request's `?token=`: the token's, when it is a browser token of the path's thread, signed
 * by this app's secret and not expired, on a stream route.
 * @throws ProblemError 401 saying what was wrong and what to do.
 */
export function tokenPrincipal(c: Context, parts: AppParts, token: string): string {
  const threadId = streamThread(c);
  if (threadId === null)
    throw new ProblemError(
      401,
      "API key needed",
      "A browser token opens only GET /threads/{threadId}/events and /ui-stream: send your API key as " +
        "`Authorization: Bearer <key>` here.",
    );
  const checked = checkToken(parts.tokenSecret, token, threadId, parts.clock.now());
  if (checked.ok) return checked.claims.principal;
  throw new ProblemError(401, "Browser token refused", `${REFUSALS[checked.refusal](checked.claims)} ${AGAIN}`, {
    threadId,
    refusal: checked.refusal,
  });
}

const AGAIN =
  "Ask for a new token with POST /threads/{threadId}/token (with `Authorization: Bearer <key>`) and open the stream with it.";

const REFUSALS: Record<TokenRefusal, (claims?: { threadId: string; expiresAt: number }) => string> = {
  malformed: () => "The token is not a browser token of this app.",
  forged: () =>
    "The token's signature does not match this app's secret (a changed token, or one from an app with " +
    "another tokenSecret: replicas must share SOEV_TOKEN_SECRET).",
  expired: (claims) => `The token expired at ${new Date(claims!.expiresAt).toISOString()}.`,
  "other-thread": (claims) => `The token opens thread "${claims!.threadId}", not this one.`,
};
