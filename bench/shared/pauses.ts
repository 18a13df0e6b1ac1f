/**
 * The garbage collector's pauses on the main thread, as PerformanceObserver reports them: each one is heard
 * after it ends, so a script awaits `caughtUp()` before it counts those within the spans it measured.
 */
import { PerformanceObserver } from "node:perf_hooks";

/** A stretch of time, [start, end) in performance.now() milliseconds. */
export type Span = readonly [number, number];

/** Each pause heard so far: when it started and how long it took. */
export const pauses: { at: number; ms: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push({ at: entry.startTime, ms: entry.duration });
}).observe({ entryTypes: ["gc"] });

/** Whether `at` falls within any of `spans`. */
export function within(at: number, spans: readonly Span[]): boolean {
  return spans.some(([from, to]) => at >= from && at < to);
}

/** Let the observer hear of the pauses that ended before now. */
export function caughtUp(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 100));
}
