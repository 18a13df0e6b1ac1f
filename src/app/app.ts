/**
 * createApp: the HTTP app on Hono. It starts turns as Temporal workflows, follows them over Server-Sent
 * Events with the model's text live, shows threads and model calls, and cancels turns. Every /threads
 * route needs an API key; errors are problem details; the OpenAPI 3.1 document is at /openapi.json.
 */
import { randomBytes } from "node:crypto";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { secureHeaders } from "hono/secure-headers";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { InProcessLiveChannel } from "../adapters/live/in-process.js";
import { SoevError } from "../domain/errors.js";
import type { LiveChannel } from "../ports/live.js";
import { SYSTEM_CLOCK } from "../ports/clock.js";
import { scrubSecrets } from "../ports/secrets.js";
import { aroundGuarded, ignored } from "../runtime/runner/work.js";
import { InputDeniedError, UnknownThreadError } from "../runtime/errors.js";
import { DEFAULT_TASK_QUEUE } from "../temporal/contract.js";
import { TurnRunningError } from "../temporal/errors.js";
import { checkedLimits, DEFAULT_TEMPORAL_UI, tokenSecretOf, type AppOptions } from "./options.js";
import type { AppEnv, AppParts } from "./app-parts.js";
import { hostCheck, LOOPBACK_HOSTS } from "./hosts.js";
import { jsonDepthCheck } from "./json-depth.js";
import { ProblemError, problemResponse } from "./problems.js";
import { healthRoutes } from "./health.js";
import { requestRoutes } from "./requests.js";
import { playgroundRoutes } from "./playground/page.js";
import { docsRoutes } from "./docs.js";
import { threadRoutes } from "./routes.js";
import { rerunRoutes } from "./rerun-routes.js";
import { tokenPrincipal, tokenRoutes } from "./token-routes.js";

export type { AppEnv, AppParts } from "./app-parts.js";

/** The app createApp makes. */
export interface SoevApp {
  /** The Hono app. Add routes with `hono.openapi(createRoute(...), handler)`: under /threads they get the API key check, and every route gets problem details and a place in /openapi.json. */
  readonly hono: OpenAPIHono<AppEnv>;
  /** The parts the routes share. */
  readonly parts: AppParts;
  /** The live channel: give it to a worker in the same process (`runWorker({ live })`) so turns stream. */
  readonly live: LiveChannel;
  /** Answer one request (the Fetch API). */
  fetch(request: Request): Response | Promise<Response>;
  /** End the open event streams and close the live channel when the app made it. */
  close(): Promise<void>;
}

/**
 * Make the app: the routes of the HTTP app over a Temporal client and the workers' catalog.
 *
 * @example
 * ```ts
 * import { Client, Connection } from "@temporalio/client";
 * import { createApp, serveApp } from "soev-agents/app";
 * import type { AgentCatalog } from "soev-agents/runtime";
 *
 * declare const catalog: AgentCatalog; // the workers' catalog: the app reads threads from its store
 * const keys = new Map([["secret-key-of-alice", "alice"]]);
 * const client = new Client({ connection: await Connection.connect({ address: "localhost:7233" }) });
 * const app = createApp({ client, catalog, principalOf: (apiKey) => keys.get(apiKey) ?? null });
 * const served = await serveApp(app, { port: 3000 });
 * console.log(`Listening on ${served.url}`);
 * ```
 */
