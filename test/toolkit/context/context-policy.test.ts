import { describe, expect, it } from "vitest";
import { ValueError } from "../../../src/domain/errors.js";
import { Compact } from "../../../src/toolkit/context/compact.js";
import { ContextPolicy, CURRENT_TURN, NEVER } from "../../../src/toolkit/context/context-policy.js";
import { cited, Floor, Compress, Stub, type SelectionShrink, turns } from "../../../src/toolkit/context/shrink.js";
import {
  COMPRESSED,
  FULL,
  STUBBED,
  Forms,
  asRecorded,
  dropText,
  sources,
  cap,
} from "../../../src/toolkit/context/forms.js";
import { ModelLimits, Share, Tokens } from "../../../src/toolkit/context/limits.js";
import { Reopen } from "../../../src/toolkit/context/reopen.js";

describe("ContextPolicy defaults", () => {
  const policy = new ContextPolicy();

  it("has every default of the reference", () => {
    expect(policy.startAt).toEqual(new Share(0.6));
    expect(policy.target).toEqual(new Share(0.4));
    expect(policy.minGain).toEqual(new Share(0.1));
    expect(policy.compact).toBeNull();
    expect(policy.full).toBe(asRecorded);
    expect(policy.compressed).toBe(dropText);
    expect(policy.tools).toEqual({});
    expect(policy.resultCap).toEqual(new Tokens(8000));
    expect(policy.outputReserve).toEqual(new Tokens(8192));
    expect(policy.reasoning).toBe(NEVER);
    expect(policy.maxImages).toBeNull();
    expect(policy.reopen).toBeInstanceOf(Reopen);
    expect(policy.reopen?.name).toBe("reopen");
  });

  it("protects each cited Source at FULL", () => {
    expect(policy.protect).toHaveLength(1);
    expect(policy.protect[0]!.applies).toBe(cited);
    expect(policy.protect[0]!.form).toBe(FULL);
  });

  it("compresses all but the last two turns, stubs all but the last four, and the last three above Share(0.85)", () => {
    const shrinks = policy.shrink as SelectionShrink[];
    expect(shrinks.map(String)).toEqual([
      "Compress(turns.slice(0, -2))",
      "Stub(turns.slice(0, -4))",
      "Stub(turns.slice(-3), { when: Share(0.85) })",
    ]);
    expect(shrinks.map((shrink) => shrink.when)).toEqual([null, null, new Share(0.85)]);
  });

  it("replaces a default whole: a given field adds nothing to it", () => {
    const own = new ContextPolicy({ shrink: [Stub(turns.slice(0, -1))], protect: [] });
    expect(own.shrink).toHaveLength(1);
    expect(own.protect).toEqual([]);
  });
});

describe("ContextPolicy checks", () => {
  it("refuses a target that is not below startAt when both are Tokens or both Shares", () => {
    expect(() => new ContextPolicy({ startAt: new Tokens(500), target: new Tokens(500) })).toThrow(ValueError);
    expect(() => new ContextPolicy({ startAt: new Share(0.5), target: new Share(0.7) })).toThrow(/below startAt/);
    expect(new ContextPolicy({ startAt: new Tokens(500), target: new Tokens(250) }).target).toEqual(new Tokens(250));
  });

  it("checks a Share against Tokens in the window of the model the call goes to", () => {
    const policy = new ContextPolicy({ startAt: new Tokens(10_000), target: new Share(0.5) });
    expect(() => policy.thresholds(new ModelLimits({ window: new Tokens(100_000) }))).toThrow(ValueError);
    expect(policy.thresholds(new ModelLimits({ window: new Tokens(10_000) }))).toEqual({
      startAt: 10_000,
      target: 5_000,
    });
  });

  it("refuses a negative or fractional maxImages", () => {
    expect(() => new ContextPolicy({ maxImages: -1 })).toThrow(ValueError);
    expect(() => new ContextPolicy({ maxImages: 1.5 })).toThrow(ValueError);
    expect(new ContextPolicy({ maxImages: 0 }).maxImages).toBe(0);
  });

  it("refuses settings of the wrong kind", () => {
    expect(() => new ContextPolicy({ startAt: 0.6 as never })).toThrow(ValueError);
    expect(() => new ContextPolicy({ shrink: ["compress"] as never })).toThrow(ValueError);
    expect(() => new ContextPolicy({ protect: [cited] as never })).toThrow(ValueError);
    expect(() => new ContextPolicy({ tools: { search: { cap: null } } as never })).toThrow(ValueError);
    expect(() => new ContextPolicy({ compact: { when: new Share(0.8) } as never })).toThrow(ValueError);
    expect(() => new ContextPolicy({ reasoning: "sometimes" as never })).toThrow(ValueError);
    expect(() => new ContextPolicy({ resultCap: 100 as never })).toThrow(ValueError);
    expect(() => Compress(turns.slice(0, -2), { when: 0.8 as never })).toThrow(ValueError);
    expect(() => new Floor(cited, 3 as never)).toThrow(ValueError);
    expect(() => new Forms({ cap: 100 as never })).toThrow(ValueError);
  });

  it("accepts a compact and a reasoning setting", () => {
    const policy = new ContextPolicy({ compact: new Compact(), reasoning: CURRENT_TURN, reopen: null });
    expect(policy.compact?.when).toEqual(new Share(0.8));
    expect(policy.reopen).toBeNull();
  });
});

describe("shortenFor and capFor", () => {
  const readForms = new Forms({ full: sources(cap(new Tokens(500))), cap: null });
  const policy = new ContextPolicy({
    tools: { read_document: readForms, search: new Forms({ cap: new Tokens(100) }) },
  });

  it("gives a tool's own function, else the policy's", () => {
    expect(policy.shortenFor("read_document", FULL)).toBe(readForms.full);
    expect(policy.shortenFor("read_document", COMPRESSED)).toBe(dropText);
    expect(policy.shortenFor("other", FULL)).toBe(asRecorded);
  });

  it("gives the compressed function for any form below FULL", () => {
    expect(policy.shortenFor("other", STUBBED)).toBe(dropText);
  });

  it('gives a tool\'s own cap, null to never cut, and resultCap for "policy" or no Forms', () => {
    expect(policy.capFor("read_document")).toBeNull();
    expect(policy.capFor("search")).toEqual(new Tokens(100));
    expect(policy.capFor("other")).toEqual(new Tokens(8000));
    expect(new ContextPolicy({ tools: { x: new Forms() }, resultCap: null }).capFor("x")).toBeNull();
  });
});
