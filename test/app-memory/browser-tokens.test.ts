// Browser tokens in memory (app.hono.request, no server; a fake clock): POST /threads/{id}/token gives the owner a
// token of that one thread; the stream routes take it as `?token=` until it expires; a token of another thread, an
// expired one, a changed one or one of an app with another secret is a 401 saying to ask for a new one; a token
// opens no other route, mints no token, and another principal gets no token of the thread.
import { describe, expect, it } from "vitest";
import { Input } from "../../src/domain/events.js";
import { EventTypes } from "../../src/domain/registry.js";
import type { Clock } from "../../src/ports/clock.js";
import { memoryApp } from "../fixtures/app/memory-app.js";

const ALICE = { authorization: "Bearer alice-key" };
const BOB = { authorization: "Bearer bob-key" };
const SECRET = "a-secret-of-the-tests-of-32-bytes-or-more";

/** A clock the test moves. */
function fakeClock(start: number): Clock & { at: number } {
  const clock = { at: start, now: () => clock.at };
  return clock;
}

interface Issued {
  token: string;
  threadId: string;
  expiresAt: string;
  events: string;
  uiStream: string;
}

async function issue(app: Awaited<ReturnType<typeof memoryApp>>["app"], threadId = "alice-thread"): Promise<Issued> {
  const response = await app.hono.request(`/threads/${threadId}/token`, { method: "POST", headers: ALICE });
  expect(response.status).toBe(200);
  return (await response.json()) as Issued;
}

/** GET a path; the body of a stream is not read. */
async function get(app: Awaited<ReturnType<typeof memoryApp>>["app"], path: string, headers = {}) {
  const response = await app.hono.request(path, { headers });
  const type = response.headers.get("content-type") ?? "";
  const body = type.includes("problem") ? ((await response.json()) as { title: string; detail: string }) : null;
  await response.body?.cancel().catch(() => undefined);
  return { status: response.status, type, body };
}

describe("browser tokens", () => {
  it("open the thread's streams as ?token= until they expire, then a 401 says to ask for a new one", async () => {
    const clock = fakeClock(Date.parse("2026-01-01T12:00:00Z"));
    const { app } = await memoryApp({ tokenSecret: SECRET, clock, limits: { bodyBytes: 2048, tokenSeconds: 60 } });
    const issued = await issue(app);
    expect(issued.expiresAt).toBe("2026-01-01T12:01:00.000Z");
    expect(issued.events).toBe(
      `http://localhost/threads/alice-thread/events?token=${encodeURIComponent(issued.token)}`,
    );
    expect(issued.uiStream).toContain("/threads/alice-thread/ui-stream?token=");
    clock.at += 59_999;
    for (const url of [issued.events, issued.uiStream]) {
      const open = await get(app, url);
      expect(open.status).toBe(200);
      expect(open.type).toContain("text/event-stream");
    }
    clock.at += 1;
    for (const url of [issued.events, issued.uiStream]) {
      const expired = await get(app, url);
      expect(expired.status).toBe(401);
      expect(expired.type).toContain("application/problem+json");
      expect(expired.body!.detail).toMatch(/expired at 2026-01-01T12:01:00.000Z.*POST \/threads\/\{threadId\}\/token/);
    }
    await app.close();
  });

  it("refuse a token of another thread of the same principal, a changed one and one of another secret, saying why", async () => {
    const { app, store } = await memoryApp({ tokenSecret: SECRET });
    // A second thread of the same principal: her token of the first must not open it.
    await store.append("alice-second", [
      new EventTypes().check({ ...Input({ payload: "And parking?", principal: "alice" }), origin: "assistant" }),
    ]);
    const other = await memoryApp({ tokenSecret: `${SECRET}-other` });
    const { token } = await issue(app);
    const otherToken = (await issue(other.app)).token;
    const [body, signature] = token.split(".") as [string, string];
    const flipped = `${body}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`;
    const cases: [string, string, RegExp][] = [
      ["/threads/alice-second/events", token, /opens thread "alice-thread", not this one/],
      ["/threads/alice-thread/events", flipped, /signature does not match/],
      ["/threads/alice-thread/ui-stream", otherToken, /signature does not match.*SOEV_TOKEN_SECRET/],
      ["/threads/alice-thread/events", "not-a-token", /not a browser token/],
    ];
    for (const [path, given, detail] of cases) {
      const refused = await get(app, `${path}?token=${encodeURIComponent(given)}`);
      expect(refused.status, path).toBe(401);
      expect(refused.body!.title).toBe("Browser token refused");
      expect(refused.body!.detail).toMatch(detail);
    }
    expect(await store.threads({ limit: 10 })).toHaveLength(2);
    await app.close();
    await other.app.close();
  });

  it("open no other route, mint no token, and are not given to another principal", async () => {
    const { app } = await memoryApp({ tokenSecret: SECRET });
    const { token } = await issue(app);
    const query = `?token=${encodeURIComponent(token)}`;
    for (const path of ["/threads/alice-thread", "/threads/alice-thread/requests", "/threads"]) {
      const refused = await get(app, path + query);
      expect(refused.status, path).toBe(401);
      expect(refused.body!.detail).toMatch(/opens only GET .*Authorization: Bearer/);
    }
    const mint = await app.hono.request(`/threads/alice-thread/token${query}`, { method: "POST" });
    expect(mint.status).toBe(401);
    const bob = await app.hono.request("/threads/alice-thread/token", { method: "POST", headers: BOB });
    expect(bob.status).toBe(404);
    await app.close();
  });

  it("are in the OpenAPI document: the token route, and the stream routes' ?token= and security scheme", async () => {
    const { app } = await memoryApp();
    const document = (await (await app.hono.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { security?: unknown; parameters?: { name: string; in: string }[] }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(document.components.securitySchemes.browserToken).toMatchObject({
      type: "apiKey",
      in: "query",
      name: "token",
    });
    expect(document.paths["/threads/{threadId}/token"]!.post).toBeDefined();
    for (const path of ["/threads/{threadId}/events", "/threads/{threadId}/ui-stream"]) {
      const operation = document.paths[path]!.get!;
      expect(operation.security).toEqual([{ apiKey: [] }, { browserToken: [] }]);
      expect(operation.parameters).toContainEqual(expect.objectContaining({ name: "token", in: "query" }));
    }
    expect(document.paths["/threads/{threadId}"]!.get!.security).toBeUndefined();
    await app.close();
  });

  it("need a secret of at least 32 bytes when one is given", async () => {
    await expect(memoryApp({ tokenSecret: "short" })).rejects.toThrow(/at least 32 bytes.*openssl rand -hex 32/);
  });
});
