/** ManualClock: a Clock that moves only when the test moves it. */
import type { Clock } from "../ports/clock.js";

/**
 * A Clock for tests of deadlines, leases and budgets: it stands still until `advance`, so a test says how much
 * time passed instead of sleeping. Starts at 2026-01-01T00:00:00Z unless told otherwise.
 */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: number = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  /** The clock's time, in milliseconds since the epoch. */
  now(): number {
    return this.current;
  }

  /** Move the clock forward by `milliseconds` (not backward: a clock that goes back is not one a store meets). */
  advance(milliseconds: number): void {
    if (!(milliseconds >= 0)) throw new RangeError(`advance takes a duration of 0 ms or more, not ${milliseconds}.`);
    this.current += milliseconds;
  }
}
