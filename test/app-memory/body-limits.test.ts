// Every route that takes a body refuses one past the byte limit with 413, before it reads the thread or
// starts anything: the trace is the same after (issue 61: the limit mounted on /threads only passed).
import { describe, expect, it } from "vitest";
import { memoryApp } from "../fixtures/app/memory-app.js";

const ALICE = { authorization: "Bearer alice-key", "content-type": "application/json" };
const BIG = JSON.stringify({ agent: "assistant", input: "x".repeat(4000), answer: "x".repeat(4000) });

async function snapshot(store: Awaited<ReturnType<typeof memoryApp>>["store"]) {
  const events = [];
  for await (const entry of store.read("alice-thread")) events.push(entry);
  return { threads: await store.threads({ limit: 100 }), events };
}

describe("the body limit", () => {
  for (const path of ["/threads", "/threads/alice-thread/turns", "/threads/alice-thread/requests/some-request"]) {
    it(`answers 413 to an oversized body on POST ${path}, and records nothing`, async () => {
      const { app, store } = await memoryApp();
      const before = await snapshot(store);
      const response = await app.hono.request(path, { method: "POST", headers: ALICE, body: BIG });
      expect(response.status).toBe(413);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(((await response.json()) as { limit: number }).limit).toBe(2048);
      expect(await snapshot(store)).toEqual(before);
      await app.close();
    });
  }

  it("answers 413 to an oversized chunked body without a Content-Length", async () => {
    const { app } = await memoryApp();
    const body = new ReadableStream({
      start(controller) {
        for (let index = 0; index < 4; index++) controller.enqueue(new TextEncoder().encode("x".repeat(1000)));
        controller.close();
      },
    });
    const response = await app.hono.request("/threads/alice-thread/turns", {
      method: "POST",
      headers: ALICE,
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    await app.close();
  });
});
