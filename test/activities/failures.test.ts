// Whether Temporal retries an activity's error: decided by the error's `retryable` (its fault), and for
// an error that is no SoevError by a network or lock code on it or anywhere on its `cause` chain.
import { ApplicationFailure } from "@temporalio/common";
import { describe, expect, it } from "vitest";
import { activityFailure, isRetryable, passingCode } from "../../activities/failures.js";
import { ValueError } from "../../src/domain/errors.js";
import { LeaseExpiredError, LeaseHeldError, TransientError } from "../../src/ports/errors.js";
import { InputDeniedError, UnknownAgentError } from "../../src/runtime/errors.js";
import { ThreadMovedError } from "../../src/temporal/errors.js";

/** fetch's failure: a TypeError whose cause is undici's socket error, whose cause may be Node's. */
function fetchFailed(code: string, nested = false): TypeError {
  const socket = Object.assign(new Error("other side closed"), { code: nested ? "UND_ERR_SOMETHING" : code });
  if (nested) (socket as { cause?: unknown }).cause = Object.assign(new Error("read ECONNRESET"), { code });
  return new TypeError("fetch failed", { cause: socket });
}

const failureOf = (error: unknown) => activityFailure(error) as ApplicationFailure;

describe("activityFailure", () => {
  it("retries fetch's failure when its cause carries UND_ERR_SOCKET, or ECONNRESET one cause deeper", () => {
    expect(failureOf(fetchFailed("UND_ERR_SOCKET"))).toMatchObject({ type: "TypeError", nonRetryable: false });
    expect(failureOf(fetchFailed("ECONNRESET", true))).toMatchObject({ type: "TypeError", nonRetryable: false });
    expect(passingCode(fetchFailed("ECONNRESET", true))).toBe("ECONNRESET");
  });

  it("retries a code on an AggregateError's errors (every address refused the connection)", () => {
    const refused = new AggregateError([Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })]);
    expect(isRetryable(refused)).toBe(true);
  });

  it("does not retry a plain error without a passing code, nor a cause chain that loops", () => {
    expect(failureOf(new TypeError("x is not a function")).nonRetryable).toBe(true);
    const looping = new Error("a");
    (looping as { cause?: unknown }).cause = looping;
    expect(isRetryable(looping)).toBe(false);
  });

  it("decides a SoevError by its retryable, whatever its cause: the fault is the error's", () => {
    const socket = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    expect(failureOf(new ValueError("bad", { cause: socket })).nonRetryable).toBe(true);
    expect(failureOf(new InputDeniedError("refused")).nonRetryable).toBe(true);
    expect(failureOf(new ThreadMovedError("moved")).nonRetryable).toBe(true);
    expect(failureOf(new LeaseExpiredError("replaced")).nonRetryable).toBe(true);
    expect(failureOf(new TransientError("down", { retryAfter: 7 }))).toMatchObject({
      type: "TransientError",
      nonRetryable: false,
      nextRetryDelay: 7000,
    });
  });

  it("retries UnknownAgentError, so a worker of another version can take the activity", () => {
    expect(failureOf(new UnknownAgentError('No agent "helpdesk" in this catalog.'))).toMatchObject({
      type: "UnknownAgentError",
      nonRetryable: false,
    });
  });

  it("retries LeaseHeldError after the lease expires", () => {
    const expiresAt = Date.now() + 30_000;
    const failure = failureOf(new LeaseHeldError("held", { details: { expiresAt } }));
    expect(failure.nonRetryable).toBe(false);
    expect(Number(failure.nextRetryDelay)).toBeGreaterThan(20_000);
  });
});
