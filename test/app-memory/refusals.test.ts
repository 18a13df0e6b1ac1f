// What the app refuses before a turn starts, in memory (app.hono.request, no server, no Temporal): a missing or
// unknown key (401), another principal's thread (404 on every route), a body that is not what the route takes
// (422 naming the field, 400 for broken JSON). Each answer is a problem (RFC 9457) and nothing is recorded.
import { describe, expect, it } from "vitest";
import { memoryApp, type MemoryApp } from "../fixtures/app/memory-app.js";

const JSON_BODY = { "content-type": "application/json" };
const ALICE = { authorization: "Bearer alice-key", ...JSON_BODY };
const BOB = { authorization: "Bearer bob-key", ...JSON_BODY };

/** Every route of a thread, as [method, path, body]. */
const THREAD_ROUTES: [string, string, unknown][] = [
  ["GET", "/threads/alice-thread", undefined],
  ["GET", "/threads/alice-thread/events", undefined],
  ["GET", "/threads/alice-thread/calls/1", undefined],
  ["GET", "/threads/alice-thread/requests", undefined],
  ["POST", "/threads/alice-thread/turns", { input: "And parking?" }],
  ["POST", "/threads/alice-thread/cancel", {}],
  ["POST", "/threads/alice-thread/requests/some-request", { answer: "yes" }],
];

async function call(app: MemoryApp["app"], method: string, path: string, headers: object, body?: unknown) {
  return app.hono.request(path, {
    method,
    headers: headers as Record<string, string>,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** What the store holds: the threads and alice's events. */
async function recorded({ store }: MemoryApp) {
  const events = [];
  for await (const entry of store.read("alice-thread")) events.push(entry);
  return { threads: await store.threads({ limit: 100 }), events };
}

/** A problem's fields, after checking its media type and that it says what was wrong. */
async function problem(response: Response, status: number) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/problem+json");
  const body = (await response.json()) as { title: string; status: number; detail: string; field?: string };
  expect(body.status).toBe(status);
  expect(body.title.length).toBeGreaterThan(0);
  expect(body.detail.length).toBeGreaterThan(0);
  return body;
}

describe("the app in memory refuses", () => {
  it("a request without a key, with an unknown key or another scheme: 401 on every route, saying to send a Bearer key", async () => {
    const memory = await memoryApp();
    const before = await recorded(memory);
    const routes: [string, string, unknown][] = [
      ["GET", "/threads", undefined],
      ["POST", "/threads", {}],
      ...THREAD_ROUTES,
    ];
    for (const [method, path, body] of routes)
      for (const headers of [
        JSON_BODY,
        { authorization: "Bearer nobody", ...JSON_BODY },
        { authorization: "Basic YTpi" },
      ]) {
        const refused = await problem(await call(memory.app, method, path, headers, body), 401);
        expect(refused.detail).toMatch(/Bearer/);
      }
    expect(await recorded(memory)).toEqual(before);
    await memory.app.close();
  });

  it("another principal's thread: 404 on every route, the same answer as a thread that does not exist", async () => {
    const memory = await memoryApp();
    const before = await recorded(memory);
    for (const [method, path, body] of THREAD_ROUTES) {
      const hidden = await problem(await call(memory.app, method, path, BOB, body), 404);
      const missing = await problem(
        await call(memory.app, method, path.replace("alice-thread", "no-thread"), BOB, body),
        404,
      );
      expect(hidden.title).toBe(missing.title);
      expect(hidden.detail.replace("alice-thread", "no-thread")).toBe(missing.detail);
    }
    expect(await recorded(memory)).toEqual(before);
    await memory.app.close();
  });

  it("a body the route does not take: 422 naming the field, 400 for broken JSON, and records nothing", async () => {
    const memory = await memoryApp();
    const before = await recorded(memory);
    const cases: [unknown, string][] = [
      [{ input: "Hi" }, "agent"],
      [{ agent: "assistant", input: 42 }, "input"],
      [{ agent: "assistant", input: "Hi", model: 7 }, "model"],
    ];
    for (const [body, field] of cases)
      expect((await problem(await call(memory.app, "POST", "/threads", ALICE, body), 422)).field).toBe(field);
    const turn = await problem(
      await call(memory.app, "POST", "/threads/alice-thread/turns", ALICE, { input: [] }),
      422,
    );
    expect(turn.field).toBe("input");
    const broken = await problem(await call(memory.app, "POST", "/threads", ALICE, "{not json"), 400);
    expect(broken.detail).toMatch(/JSON/);
    expect(await recorded(memory)).toEqual(before);
    await memory.app.close();
  });
});
