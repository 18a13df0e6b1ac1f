/**
 * EventTypes: the registry that encodes events to StoredEvents and decodes them back through zod.
 * An unknown type, or a payload that does not fit, gives a DecodeError naming the type and the field.
 * An event is checked once, when it is appended (`check`): the stored event carries the registry's
 * fingerprint, and a registry with the same fingerprint decodes it without running the schemas again.
 */
import { z } from "zod";
import { DecodeError, ValueError } from "./errors.js";
import { CORE_EVENT_TYPES, ELEMENT_SCHEMA, type Event, type EventType, type StoredEvent } from "./events.js";
import { Element, Reference, Source, type ElementType } from "./elements.js";
import type { JsonObject } from "./json.js";
import { payloadFromWire, payloadToWire, roundTrips, typeNameOf, wireTypeName } from "./wire-format.js";

const HEADER = ["type", "stream", "actor", "origin", "seq", "ts", "version"] as const;

const CORE_SCHEMAS: ReadonlyMap<string, z.ZodObject<any>> = new Map(
  CORE_EVENT_TYPES.map((type) => [type.name, type.schema]),
);

/**
 * Make the StoredEvent of an event in the stored format the reference writes (wire-format.ts): its header, its
 * type's name in snake_case, its own fields as the JSON payload with their names in snake_case.
 */
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
    type: wireTypeName(event.type),
    stream: event.stream,
    actor: event.actor,
    origin: event.origin,
    payload: payloadToWire(json, CORE_SCHEMAS.get(event.type), ELEMENT_SCHEMA),
    seq: event.seq,
    ts: event.ts,
    version: event.version,
  };
}

/**
 * A row that a store kept before its stored format was the reference's (camelCase fields, kebab-case type names),
 * in today's format, for the stores' migrations. A row in today's format comes back the same, so a migration that
 * stopped half-way can run again.
 */
export function upgradeStoredRow(type: string, payload: JsonObject): { type: string; payload: JsonObject } {
  const wire = wireTypeName(type);
  return { type: wire, payload: payloadToWire(payload, CORE_SCHEMAS.get(typeNameOf(wire)), ELEMENT_SCHEMA) };
}

/** The registry of the event and element types that an agent's threads hold, core types included. */
export class EventTypes {
  private readonly events = new Map<string, EventType<any, any>>();
  private readonly elements = new Map<string, ElementType<any, any>>();
  private print: string | null | undefined;

  constructor(options: { events?: readonly EventType<any, any>[]; elements?: readonly ElementType<any, any>[] } = {}) {
    for (const type of [...CORE_EVENT_TYPES, ...(options.events ?? [])])
      this.add(this.events, checkStorable(type, true));
    for (const type of [Element, Source, Reference, ...(options.elements ?? [])])
      this.add(this.elements, checkStorable(type, false));
  }

  /** The event types by name. */
  get eventTypes(): ReadonlyMap<string, EventType<any, any>> {
    return this.events;
  }

  /** The element types by name. */
  get elementTypes(): ReadonlyMap<string, ElementType<any, any>> {
    return this.elements;
  }

  /**
   * What the registry's schemas are, as a short hash of their JSON Schemas: two registries with the same
   * fingerprint decode alike. Null when a schema has a transform (JSON Schema cannot show it): such a
   * registry always runs the full check. Refinements do not show in JSON Schema, so changing only a
   * refinement keeps the fingerprint: events checked before are trusted.
   */
  get fingerprint(): string | null {
    if (this.print === undefined) this.print = fingerprintOf(this.events, this.elements);
    return this.print;
  }

  /**
   * Check an event before it is appended and make its StoredEvent: the full decode, so a wrong field
   * fails here and nothing is written, and a payload in the form the decode gives (fields in schema
   * order, defaults filled), stamped with the fingerprint so that a read can trust it.
   */
  check(event: Event): StoredEvent {
    const checked = encode(this.fullDecode(encode(event)));
    const print = this.fingerprint;
    return print === null ? checked : { ...checked, checked: print };
  }

