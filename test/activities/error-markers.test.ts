import { ApplicationFailure } from "@temporalio/common";
import { describe, expect, it, vi } from "vitest";
import { activityFailure } from "../../activities/failures.js";

/** The ports' errors as a second copy of the package defines them: the same source, evaluated again. */
async function secondCopy(): Promise<typeof import("../../src/ports/errors.js")> {
  vi.resetModules();
  return import("../../src/ports/errors.js");
}

describe("the activity error mapping with two copies of the package", () => {
  it("retries a TransientError of the other copy, after the wait its service asked for", async () => {
    const other = await secondCopy();
    const failure = activityFailure(new other.TransientError("429", { retryAfter: 3 })) as ApplicationFailure;
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(3000);
    expect(failure.type).toBe("TransientError");
  });

  it("retries a LeaseHeldError of the other copy, and fails the rest for good", async () => {
    const other = await secondCopy();
    const held = activityFailure(new other.LeaseHeldError("held", { details: { expiresAt: "soon" } }));
    expect((held as ApplicationFailure).nonRetryable).toBe(false);
    const invalid = activityFailure(new other.InvalidQueryError("bad query"));
    expect((invalid as ApplicationFailure).nonRetryable).toBe(true);
  });
});
