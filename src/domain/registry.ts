/**
 * EventTypes: the registry that encodes events to StoredEvents and decodes them back through zod.
 * An unknown type, or a payload that does not fit, gives a DecodeError naming the type and the field.
 */
import type { z } from "zod";
import { DecodeError, ValueError } from "./errors.js";
import { CORE_EVENT_TYPES, type Event, type EventType, type StoredEvent } from "./events.js";
import { Element, Reference, Source, type ElementType } from "./elements.js";
import type { JsonObject } from "./json.js";

const HEADER = ["type", "stream", "actor", "origin", "seq", "ts", "version"] as const;

/** Make the StoredEvent of an event: its header as is, its own fields as the JSON payload. */
export function encode(event: Event): StoredEvent {
  const payload: Record<string, unknown> = { ...event };
  for (const field of HEADER) delete payload[field];
  let json: JsonObject;
  try {
    json = JSON.parse(JSON.stringify(payload)) as JsonObject;
  } catch (cause) {
    throw new ValueError(`Event "${event.type}" has a payload that is not JSON-serialisable: ${String(cause)}`, {
      cause,
    });
  }
  return {
    type: event.type,
    stream: event.stream,
    actor: event.actor,
    origin: event.origin,
    payload: json,
    seq: event.seq,
    ts: event.ts,
    version: event.version,
  };
}

/** The registry of the event and element types that an agent's threads hold, core types included. */
export class EventTypes {
  private readonly events = new Map<string, EventType<any, any>>();
  private readonly elements = new Map<string, ElementType<any, any>>();

  constructor(options: { events?: readonly EventType<any, any>[]; elements?: readonly ElementType<any, any>[] } = {}) {
    for (const type of [...CORE_EVENT_TYPES, ...(options.events ?? [])]) this.add(this.events, type);
    for (const type of [Element, Source, Reference, ...(options.elements ?? [])]) this.add(this.elements, type);
  }

  /** The event types by name. */
  get eventTypes(): ReadonlyMap<string, EventType<any, any>> {
    return this.events;
  }

  /** The element types by name. */
  get elementTypes(): ReadonlyMap<string, ElementType<any, any>> {
    return this.elements;
  }

  /** Read a StoredEvent back as its event, checking the payload and each element against their types. */
  decode(stored: StoredEvent): Event {
    const type = this.events.get(stored.type);
    if (!type) {
      throw new DecodeError(`Unknown event type "${stored.type}": register it in the agent's eventTypes.`, {
        details: { type: stored.type },
      });
    }
    const fields = parse(type.schema, stored.payload, `event "${stored.type}"`);
    if (Array.isArray(fields.elements)) fields.elements = fields.elements.map((element) => this.decodeElement(element));
    return {
      ...fields,
      type: stored.type,
      stream: stored.stream,
      actor: stored.actor,
      origin: stored.origin,
      seq: stored.seq,
      ts: stored.ts,
      version: stored.version,
    };
  }

  /** Check one element against its registered type. */
  decodeElement(value: unknown): Element {
    const name = (value as { type?: unknown } | null)?.type;
    const type = typeof name === "string" ? this.elements.get(name) : undefined;
    if (!type) {
      throw new DecodeError(`Unknown element type "${String(name)}": register it in the agent's elementTypes.`, {
        details: { type: name },
      });
    }
    return { ...parse(type.schema, value, `element "${String(name)}"`), type: name } as Element;
  }

  private add<T extends { name: string }>(map: Map<string, T>, type: T): void {
    const known = map.get(type.name);
    if (known && known !== type) throw new ValueError(`Two different types are registered as "${type.name}".`);
    map.set(type.name, type);
  }
}

function parse(schema: z.ZodObject<any>, value: unknown, what: string): Record<string, any> {
  const result = schema.safeParse(value);
  if (result.success) return result.data as Record<string, any>;
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".") || "(payload)";
  throw new DecodeError(`The payload of ${what} does not fit at field "${field}": ${issue.message}`, {
    details: { type: what, field, issues: result.error.issues },
  });
}
