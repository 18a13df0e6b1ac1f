/**
 * Checks of what callers hand a trace store. The three stores share them, so each refuses the same input
 * with the same error, before anything is written.
 */
import { CallerError, ValueError } from "../../domain/errors.js";
import type { EventHeader, Stream, StoredEvent } from "../../domain/events.js";
import type { Lease } from "../../ports/store.js";
import { SealedEventError } from "../../ports/errors.js";

/** A call on a trace store after its close(). */
export class StoreClosedError extends CallerError {}

/** An event that passed the checks: its header, and its payload as JSON text. */
export interface PreparedEvent extends Omit<EventHeader, "seq" | "ts"> {
  payload: string;
  /** The fingerprint of the event types that checked it (StoredEvent.checked), or null. */
  checked: string | null;
}

/** An event to restore with load: prepared, with the seq and ts it keeps. */
export interface SealedEvent extends PreparedEvent {
  seq: number;
  ts: string;
}

const ACTORS: ReadonlySet<string> = new Set(["user", "model", "tool", "system"]);

/** The longest thread id: PostgreSQL carries the id in a NOTIFY payload, which has a size limit. */
const MAX_THREAD_ID = 1000;

/** Refuse a thread id that is not a non-empty string of at most MAX_THREAD_ID characters. */
export function checkThreadId(threadId: unknown): asserts threadId is string {
  if (
    typeof threadId !== "string" ||
    threadId.length === 0 ||
    threadId.length > MAX_THREAD_ID ||
    threadId.includes("\0")
  ) {
    throw new ValueError(
      `A thread id must be a non-empty string of at most ${MAX_THREAD_ID} characters, without NUL, got ${describe(threadId)}.`,
    );
  }
}

/** Check events to append: none sealed, each header well-formed, each payload JSON-serialisable. */
export function prepareAppend(events: readonly StoredEvent[]): PreparedEvent[] {
  if (!Array.isArray(events)) throw new ValueError(`append takes an array of events, got ${describe(events)}.`);
  events.forEach((event, index) => {
    if (event && (event.seq != null || event.ts != null)) {
      throw new SealedEventError(
        `Event ${index} (type "${String(event.type)}") is sealed already (seq ${String(event.seq)}, ts ${String(event.ts)}): ` +
          "an event is appended once. Append a new event, without seq and ts; nothing was appended.",
        { details: { index, type: event.type, seq: event.seq, ts: event.ts } },
      );
    }
  });
  return events.map((event, index) => prepare(event, index));
}

/** Check events to restore with load: each sealed, and each stream's seqs 0, 1, 2, ... in log order. */
export function prepareLoad(events: readonly StoredEvent[]): SealedEvent[] {
  if (!Array.isArray(events)) throw new ValueError(`load takes an array of events, got ${describe(events)}.`);
  const lengths = new Map<Stream, number>();
  return events.map((event, index) => {
    const prepared = prepare(event, index);
    const expected = lengths.get(prepared.stream) ?? 0;
    if (event.seq !== expected) {
      throw new ValueError(
        `load takes sealed events in log order: event ${index} of stream "${prepared.stream}" has seq ${String(event.seq)}, ` +
          `but that stream's next seq is ${expected}. Nothing was loaded.`,
      );
    }
    const time = typeof event.ts === "string" ? Date.parse(event.ts) : Number.NaN;
    if (Number.isNaN(time)) {
      throw new ValueError(
        `load takes sealed events: event ${index} has ts ${describe(event.ts)}, not an ISO 8601 time. Nothing was loaded.`,
      );
    }
    lengths.set(prepared.stream, expected + 1);
    // One format for every ts, so that threads sort by their first event's time as text. A restore is an
    // import: its events are checked on every decode, whatever they say checked them.
    return { ...prepared, checked: null, seq: expected, ts: new Date(time).toISOString() };
  });
}

/** Check the `expected` option of append: stream names mapped to lengths (non-negative integers). */
export function checkExpectedShape(
  expected: unknown,
): asserts expected is Readonly<Record<Stream, number>> | null | undefined {
  if (expected == null) return;
  if (typeof expected !== "object" || Array.isArray(expected)) {
    throw new ValueError(`expected must map stream names to lengths, got ${describe(expected)}.`);
  }
  for (const [stream, length] of Object.entries(expected)) {
    if (!Number.isInteger(length) || (length as number) < 0) {
      throw new ValueError(`expected["${stream}"] must be a stream length (an integer >= 0), got ${describe(length)}.`);
    }
  }
}

