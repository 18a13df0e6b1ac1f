/**
 * The rules of the TraceStore contract, written once for the three stores: sealing, `expected`, leases
 * with counters, and the order of threads. Each store reads its state, applies a rule, and writes the result.
 */
import type { Stream, LogEntry, StoredEvent } from "../../domain/events.js";
import { LeaseExpiredError, LeaseHeldError, StreamMovedError } from "../../ports/errors.js";
import type { Lease } from "../../ports/store.js";
import type { PreparedEvent, SealedEvent } from "./validation.js";

/** One row of a thread's log, as the stores keep it: a sealed event with its position, payload as JSON text. */
export interface EventRow extends SealedEvent {
  position: number;
}

/** A thread's lease as a store keeps it. `expiresAt` is in milliseconds since the epoch. */
export interface LeaseState {
  owner: string;
  counter: number;
  expiresAt: number;
  released: boolean;
}

/** The streams an append reads the length of: those it writes to and those it expects. */
export function streamsOf(
  events: readonly PreparedEvent[],
  expected?: Readonly<Record<Stream, number>> | null,
): Stream[] {
  return [...new Set([...events.map((event) => event.stream), ...Object.keys(expected ?? {})])];
}

/** Refuse the append when a stream listed in `expected` does not have the length the caller read. */
export function checkExpected(
  threadId: string,
  expected: Readonly<Record<Stream, number>> | null | undefined,
  lengthOf: (stream: Stream) => number,
): void {
  for (const [stream, length] of Object.entries(expected ?? {})) {
    const actual = lengthOf(stream);
    if (actual !== length) {
      throw new StreamMovedError(
        `Stream "${stream}" of thread "${threadId}" has ${actual} events, but the append expected ${length}: nothing was appended. ` +
          "Read the thread again and decide again.",
        { details: { threadId, stream, expected: length, actual } },
      );
    }
  }
}

/** Seal prepared events: seq is the place in its stream, ts the time of the append, positions follow `last`. */
export function seal(
  events: readonly PreparedEvent[],
  lengthOf: (stream: Stream) => number,
  last: number,
  ts: string,
): EventRow[] {
  const lengths = new Map<Stream, number>();
  return events.map((event, index) => {
    const seq = lengths.get(event.stream) ?? lengthOf(event.stream);
    lengths.set(event.stream, seq + 1);
    // Fields named, not spread: an append seals every event, and a literal is the fastest object to make.
    const { type, stream, actor, origin, payload, version, checked } = event;
    return { type, stream, actor, origin, payload, version, checked, seq, ts, position: last + index + 1 };
  });
}

/** The entry a read yields for a row: the payload parsed from its JSON text. */
export function toEntry(row: EventRow): LogEntry<StoredEvent> {
  const { position, type, stream, actor, origin, payload, seq, ts, version, checked } = row;
  const event: StoredEvent = {
    type,
    stream,
    actor,
    origin,
    payload: JSON.parse(payload) as StoredEvent["payload"],
    seq,
    ts,
    version,
  };
  // Absent rather than null: an unchecked event reads as the caller appended it.
  if (checked != null) event.checked = checked;
  return { position, event };
}

/** Whether `lease` is the thread's current lease, whether or not it expired or was released. */
function isCurrent(current: LeaseState | null, lease: Lease): boolean {
  return current !== null && current.counter === lease.counter && current.owner === lease.owner;
}

/** Refuse an append under a lease that a later acquisition replaced, or when the store holds no lease. */
export function checkLease(threadId: string, current: LeaseState | null, lease: Lease | null | undefined): void {
  if (!lease || isCurrent(current, lease)) return;
  const now = current
    ? `the current lease is counter ${current.counter} of "${current.owner}"`
    : "the store holds no lease of it";
  throw new LeaseExpiredError(
    `The lease of thread "${threadId}" (counter ${lease.counter} of "${lease.owner}") was replaced: ${now}. ` +
      "Nothing was appended; the holder of the current lease continues the thread.",
    { details: { threadId, counter: lease.counter, current: current?.counter ?? null } },
  );
}

/** The lease an acquisition leaves: free when none lives or the owner holds it; the counter goes up by one. */
export function acquired(
  threadId: string,
  current: LeaseState | null,
  owner: string,
  ttl: number,
  now: number,
): LeaseState {
  if (current && !current.released && current.expiresAt > now && current.owner !== owner) {
    throw new LeaseHeldError(
      `Thread "${threadId}" is leased by "${current.owner}" until ${new Date(current.expiresAt).toISOString()}. ` +
        "Wait for it to expire or be released, or only read the thread.",
      { details: { threadId, owner: current.owner, expiresAt: current.expiresAt } },
    );
  }
  return { owner, counter: (current?.counter ?? 0) + 1, expiresAt: now + ttl * 1000, released: false };
}

/** The lease a renewal leaves: the same lease, alive until `ttl` seconds from now. Refused when it was replaced. */
export function renewed(current: LeaseState | null, lease: Lease, ttl: number, now: number): LeaseState {
  if (!isCurrent(current, lease)) {
    throw new LeaseExpiredError(
      `The lease of thread "${lease.threadId}" (counter ${lease.counter} of "${lease.owner}") was replaced and cannot be renewed. ` +
        "Acquire the lease again, and read the thread before you continue it.",
      { details: { threadId: lease.threadId, counter: lease.counter, current: current?.counter ?? null } },
    );
  }
  return { ...current!, expiresAt: now + ttl * 1000, released: false };
}

/** The lease a release leaves, or null when the lease was replaced and is left alone. */
export function released(current: LeaseState | null, lease: Lease): LeaseState | null {
  return isCurrent(current, lease) ? { ...current!, released: true } : null;
}

/** The thread's current lease as the port hands it out: only while it lives and is not released. */
export function liveLease(threadId: string, current: LeaseState | null, now: number): Lease | null {
  if (!current || current.released || current.expiresAt <= now) return null;
  return { threadId, owner: current.owner, counter: current.counter };
}

/**
 * Compare two strings by Unicode code point, the order of SQLite's BINARY and PostgreSQL's "C" collation,
 * so that the in-memory store pages threads exactly as the SQL stores do.
 */
function compareCodePoints(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return (x.done ? 0 : 1) - (y.done ? 0 : 1);
    const difference = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
}

/** Newest first: the first event's ts descending, then the thread id descending. */
export function newestFirst(a: { firstTs: string; id: string }, b: { firstTs: string; id: string }): number {
  return compareCodePoints(b.firstTs, a.firstTs) || compareCodePoints(b.id, a.id);
}
