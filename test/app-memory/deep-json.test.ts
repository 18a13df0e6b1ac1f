// A JSON body nested thousands deep is the caller's mistake: 400 problem details on every route that
// takes a body, never a 500 with a RangeError; and a 500's detail holds no secret.
import { describe, expect, it } from "vitest";
import { jsonDepth, MAX_JSON_DEPTH } from "../../src/app/json-depth.js";
import { memoryApp } from "../fixtures/app/memory-app.js";

const ALICE = { authorization: "Bearer alice-key", "content-type": "application/json" };
const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

describe("deeply nested JSON", () => {
  it("answers 400 problem details on each route that takes a body, and records nothing", async () => {
    const { app, store } = await memoryApp({ limits: { bodyBytes: 65_536 } });
    const bodies = [
      `{"agent":"assistant","input":${deep(5000)}}`,
      deep(5000),
      `{"agent":"chat","input":{"text":"x","tools":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}}`,
    ];
    for (const path of ["/threads", "/threads/alice-thread/turns", "/threads/alice-thread/requests/r1"]) {
      for (const body of bodies) {
        const response = await app.hono.request(path, { method: "POST", headers: ALICE, body });
        expect(response.status, path).toBe(400);
        expect(response.headers.get("content-type")).toContain("application/problem+json");
        const problem = (await response.json()) as { title: string; detail: string; limit: number };
        expect(problem.title).toBe("JSON nested too deep");
        expect(problem.detail).toMatch(/5001 levels deep|5000 levels deep|5002 levels deep/);
        expect(problem.detail).not.toMatch(/RangeError|stack/);
        expect(problem.limit).toBe(MAX_JSON_DEPTH);
      }
    }
    expect(await store.threads({ limit: 10 })).toHaveLength(1);
    await app.close();
  });

  it("counts nesting outside strings only, escapes included", () => {
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonDepth(JSON.stringify({ text: deep(200) }))).toBe(1);
    expect(jsonDepth(JSON.stringify({ text: `\\"${deep(200)}` }))).toBe(1);
    expect(jsonDepth("not json")).toBe(0);
  });

  it("scrubs a secret out of a 500's detail", async () => {
    const { app } = await memoryApp({
      principalOf: () => {
        throw new Error("keys table down: postgres://soev:hunter2@db.internal/app");
      },
    });
    const response = await app.hono.request("/threads", { headers: { authorization: "Bearer x" } });
    expect(response.status).toBe(500);
    const { detail } = (await response.json()) as { detail: string };
    expect(detail).toContain("postgres://[redacted]@db.internal/app");
    expect(detail).not.toContain("hunter2");
    await app.close();
  });
});