/** Check a lease that a caller hands back, and that it is a lease of this thread. */
export function checkLeaseShape(lease: unknown, threadId?: string): asserts lease is Lease {
  const candidate = lease as Partial<Lease> | null;
  if (
    !candidate ||
    typeof candidate !== "object" ||
    typeof candidate.threadId !== "string" ||
    typeof candidate.owner !== "string" ||
    !Number.isInteger(candidate.counter)
  ) {
    throw new ValueError(
      `A lease must be { threadId, owner, counter } as acquire returned it, got ${describe(lease)}.`,
    );
  }
  if (threadId !== undefined && candidate.threadId !== threadId) {
    throw new ValueError(
      `The lease is for thread "${candidate.threadId}", not for thread "${threadId}". Nothing was appended.`,
    );
  }
}

/** Check the options of acquire and renew: a non-empty owner and a ttl in seconds above zero. */
export function checkLeaseTerms(terms: { owner?: unknown; ttl: unknown }, needsOwner: boolean): void {
  if (needsOwner && (typeof terms.owner !== "string" || terms.owner.length === 0)) {
    throw new ValueError(`A lease owner must be a non-empty string, got ${describe(terms.owner)}.`);
  }
  if (typeof terms.ttl !== "number" || !Number.isFinite(terms.ttl) || terms.ttl <= 0) {
    throw new ValueError(`A lease ttl must be a number of seconds above 0, got ${describe(terms.ttl)}.`);
  }
}

/** Check a position or a count: an integer at least 0. */
export function checkCount(name: string, value: unknown): asserts value is number {
  if (!Number.isInteger(value) || (value as number) < 0) {
    throw new ValueError(`${name} must be an integer >= 0, got ${describe(value)}.`);
  }
}

function prepare(event: StoredEvent, index: number): PreparedEvent {
  const where = `Event ${index}`;
  if (!event || typeof event !== "object") throw new ValueError(`${where} is not a StoredEvent: ${describe(event)}.`);
  if (typeof event.type !== "string" || event.type.length === 0) throw new ValueError(`${where} has no type name.`);
  const what = `${where} (type "${event.type}")`;
  if (typeof event.stream !== "string" || event.stream.length === 0)
    throw new ValueError(`${what} has no stream name.`);
  if (!ACTORS.has(event.actor))
    throw new ValueError(`${what} has actor ${describe(event.actor)}; use "user", "model", "tool" or "system".`);
  if (event.origin != null && typeof event.origin !== "string")
    throw new ValueError(`${what} has an origin that is not a string.`);
  if (event.version != null && typeof event.version !== "string")
    throw new ValueError(`${what} has a version that is not a string.`);
  if (event.checked != null && typeof event.checked !== "string")
    throw new ValueError(`${what} has a checked fingerprint that is not a string; leave it out.`);
  // PostgreSQL text cannot hold NUL; refusing it everywhere keeps the three stores alike.
  if ([event.type, event.stream, event.origin, event.version, event.checked].some((text) => text?.includes("\0"))) {
    throw new ValueError(`${what} has a NUL character in its type, stream, origin, version or checked.`);
  }
  const payload: unknown = event.payload;
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
    throw new ValueError(`${what} has a payload that is not a JSON object: ${describe(payload)}.`);
  }
  let json: string;
  try {
    json = JSON.stringify(payload);
  } catch (cause) {
    throw new ValueError(
      `${what} has a payload that is not JSON-serialisable (${cause instanceof Error ? cause.message : String(cause)}). ` +
        "Store plain JSON (no BigInt, no cycles); nothing was written.",
      { cause, details: { index, type: event.type } },
    );
  }
  return {
    type: event.type,
    stream: event.stream,
    actor: event.actor,
    origin: event.origin ?? null,
    payload: json,
    version: event.version ?? null,
    checked: event.checked ?? null,
  };
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
  if (typeof value === "bigint") return `${value}n`;
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}
