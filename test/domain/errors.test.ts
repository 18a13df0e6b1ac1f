import { describe, expect, it, vi } from "vitest";
import { CallerError, OutsideWorldError, SoevError, ValueError } from "../../src/domain/errors.js";
import { LeaseHeldError, TransientError } from "../../src/ports/errors.js";

/** The ports' errors as a second copy of the package defines them: the same source, evaluated again. */
async function secondCopy(): Promise<typeof import("../../src/ports/errors.js")> {
  vi.resetModules();
  return import("../../src/ports/errors.js");
}

describe("error markers", () => {
  it("tell an error of another copy of the package by its class, where instanceof cannot", async () => {
    const other = await secondCopy();
    const error = new other.TransientError("down", { retryAfter: 2 });
    expect(other.TransientError).not.toBe(TransientError);
    expect(error instanceof TransientError).toBe(false);
    expect(TransientError.isInstance(error)).toBe(true);
    expect(OutsideWorldError.isInstance(error)).toBe(true);
    expect(SoevError.isInstance(error)).toBe(true);
    expect(CallerError.isInstance(error)).toBe(false);
    expect(LeaseHeldError.isInstance(error)).toBe(false);
  });

  it("hold for a class and the classes above it, not for a sibling or a plain error", () => {
    const error = new ValueError("bad");
    expect(ValueError.isInstance(error)).toBe(true);
    expect(CallerError.isInstance(error)).toBe(true);
    expect(SoevError.isInstance(error)).toBe(true);
    expect(OutsideWorldError.isInstance(error)).toBe(false);
    expect(TransientError.isInstance(new Error("down"))).toBe(false);
    expect(TransientError.isInstance(null)).toBe(false);
    expect(TransientError.isInstance("TransientError")).toBe(false);
  });

  it("mark a subclass an application declares", () => {
    class QuotaError extends TransientError {}
    const error = new QuotaError("quota");
    expect(QuotaError.isInstance(error)).toBe(true);
    expect(TransientError.isInstance(error)).toBe(true);
    expect(QuotaError.isInstance(new TransientError("down"))).toBe(false);
  });
});
