/**
 * /healthz and /readyz: liveness (the process answers) and readiness (Temporal and the trace store answer),
 * for load balancers and container healthchecks. Neither needs an API key, and neither says more than
 * "ok" or what failed to answer.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, AppParts } from "./app-parts.js";

/** How long readiness waits for each dependency before it counts it as not answering. */
const CHECK_MS = 2_000;

/** What /readyz found: each dependency "ok", or why it is not. */
export const Readiness = z
  .object({
    status: z.enum(["ready", "not ready"]),
    checks: z.object({ temporal: z.string(), store: z.string() }),
  })
  .openapi("Readiness");

/** The liveness route: 200 while the process serves requests. */
export const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  summary: "Liveness: the app answers",
  security: [],
  responses: {
    200: {
      description: "The app answers.",
      content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } },
    },
  },
});

/** The readiness route: 200 when Temporal and the trace store answer, else 503 naming what did not. */
export const readyRoute = createRoute({
  method: "get",
  path: "/readyz",
  summary: "Readiness: Temporal and the trace store answer",
  security: [],
  responses: {
    200: { description: "Both answer.", content: { "application/json": { schema: Readiness } } },
    503: { description: "One of them does not answer.", content: { "application/json": { schema: Readiness } } },
  },
});

/** Add /healthz and /readyz to the app. */
export function healthRoutes(hono: OpenAPIHono<AppEnv>, parts: AppParts): void {
  hono.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
  hono.openapi(readyRoute, async (c) => {
    const [temporal, store] = await Promise.all([
      checked(() => parts.client.workflowService.getSystemInfo({})),
      checked(() => parts.catalog.store.threads({ limit: 1 })),
    ]);
    const ready = temporal === "ok" && store === "ok";
    c.header("Cache-Control", "no-store");
    return c.json({ status: ready ? "ready" : "not ready", checks: { temporal, store } } as const, ready ? 200 : 503);
  });
}

/** "ok" when `probe` answers within CHECK_MS, else what went wrong (the error's name, not its details). */
async function checked(probe: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${CHECK_MS} ms`), CHECK_MS);
  });
  try {
    return await Promise.race([probe().then(() => "ok"), late]);
  } catch (error) {
    return `unreachable (${error instanceof Error ? error.name : "error"})`;
  } finally {
    clearTimeout(timer);
  }
}