  /**
   * Read a StoredEvent back as its event. An event that this registry's fingerprint checked at append is
   * taken as stored (its type and element types must still be known); any other (restored with load,
   * appended by hand, or checked by other schemas) is checked against its type and element types.
   */
  decode(stored: StoredEvent): Event {
    if (stored.checked === undefined || stored.checked !== this.fingerprint) return this.fullDecode(stored);
    const payload: unknown = this.payloadOf(stored);
    this.typeOf(typeNameOf(stored.type));
    if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
      throw new DecodeError(
        `The payload of event "${typeNameOf(stored.type)}" is not a JSON object: the row is corrupt.`,
        {
          details: { type: stored.type },
        },
      );
    }
    const fields = payload as Record<string, unknown>;
    if (Array.isArray(fields.elements)) for (const element of fields.elements) this.elementTypeOf(element);
    return withHeader(fields, stored);
  }

  /** Read a StoredEvent back as its event through the full check of its payload and elements, whoever wrote it. */
  fullDecode(stored: StoredEvent): Event {
    const type = this.typeOf(typeNameOf(stored.type));
    const fields = parse(type.schema, this.payloadOf(stored), `event "${type.name}"`);
    if (Array.isArray(fields.elements)) fields.elements = fields.elements.map((element) => this.decodeElement(element));
    return withHeader(fields, stored);
  }

  /** Check one element against its registered type. */
  decodeElement(value: unknown): Element {
    const type = this.elementTypeOf(value);
    return { ...parse(type.schema, value, `element "${type.name}"`), type: type.name } as Element;
  }

  // The payload in this port's names, refused where a field is unknown or missing (a corrupt row is refused later).
  private payloadOf(stored: StoredEvent): unknown {
    if (!stored.payload || typeof stored.payload !== "object" || Array.isArray(stored.payload)) return stored.payload;
    return payloadFromWire(stored.payload, CORE_SCHEMAS.get(typeNameOf(stored.type)), ELEMENT_SCHEMA, stored);
  }

  private typeOf(name: string): EventType<any, any> {
    const type = this.events.get(name);
    if (!type) {
      throw new DecodeError(`Unknown event type "${name}": register it in the agent's eventTypes.`, {
        details: { type: name },
      });
    }
    return type;
  }

  private elementTypeOf(value: unknown): ElementType<any, any> {
    const name = (value as { type?: unknown } | null)?.type;
    const type = typeof name === "string" ? this.elements.get(name) : undefined;
    if (!type) {
      throw new DecodeError(`Unknown element type "${String(name)}": register it in the agent's elementTypes.`, {
        details: { type: name },
      });
    }
    return type;
  }

  private add<T extends { name: string }>(map: Map<string, T>, type: T): void {
    const known = map.get(type.name);
    if (known && known !== type) throw new ValueError(`Two different types are registered as "${type.name}".`);
    map.set(type.name, type);
  }
}

/**
 * Refuse a type whose names the stored format could not bring back: an event type's name with "_" (the format's
 * separator), a field name that is not camelCase (`page_number`: the stored `page_number` reads back as pageNumber).
 */
function checkStorable<T extends { name: string; schema: z.ZodObject<any> }>(type: T, isEvent: boolean): T {
  if (isEvent && type.name.includes("_"))
    throw new ValueError(`Event type "${type.name}": a type's name has no "_"; name it in kebab-case.`);
  for (const field of Object.keys(type.schema.shape))
    if (!roundTrips(field))
      throw new ValueError(
        `${isEvent ? "Event" : "Element"} type "${type.name}": the field "${field}" would be stored under another ` +
          `name and read back differently; name it in camelCase.`,
      );
  return type;
}

/** The event of a payload's fields and a stored header, the header fields last. */
function withHeader(fields: Record<string, unknown>, stored: StoredEvent): Event {
  return {
    ...fields,
    type: typeNameOf(stored.type),
    stream: stored.stream,
    actor: stored.actor,
    origin: stored.origin,
    seq: stored.seq,
    ts: stored.ts,
    version: stored.version,
  };
}

/** Bumped when what a check guarantees changes, so that events checked under the old rules are checked again. */
const CHECK_FORMAT = 2;

function fingerprintOf(
  events: ReadonlyMap<string, { schema: z.ZodObject<any> }>,
  elements: ReadonlyMap<string, { schema: z.ZodObject<any> }>,
): string | null {
  const described = (types: ReadonlyMap<string, { schema: z.ZodObject<any> }>) =>
    [...types]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, type]) => [name, z.toJSONSchema(type.schema)]);
  let text: string;
  try {
    text = JSON.stringify([CHECK_FORMAT, described(events), described(elements)]);
  } catch {
    return null;
  }
  return hash(text);
}

/** A 64-bit FNV-1a hash of a text, as 16 hex digits: a fingerprint, not a defence against forgery. */
function hash(text: string): string {
  let value = 0xcbf29ce484222325n;
  for (let index = 0; index < text.length; index++) {
    value ^= BigInt(text.charCodeAt(index));
    value = (value * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return value.toString(16).padStart(16, "0");
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
