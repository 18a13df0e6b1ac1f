/**
 * Event types: the header every event has, how a TraceStore keeps an event (the header, and a JSON
 * payload it never reads), and the factory that declares a type with zod and stores it under a
 * kebab-case name. The core events are in events.ts.
 */
import { z } from "zod";
import type { JsonObject } from "./json.js";
import { callableKind, declareKind, type Kind } from "./kinds.js";

/** Who made an event. */
export type Actor = "user" | "model" | "tool" | "system";

/** The name of a stream of a thread: "main" for the conversation, one more per subagent task. */
export type Stream = string;

/** The main stream of every thread. */
export const MAIN: Stream = "main";

/** The header fields every event has, as TraceStore reads them. */
export interface EventHeader {
  type: string;
  stream: Stream;
  actor: Actor;
  /** The node of the graph that made the event, or null. */
  origin: string | null;
  /** The place in its stream, from 0; null until the store seals the event. */
  seq: number | null;
  /** When the store sealed the event, as an ISO-8601 string; null until then. */
  ts: string | null;
  /** The version of the code that wrote the event, or null. */
  version: string | null;
}

/** An event as TraceStore takes and returns it: the header, which the store reads but for `type`, and the payload. */
export interface StoredEvent extends EventHeader {
  /** The event's own fields as JSON. The store never reads it. */
  payload: JsonObject;
  /**
   * The fingerprint of the event types that checked the event when it was appended (EventTypes.check):
   * a registry with the same fingerprint decodes it without checking it again. Absent on events appended
   * unchecked and on events restored with load, which are checked on every decode.
   */
  checked?: string;
}

/** One entry of a thread's log: an event and its position (1, 2, 3, ... in the order the store accepted it). */
export interface LogEntry<T> {
  position: number;
  event: T;
}

/** Any event: the header and the type's own fields. */
export interface Event extends EventHeader {
  [field: string]: unknown;
}

/** What an event type's factory takes: its own fields, and any header field to override. */
export type EventInit<F> = F & Partial<Omit<EventHeader, "type">>;

/** An event type: call it with fields to make an event; `is` tests an event, subtypes included. */
export interface EventType<T extends Event = Event, F = Record<string, unknown>> extends Kind<T> {
  (fields: EventInit<F>): T;
  /** The actor of a new event of this type unless the fields name one. */
  readonly actor: Actor;
}

/** Make an event type: the callable factory and its kind. The core types use it; apps use defineEventType. */
export function eventType<T extends Event, F>(
  name: string,
  schema: z.ZodObject<any>,
  parent: EventType<any, any> | undefined,
  actor: Actor,
): EventType<T, F> {
  const make = (fields: EventInit<F>) => {
    const { stream, actor: madeBy, origin, seq, ts, version, ...own } = fields as EventInit<Record<string, unknown>>;
    return {
      ...schema.parse(own),
      type: name,
      stream: stream ?? "main",
      actor: madeBy ?? actor,
      origin: origin ?? null,
      seq: seq ?? null,
      ts: ts ?? null,
      version: version ?? null,
    } as unknown as T;
  };
  return callableKind(declareKind<T>(name, schema, parent), make, { actor });
}

/**
 * Declare an event type of your own: `name` in kebab case, the zod `fields` it adds to its parent's,
 * and the actor of its events. Register it with the agent (eventTypes) so its threads decode.
 */
export function defineEventType<S extends z.ZodRawShape>(
  name: string,
  fields: S,
  options: { parent?: EventType<any, any>; actor?: Actor } = {},
): EventType<Event & z.infer<z.ZodObject<S>>, z.input<z.ZodObject<S>>> {
  const parent = options.parent ?? Event;
  return eventType(name, parent.schema.extend(fields), parent, options.actor ?? parent.actor);
}

/** The root of every event type: `trace.byType(Event)` gives every event. */
export const Event: EventType<Event, Record<string, never>> = eventType("event", z.object({}), undefined, "system");
