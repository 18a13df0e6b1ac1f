// An observer only watches: one that raises, in any of its methods, never fails or changes the turn; and
// Observer.run is told of the turn's opening input only while that turn is not over.
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { echo } from "../fixtures/echo-tool.js";
import { InMemoryTraceStore } from "../../src/adapters/index.js";
import { Input, type Event } from "../../src/domain/index.js";
import type { Observer } from "../../src/ports/index.js";
import { AgentCatalog, tool } from "../../src/runtime/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ReActAgent, ReActConfig } from "../../src/toolkit/index.js";

function script() {
  return new ScriptedModel([{ toolCalls: [{ name: "echo", arguments: { words: "hello" } }] }, "Said hello."]);
}

/** A turn of one tool call and an answer, run with `observer`; the trace's events without their timestamps. */
async function turn(observer?: Observer) {
  const agent = new ReActAgent(new ReActConfig({ model: script(), prompt: "Answer.", tools: [echo] }));
  const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test", observer });
  const [thread] = await catalog.open("assistant", Input({ payload: "Echo hello.", model: "scripted" }));
  const trace = await thread.resume();
  return { thread, events: trace.events.map(({ ts: _ts, ...event }: Event) => event) };
}

afterEach(() => vi.restoreAllMocks());

describe("an observer that raises", () => {
  const raising = {
    before: {
      async run() {
        throw new Error("run raised before the body");
      },
    },
    after: {
      async run<T>(_thread: string, _agent: string | null, _opening: Input | null, body: () => Promise<T>) {
        await body();
        throw new Error("run raised after the body");
      },
    },
    sync: {
      run() {
        throw new Error("run raised synchronously");
      },
    },
    skipping: {
      async run() {
        return "not the body's result";
      },
    },
    everywhere: {
      event() {
        throw new Error("event raised");
      },
      call() {
        throw new Error("call raised");
      },
      async run<T>(_thread: string, _agent: string | null, _opening: Input | null, body: () => Promise<T>) {
        const result = await body();
        throw new Error(`run raised after ${String(result)}`);
      },
    },
  } as unknown as Record<string, Observer>;

  for (const [name, observer] of Object.entries(raising)) {
    it(`cannot fail or change the turn (${name})`, async () => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      const expected = (await turn()).events;
      const { events } = await turn(observer);
      expect(events).toEqual(expected);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining("an observer raised and was ignored"));
    });
  }

  it("lets the turn's own error through, once", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const failing = tool({
      name: "echo",
      description: "Say the words back.",
      args: { words: z.string().describe("The words.") },
      async run() {
        throw new Error("the tool broke");
      },
    });
    let calls = 0;
    const observer: Observer = {
      async run(_thread, _agent, _opening, body) {
        calls++;
        return body();
      },
    };
    const agent = new ReActAgent(new ReActConfig({ model: script(), prompt: "Answer.", tools: [failing] }));
    const catalog = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test", observer });
    const [thread] = await catalog.open("assistant", Input({ payload: "Echo hello.", model: "scripted" }));
    await expect(thread.resume()).rejects.toThrow("the tool broke");
    expect(calls).toBe(1);
  });
});

describe("Observer.run's opening", () => {
  it("is the turn's input while the turn runs, and none once the turn is over", async () => {
    const openings: (Input | null)[] = [];
    const observer: Observer = {
      async run(_thread, _agent, opening, body) {
        openings.push(opening);
        return body();
      },
    };
    const { thread } = await turn(observer);
    expect(openings).toEqual([expect.objectContaining({ payload: "Echo hello." })]);
    await thread.resume();
    expect(openings).toHaveLength(2);
    expect(openings[1]).toBeNull();
  });
});
