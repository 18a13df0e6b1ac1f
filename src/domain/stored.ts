/** Events as a TraceStore keeps them: header fields the store reads, and a JSON payload it never reads. */
import type { EventHeader } from "./events.js";
import type { JsonObject } from "./json.js";

/** An event as TraceStore takes and returns it: the header, which the store reads but for `type`, and the payload. */
export interface StoredEvent extends EventHeader {
  /** The event's own fields as JSON. The store never reads it. */
  payload: JsonObject;
}

/** One entry of a thread's log: an event and its position (1, 2, 3, ... in the order the store accepted it). */
export interface LogEntry<T> {
  position: number;
  event: T;
}
