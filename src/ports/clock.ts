/** Clock: where the catalog, the local runner and the stores read the time, so that tests can set it. */

/** The time source: milliseconds since the epoch, as Date.now(). */
export interface Clock {
  /** The time, in milliseconds since the epoch. */
  now(): number;
}

/** The machine's clock, the default everywhere a Clock is accepted. */
export const SYSTEM_CLOCK: Clock = { now: () => Date.now() };
