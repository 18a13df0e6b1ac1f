// What a turn cost and the budgets the runner keeps: usage summed per turn and thread from the trace (estimated,
// and marked so, where the provider reported none), costs under a price table, and limits checked before each
// model call (the turn ends with a BudgetExceededError Failure) and before an input is recorded.
import { describe, expect, it } from "vitest";
import { InMemoryTraceStore } from "../../src/adapters/stores/memory.js";
import { Failure, Input, ModelOutput } from "../../src/domain/events.js";
import { costOf, costOfEvents, PRICES, priceOf } from "../../src/domain/prices.js";
import { usageByTurn, usageOf, usageOfCall } from "../../src/domain/usage.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { BudgetExceededError, type SpendingLimits } from "../../src/runtime/spending.js";
import { LOOPER_USAGE, looperCatalog } from "../fixtures/looper.js";

const USAGE = LOOPER_USAGE;

const looping = (spending: SpendingLimits) => looperCatalog(new InMemoryTraceStore(), spending);

const input = (text: string) => Input({ payload: text, model: "gpt-4.1-mini" });

describe("usage from the trace", () => {
  const calls = [
    ModelOutput({ usage: { promptTokens: 100, completionTokens: 20, cachedTokens: 60 }, model: "gpt-4.1" }),
    ModelOutput({ usage: null, promptCharacters: 400, content: "12345678", model: "claude-sonnet-4-5" }),
  ];

  it("sums reported usage per call, turn and thread, and estimates (marked) where none was reported", () => {
    expect(usageOfCall(calls[1]!)).toEqual({ promptTokens: 100, completionTokens: 3, estimated: true });
    const thread = [input("a"), calls[0]!, input("b"), calls[1]!];
    expect(usageByTurn(thread).map((turn) => [turn.calls, turn.totalTokens, turn.estimatedCalls])).toEqual([
      [1, 120, 0],
      [1, 103, 1],
    ]);
    expect(usageOf(thread)).toMatchObject({ calls: 2, promptTokens: 200, cachedTokens: 60, totalTokens: 223 });
  });

  it("costs each call at its model's price, cached input at its own, and counts calls of unpriced models", () => {
    expect(priceOf(PRICES, "openai:gpt-4.1-2025-04-14")).toEqual(PRICES.models["gpt-4.1"]);
    // 40 input at $2, 60 cached at $0.5, 20 output at $8, per million.
    expect(costOf(calls[0]!.usage!, PRICES.models["gpt-4.1"]!)).toBeCloseTo((40 * 2 + 60 * 0.5 + 20 * 8) / 1e6, 12);
    const unpriced = ModelOutput({ usage: USAGE, model: "my-local-llama" });
    expect(costOfEvents([...calls, unpriced], PRICES).unpricedCalls).toBe(1);
  });
});

describe("budgets on the local runner", () => {
  it("end a turn that would loop forever at its token budget, with a recorded Failure and no half call", async () => {
    const catalog = looping({ turnTokens: 500 });
    const [thread] = await catalog.open("looper", input("Go."));
    await expect(thread.resume()).rejects.toThrow(BudgetExceededError);
    const trace = await thread.trace();
    // 110 tokens a call: after 5 calls (550) the sixth is refused before it is made.
    expect(trace.byType(ModelOutput)).toHaveLength(5);
    expect(trace.events.at(-1)).toMatchObject({ type: "failure", error: "BudgetExceededError" });
    expect(trace.byType(Failure)[0]!.message).toMatch(/turnTokens budget is spent: 550 tokens of 500 tokens/);
  });

  it("cap the model calls of a turn, and count dollars at the catalog's prices", async () => {
    const calls = looping({ modelCallsPerTurn: 3 });
    const [capped] = await calls.open("looper", input("Go."));
    await expect(capped.resume()).rejects.toThrow(/modelCallsPerTurn budget is spent: 3 calls of 3 calls/);
    expect((await capped.trace()).byType(ModelOutput)).toHaveLength(3);
    // gpt-4.1-mini: 100 * $0.4 + 10 * $1.6 per million = $0.000056 a call; a $0.0002 turn makes 4 calls.
    const dollars = looping({ turnCost: 0.0002 });
    const [costly] = await dollars.open("looper", input("Go."));
    await expect(costly.resume()).rejects.toThrow(/turnCost budget is spent/);
    expect((await costly.trace()).byType(ModelOutput)).toHaveLength(4);
  });

  it("refuse new input on a thread over its budget, recording nothing", async () => {
    const catalog = looping({ threadTokens: 300 });
    const [thread] = await catalog.open("looper", input("Go."));
    await expect(thread.resume()).rejects.toThrow(BudgetExceededError);
    const before = (await thread.trace()).length;
    await expect(thread.send(input("And again?"))).rejects.toThrow(/threadTokens budget is spent: 330 tokens/);
    expect((await thread.trace()).length).toBe(before);
  });

  it("are checked when the catalog is made", () => {
    const store = new InMemoryTraceStore();
    expect(() => new AgentCatalog(store, {}, { spending: { nobody: { turnTokens: 5 } } })).toThrow(/nobody/);
    expect(() => looping({ turnTokens: -1 })).toThrow(/turnTokens must be a number above 0/);
    expect(() => looping({ tokens: 5 } as SpendingLimits)).toThrow(/Unknown spending limit "tokens"/);
  });
});
