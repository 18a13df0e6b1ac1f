// GET /threads lists the caller's threads through the store's index per principal: one page asked with
// the principal, however many threads other principals opened.
import { describe, expect, it } from "vitest";
import { EventTypes } from "../../src/domain/registry.js";
import { Input } from "../../src/domain/events.js";
import type { ThreadsOptions } from "../../src/ports/store.js";
import { memoryApp } from "../fixtures/app/memory-app.js";

describe("GET /threads", () => {
  it("asks the store once for the caller's threads, never for everyone's", async () => {
    const { app, store } = await memoryApp();
    const types = new EventTypes();
    for (let index = 0; index < 250; index++)
      await store.append(`bob-${index}`, [
        types.check({ ...Input({ payload: "hi", principal: "bob" }), origin: "chat" }),
      ]);
    const asked: ThreadsOptions[] = [];
    const threads = store.threads.bind(store);
    store.threads = (options) => {
      asked.push(options);
      return threads(options);
    };
    const response = await app.hono.request("/threads?limit=5", { headers: { authorization: "Bearer alice-key" } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { threads: { threadId: string; agent: string; input: unknown }[] };
    expect(body.threads).toEqual([
      expect.objectContaining({
        threadId: "alice-thread",
        agent: "assistant",
        input: "How often is bulky waste picked up?",
      }),
    ]);
    expect(asked).toEqual([{ limit: 5, principal: "alice" }]);
    const bobs = (await (
      await app.hono.request("/threads?limit=100", { headers: { authorization: "Bearer bob-key" } })
    ).json()) as {
      threads: { threadId: string }[];
    };
    expect(bobs.threads).toHaveLength(100);
    expect(bobs.threads.every((thread) => thread.threadId.startsWith("bob-"))).toBe(true);
    await app.close();
  });
});
