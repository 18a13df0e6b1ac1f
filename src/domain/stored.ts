/** Events as a TraceStore keeps them: header fields the store reads, and a JSON payload it never reads. */
import type { Actor, Stream } from "./events.js";
import type { JsonObject } from "./json.js";

/** An event as TraceStore takes and returns it. */
export interface StoredEvent {
  /** The event's type name. The store does not read it. */
  type: string;
  stream: Stream;
  actor: Actor;
  origin: string | null;
  /** The event's own fields as JSON. The store never reads it. */
  payload: JsonObject;
  /** The place in its stream, from 0; null until the store seals the event at append. */
  seq: number | null;
  /** When the store sealed the event (ISO 8601); null until then. */
  ts: string | null;
  version: string | null;
}

/** One entry of a thread's log: an event and its position (1, 2, 3, ... in the order the store accepted it). */
export interface LogEntry<T> {
  position: number;
  event: T;
}
