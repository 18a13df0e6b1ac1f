// MessageBuilder's two constructor forms: the options object, and the reference's positional policy.
import { describe, expect, it } from "vitest";
import { ValueError } from "../../../src/domain/errors.js";
import { ContextPolicy, MessageBuilder, Tokens, xml } from "../../../src/toolkit/index.js";

describe("new MessageBuilder(policy)", () => {
  const policy = new ContextPolicy({ startAt: new Tokens(500), target: new Tokens(250), minGain: null });

  it("takes the policy as its first argument, as the reference writes it", () => {
    expect(new MessageBuilder(policy).policy).toBe(policy);
    expect(new MessageBuilder({ policy }).policy).toBe(policy);
  });

  it("takes the other settings after the policy", () => {
    const show = xml();
    const builder = new MessageBuilder(policy, { show });
    expect(builder.policy).toBe(policy);
    expect(() => new MessageBuilder(policy, { show: "xml" as never })).toThrow(ValueError);
  });

  it("refuses a second policy, and a first argument that is neither a policy nor options, naming both forms", () => {
    expect(() => new MessageBuilder(policy, { policy } as never)).toThrow(ValueError);
    const wrong = () => new MessageBuilder([] as never);
    expect(wrong).toThrow(ValueError);
    expect(wrong).toThrow("new MessageBuilder(policy) or new MessageBuilder({ policy, show, select, ... })");
    expect(() => new MessageBuilder("policy" as never)).toThrow(ValueError);
  });
});
