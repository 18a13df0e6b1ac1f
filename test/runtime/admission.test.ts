// What the local runner admits before it records an input: the agent's input type and config, a size
// limit, a first call that fits the model's window, a thread that is free. A refused input writes nothing
// and never reaches a model later; the thread stays usable.
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { InMemoryTraceStore } from "../../src/adapters/index.js";
import { Failure, Input, MAX_INPUT_BYTES, ModelOutput, ToolOutput } from "../../src/domain/index.js";
import { LeaseHeldError } from "../../src/ports/index.js";
import { AgentCatalog, InputDeniedError, InputTooLargeError, tool } from "../../src/runtime/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ModelLimits, ReActAgent, ReActConfig, Tokens, type TextTurn } from "../../src/toolkit/index.js";

const SECRET = "What is the admin password?";

/** An assistant whose config refuses any turn that asks for a password, over an in-memory store. */
function guarded(model: ScriptedModel, options: { maxInputBytes?: number; window?: number } = {}) {
  const agent = new ReActAgent<unknown, TextTurn>((_resources, turn) => {
    if (turn.text.includes("password")) throw new InputDeniedError("This assistant does not discuss passwords.");
    return new ReActConfig({
      model,
      prompt: "Answer.",
      ...(options.window ? { limits: new ModelLimits({ window: new Tokens(options.window) }) } : {}),
    });
  });
  const catalog = new AgentCatalog(
    new InMemoryTraceStore(),
    { assistant: agent },
    options.maxInputBytes ? { maxInputBytes: options.maxInputBytes } : {},
  );
  return catalog;
}

const input = (payload: string) => Input({ payload, model: "scripted" });

/** Every text that the model received, across its calls. */
function seenByModel(model: ScriptedModel): string {
  return JSON.stringify(model.requests.map((request) => request.messages));
}

describe("a refused input", () => {
  it("is refused by the config before it is recorded, and never reaches the model on a later turn", async () => {
    const model = new ScriptedModel(["Hello.", "Bulky waste goes out on Mondays."]);
    const catalog = guarded(model);
    const [thread] = await catalog.open("assistant", input("Hi"));
    await thread.resume();
    const before = (await thread.trace()).length;

    await expect(thread.send(input(SECRET))).rejects.toThrow(InputDeniedError);
    expect((await thread.trace()).length).toBe(before);

    const trace = await thread.send(input("When is bulky waste picked up?"));
    expect(trace.byType(ModelOutput).at(-1)?.content).toBe("Bulky waste goes out on Mondays.");
    expect(seenByModel(model)).not.toContain("password");
    expect(trace.byType(Input).map((each) => each.payload)).toEqual(["Hi", "When is bulky waste picked up?"]);
  });

  it("opening a thread with a refused input records nothing: no thread is made", async () => {
    const catalog = guarded(new ScriptedModel([]));
    await expect(catalog.open("assistant", input(SECRET), { threadId: "t1" })).rejects.toThrow(
      "This assistant does not discuss passwords.",
    );
    expect(await catalog.store.threads({ limit: 10 })).toEqual([]);
  });
});

describe("the size limit of an input", () => {
  it("refuses a payload over the default 256 KiB, naming its size and the limit, and the thread goes on", async () => {
    const model = new ScriptedModel(["Hello.", "Still here."]);
    const catalog = guarded(model);
    const [thread] = await catalog.open("assistant", input("Hi"));
    await thread.resume();
    const before = (await thread.trace()).length;
    const huge = "x".repeat(1_500_000);

    const refused = thread.send(input(huge));
    await expect(refused).rejects.toThrow(InputTooLargeError);
    await expect(refused).rejects.toThrow(
      `The input is 1500002 bytes as JSON, over the limit of ${MAX_INPUT_BYTES} bytes`,
    );
    expect(MAX_INPUT_BYTES).toBe(256 * 1024);
    expect((await thread.trace()).length).toBe(before);
    expect((await thread.send(input("Are you there?"))).byType(ModelOutput).at(-1)?.content).toBe("Still here.");
  });

  it("follows the catalog's maxInputBytes, counting UTF-8 bytes, and refuses a limit that is no positive integer", async () => {
    const catalog = guarded(new ScriptedModel(["Fits."]), { maxInputBytes: 100 });
    // 40 euro signs are 120 bytes in UTF-8 (3 each), though 40 characters.
    await expect(catalog.open("assistant", input("€".repeat(40)), { threadId: "t1" })).rejects.toThrow(
      "The input is 122 bytes as JSON, over the limit of 100 bytes",
    );
    expect(await catalog.store.threads({ limit: 10 })).toEqual([]);
    const [thread] = await catalog.open("assistant", input("€".repeat(30)));
    expect((await thread.resume()).byType(ModelOutput).at(-1)?.content).toBe("Fits.");
    expect(() => new AgentCatalog(new InMemoryTraceStore(), {}, { maxInputBytes: 0 })).toThrow(/maxInputBytes/);
  });

  it("refuses an input whose first call would not fit the model's window even alone; the thread stays usable", async () => {
    const model = new ScriptedModel(["Hello.", "Still here."]);
    const catalog = guarded(model, { window: 10_000 });
    const [thread] = await catalog.open("assistant", input("Hi"));
    await thread.resume();
    const before = (await thread.trace()).length;
    // About 50,000 characters: under the byte limit, far over a 10,000-token window with its 8,192-token output reserve.
    const refused = thread.send(input("word ".repeat(10_000)));
    await expect(refused).rejects.toThrow(InputTooLargeError);
    await expect(refused).rejects.toThrow(
      /The input alone makes a first call .* does not fit in the window of 10000 tokens/,
    );
    expect((await thread.trace()).length).toBe(before);
    expect((await thread.send(input("Are you there?"))).byType(ModelOutput).at(-1)?.content).toBe("Still here.");
    expect(model.requests).toHaveLength(2);
  });
});

