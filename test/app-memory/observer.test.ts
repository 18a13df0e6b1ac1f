// The app and its observer, as the reference says: an Observer.request that raises (before, after, or without
// calling the request) is logged and the request is answered as without it; the app's close calls Observer.close.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Observer } from "../../src/ports/observer.js";
import { memoryApp } from "../fixtures/app/memory-app.js";

const ALICE = { authorization: "Bearer alice-key" };

afterEach(() => vi.restoreAllMocks());

describe("the app's observer", () => {
  const failing: [string, Observer["request"]][] = [
    ["before the request", async () => Promise.reject(new Error("observer down"))],
    ["after the request", async (_headers, body) => (await body(), Promise.reject(new Error("late")))],
    ["without calling the request", (async () => undefined) as unknown as Observer["request"]],
  ];
  for (const [when, request] of failing)
    it(`that fails ${when} is logged, and the request is answered once as without it`, async () => {
      const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      const { app } = await memoryApp({ observer: { request } });
      const response = await app.hono.request("/agents", { headers: ALICE });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { agents: string[] }).agents.length).toBeGreaterThan(0);
      expect(warned.mock.calls.flat().join(" ")).toMatch(/an observer raised and was ignored/);
      await app.close();
    });

  it("is closed when the app closes, and a close that raises is logged", async () => {
    const close = vi.fn(() => Promise.reject(new Error("flush failed")));
    const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const { app } = await memoryApp({ observer: { close } });
    await app.close();
    expect(close).toHaveBeenCalledTimes(1);
    expect(warned.mock.calls.flat().join(" ")).toContain("flush failed");
  });
});