export function createApp(options: AppOptions): SoevApp {
  const limits = checkedLimits(options);
  const ownsLive = options.live === undefined;
  const live = options.live ?? new InProcessLiveChannel();
  const closing = new AbortController();
  const parts: AppParts = {
    client: options.client,
    catalog: options.catalog,
    live,
    authorize: options.authorize ?? (() => true),
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    defaultModel: options.defaultModel ?? null,
    settings: options.settings,
    temporalUi: options.temporalUi === undefined ? DEFAULT_TEMPORAL_UI : options.temporalUi,
    limits,
    // A random secret of the process when none is given: its tokens open no other replica, and die with it.
    tokenSecret: options.tokenSecret === undefined ? randomBytes(32) : tokenSecretOf(options.tokenSecret),
    clock: options.clock ?? SYSTEM_CLOCK,
    closing: closing.signal,
  };
  const hono = new OpenAPIHono<AppEnv>({
    // A body or parameter the schema refuses: 422 naming the field.
    defaultHook: (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0]!;
      const field = issue.path.join(".") || "(body)";
      return problemResponse(
        c,
        new ProblemError(
          422,
          "Invalid request",
          `The request does not fit at "${field}": ${issue.message}. Fix it and send it again.`,
          {
            field,
            issues: result.error.issues.map((each) => ({ path: each.path.join("."), message: each.message })),
          },
        ),
      );
    },
  });
  const observer = options.observer ?? options.catalog.observer;
  if (observer?.request) {
    const request = observer.request.bind(observer);
    // A raising observer is logged; the request is answered as without it (the reference's Observer.request).
    hono.use("*", async (c, next) => {
      const headers = Object.fromEntries(c.req.raw.headers.entries());
      await aroundGuarded(
        (once) => request(headers, once),
        () => next(),
      );
    });
  }
  hono.use("*", secureHeaders(SECURE_HEADERS));
  if (options.hosts !== null) hono.use("*", hostCheck(options.hosts ?? LOOPBACK_HOSTS));
  const authenticated = authentication(options, parts);
  hono.use("/threads", authenticated);
  hono.use("/threads/*", authenticated);
  hono.use("/agents", authenticated);
  hono.use("/reruns/*", authenticated);
  hono.use(
    "*",
    bodyLimit({
      maxSize: limits.bodyBytes,
      onError: (c) =>
        problemResponse(
          c,
          new ProblemError(
            413,
            "Request body too large",
            `The body has more than ${limits.bodyBytes} bytes: send a shorter input.`,
            {
              limit: limits.bodyBytes,
            },
          ),
        ),
    }),
  );
  hono.use("*", jsonDepthCheck());
  hono.onError((error, c) => problemResponse(c, problemOf(error)));
  hono.notFound((c) =>
    problemResponse(
      c,
      new ProblemError(404, "Not found", `No route ${c.req.method} ${new URL(c.req.url).pathname}: see /openapi.json.`),
    ),
  );
  healthRoutes(hono, parts);
  threadRoutes(hono, parts);
  rerunRoutes(hono, parts);
  tokenRoutes(hono, parts);
  requestRoutes(hono, parts);
  playgroundRoutes(hono);
  docsRoutes(hono);
  hono.openAPIRegistry.registerComponent("securitySchemes", "apiKey", { type: "http", scheme: "bearer" });
  hono.openAPIRegistry.registerComponent("securitySchemes", "browserToken", {
    type: "apiKey",
    in: "query",
    name: "token",
    description: "A browser token of one thread (POST /threads/{threadId}/token): opens only its GET streams.",
  });
  hono.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "soev-agents",
      version: options.catalog.version ?? "0",
      description:
        "Start, follow and stop durable agent turns. Every /threads route needs `Authorization: Bearer <API key>`; " +
        "a thread's GET streams also take a browser token as `?token=` (POST /threads/{threadId}/token).",
    },
    security: [{ apiKey: [] }],
  });
  return {
    hono,
    parts,
    live,
    fetch: (request) => hono.fetch(request),
    close: async () => {
      closing.abort();
      if (ownsLive) await live.close();
      // The reference's app closes its observer at shutdown (flushing a tracer's spans, say); an error is logged.
      await Promise.resolve()
        .then(() => observer?.close?.())
        .catch(ignored);
    },
  };
}

// The playground loads its script and style from the app and talks only to it; nothing may frame it. HSTS
// is the TLS proxy's to send: the app itself speaks plain HTTP.
const SECURE_HEADERS: NonNullable<Parameters<typeof secureHeaders>[0]> = {
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: "DENY",
  xContentTypeOptions: "nosniff",
  strictTransportSecurity: false,
};

/**
 * The API key check: the principal of `Authorization: Bearer <key>`, else 401. Without the header, a stream
 * route takes a browser token of its thread as `?token=`.
 */
function authentication(options: AppOptions, parts: AppParts): MiddlewareHandler<AppEnv> {
  const { principalOf } = options;
  return async (c, next) => {
    const token = c.req.query("token");
    if (c.req.header("authorization") === undefined && token !== undefined) {
      c.set("principal", tokenPrincipal(c, parts, token));
      return next();
    }
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const principal = match ? await principalOf(match[1]!) : null;
    if (!principal) {
      c.header("WWW-Authenticate", 'Bearer realm="soev-agents"');
      return problemResponse(
        c,
        new ProblemError(
          401,
          "API key needed",
          match
            ? "The API key is not known here: send a valid one as `Authorization: Bearer <key>`."
            : "Send your API key as `Authorization: Bearer <key>`.",
        ),
      );
    }
    c.set("principal", principal);
    await next();
  };
}

/** The problem of an error a route raised: the app's own problems, the callers' errors as 4xx, the rest 500. */
function problemOf(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error instanceof HTTPException)
    return new ProblemError(
      error.status as ContentfulStatusCode,
      error.status === 400 ? "Bad request" : "Refused",
      `${error.message || "The request was refused"}: send a JSON body as /openapi.json describes.`,
    );
  if (error instanceof TurnRunningError)
    return new ProblemError(409, "A turn is running", error.message, { workflowId: error.workflowId });
  if (error instanceof InputDeniedError) {
    const field = String((error.details as { field?: unknown }).field ?? "(payload)");
    return new ProblemError(422, "Input refused", `${error.message}. Send an input the agent's input type takes.`, {
      field: field === "(payload)" ? "input" : `input.${field}`,
    });
  }
  if (error instanceof UnknownThreadError) return new ProblemError(404, "Not found", error.message);
  if (error instanceof SoevError && error.fault === "caller")
    return new ProblemError(400, "Bad request", error.message);
  // The outside world's errors may quote a key: the detail is scrubbed as every recorded error is.
  const message = scrubSecrets(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  return new ProblemError(
    500,
    "Internal error",
    `The app failed: ${message}. Try again; if it persists, read the app's log.`,
  );
}
