// /healthz and /readyz through the app's fetch: ready on the run's dev server and a live store; not ready,
// naming which, when Temporal does not answer or the store is closed. Neither needs an API key.
import { Client, Connection } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemoryTraceStore, SqliteTraceStore } from "../../src/adapters/index.js";
import { createApp } from "../../src/app/app.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import type { TraceStore } from "../../src/ports/store.js";
import { connectClient, type TestClient } from "../support/temporal.js";

let temporal: TestClient;
beforeAll(async () => {
  temporal = await connectClient();
});
afterAll(() => temporal.close());

function appOn(client: Client, store: TraceStore) {
  return createApp({ client, catalog: new AgentCatalog(store, {}), principalOf: () => null });
}

async function get(app: ReturnType<typeof appOn>, path: string) {
  const response = await app.fetch(new Request(`http://localhost${path}`));
  return { status: response.status, body: (await response.json()) as unknown };
}

describe("health and readiness", () => {
  it("answers live and ready, without an API key, when Temporal and the store answer", async () => {
    const app = appOn(temporal.client, new InMemoryTraceStore());
    expect(await get(app, "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    expect(await get(app, "/readyz")).toEqual({
      status: 200,
      body: { status: "ready", checks: { temporal: "ok", store: "ok" } },
    });
  });

  it("is not ready, naming Temporal, when no server answers at its address", async () => {
    const connection = await Connection.lazy({ address: "127.0.0.1:1", connectTimeout: 500 });
    const app = appOn(new Client({ connection }), new InMemoryTraceStore());
    const ready = await get(app, "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: "not ready", checks: { store: "ok" } });
    expect((ready.body as { checks: { temporal: string } }).checks.temporal).not.toBe("ok");
    expect((await get(app, "/healthz")).status).toBe(200);
    await connection.close();
  });

  it("is not ready, naming the store, when the store is closed", async () => {
    const store = new SqliteTraceStore(":memory:");
    await store.close();
    const ready = await get(appOn(temporal.client, store), "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: "not ready", checks: { temporal: "ok" } });
    expect((ready.body as { checks: { store: string } }).checks.store).toMatch(/^unreachable/);
  });

  it("are in the OpenAPI document, with no security", async () => {
    const document = (await get(appOn(temporal.client, new InMemoryTraceStore()), "/openapi.json")).body as {
      paths: Record<string, { get: { security: unknown[] } }>;
    };
    expect(document.paths["/healthz"]!.get.security).toEqual([]);
    expect(document.paths["/readyz"]!.get.security).toEqual([]);
  });
});