describe("the lease of a local run", () => {
  // Six seconds of the lease's life pass on fake timers: the renewal interval, the tool's pauses and the
  // store's clock (Date.now) all move only when the test advances them.
  afterEach(() => void vi.useRealTimers());

  it("stays renewed through a tool call three times the catalog's leaseSeconds: no other owner takes the thread", async () => {
    const refusals: string[] = [];
    const store = new InMemoryTraceStore();
    const slow = tool({
      name: "slow",
      description: "Think for a while.",
      args: { about: z.string().describe("What to think about.") },
      async run({ about }) {
        for (let tick = 0; tick < 12; tick += 1) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          const [threadId] = (await store.threads({ limit: 1 })).map(([id]) => id);
          await store.acquire(threadId!, { owner: "intruder", ttl: 1 }).then(
            async (taken) => (await store.release(taken), refusals.push("taken")),
            (error: unknown) => refusals.push(LeaseHeldError.isInstance(error) ? "held" : String(error)),
          );
        }
        return ToolOutput({ text: `Thought about ${about}.` });
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "slow", arguments: { about: "bins" } }] }, "Done."]);
    const agent = new ReActAgent(new ReActConfig({ model, prompt: "Answer.", tools: [slow] }));
    const catalog = new AgentCatalog(store, { assistant: agent }, { leaseSeconds: 2 });
    const [thread] = await catalog.open("assistant", input("Think about bins."));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const running = thread.resume();
    await vi.advanceTimersByTimeAsync(12 * 500);
    const trace = await running;
    expect(refusals).toEqual(Array(12).fill("held"));
    expect(trace.byType(ModelOutput).at(-1)?.content).toBe("Done.");
    expect(trace.byType(Failure)).toEqual([]);
    expect(() => new AgentCatalog(store, {}, { leaseSeconds: 0 })).toThrow(/leaseSeconds/);
  });
});

describe("send and open", () => {
  it("a send while another runner holds the thread's lease is refused with LeaseHeldError and writes nothing", async () => {
    const model = new ScriptedModel(["Hello.", "After the other turn."]);
    const catalog = guarded(model);
    const [thread] = await catalog.open("assistant", input("Hi"));
    await thread.resume();
    const before = (await thread.trace()).length;
    // A running Temporal turn holds the lease the same way.
    const other = await catalog.store.acquire(thread.id, { owner: "soev-thread-x/run#2", ttl: 60 });

    await expect(thread.send(input("Anyone?"))).rejects.toThrow(LeaseHeldError);
    expect((await thread.trace()).length).toBe(before);
    expect(model.requests).toHaveLength(1);

    await catalog.store.release(other);
    const trace = await thread.send(input("Anyone?"));
    expect(trace.byType(ModelOutput).at(-1)?.content).toBe("After the other turn.");
  });

  it("open refuses a thread id that has events, writing nothing, and says how to continue it", async () => {
    const catalog = guarded(new ScriptedModel(["Hello."]));
    const [thread] = await catalog.open("assistant", input("Hi"), { threadId: "t1" });
    await thread.resume();
    const before = (await thread.trace()).length;
    await expect(catalog.open("assistant", input("Hi again"), { threadId: "t1" })).rejects.toThrow(
      'Thread "t1" has events already: open starts a new thread. Continue this one with',
    );
    expect((await thread.trace()).length).toBe(before);
  });
});
