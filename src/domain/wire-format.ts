/**
 * The stored form of events, as the reference (the Python library) writes it: type names in snake_case
 * ("task_input"), each field of the event's own in snake_case (`call_id`, `tool_calls`, `finish_reason`), so that
 * a thread one library wrote, the other reads, continues and replays.
 *
 * Which names change follows the schemas of the core events: their fields and the fields of their nested
 * structures (tool calls, markers, usage, an answer's default) are renamed; values that are the user's JSON (an
 * input's payload, a call's arguments, a request's schema) stay as they are, whatever their keys. An element's and
 * an event type of the user's own have their top-level field names renamed, their values kept. A name of this port
 * that would not come back the same (`snakeToCamel(camelToSnake(name)) !== name`) is refused where it is declared.
 */
import type { z } from "zod";
import { DecodeError } from "./errors.js";
import type { JsonObject } from "./json.js";

/** "toolCalls" -> "tool_calls"; "promptTokens" -> "prompt_tokens". */
export function camelToSnake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** "tool_calls" -> "toolCalls". */
export function snakeToCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** "task-input" -> "task_input": an event type's name on the wire. */
export function wireTypeName(type: string): string {
  return type.replaceAll("-", "_");
}

/** "task_input" -> "task-input": an event type's name in this port. */
export function typeNameOf(wireType: string): string {
  return wireType.replaceAll("_", "-");
}

/** Whether `name` survives the trip to the wire and back unchanged: a field name this port may declare. */
export function roundTrips(name: string): boolean {
  return snakeToCamel(camelToSnake(name)) === name;
}

/** What the walk needs to know of the schema at hand. */
type Walked = z.ZodType & { _zod: { def: WalkedDef } };
interface WalkedDef {
  type: string;
  shape?: Record<string, Walked>;
  element?: Walked;
  innerType?: Walked;
  in?: Walked;
  catchall?: Walked;
}

/** How a walk renames a key, and what it does with a key the schema does not know. */
interface Direction {
  rename(key: string): string;
  /** The key as the schema's shape names it, for a key of the value being walked. */
  schemaKey(key: string): string;
  unknown(path: string): void;
  missing(path: string): void;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema inside optional, nullable, default and the like, and whether the field may be left out. */
function unwrap(schema: Walked): { inner: Walked; optional: boolean } {
  let inner = schema;
  let optional = false;
  for (;;) {
    const def = inner._zod.def;
    if (def.type === "optional") optional = true;
    if (["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch"].includes(def.type))
      inner = def.innerType!;
    else if (def.type === "pipe") inner = def.in!;
    else return { inner, optional };
  }
}

/**
 * Rename the keys of `value` as `schema` lays it out: an object's fields (and theirs, down the schema), an array's
 * items. A value the schema takes as any JSON (a record, a union, json) is kept whole; an `element` is renamed one
 * level.
 */
function walk(
  schema: Walked | undefined,
  value: unknown,
  direction: Direction,
  path: string,
  element?: Walked,
): unknown {
  if (schema === undefined) return value;
  const { inner } = unwrap(schema);
  if (inner === element) return renameTop(value, direction);
  const def = inner._zod.def;
  if (def.type === "array" && Array.isArray(value))
    return value.map((item, index) => walk(def.element, item, direction, `${path}[${index}]`, element));
  if (def.type !== "object" || !isPlainObject(value)) return value;
  const shape = def.shape ?? {};
  const loose = def.catchall !== undefined && def.catchall._zod.def.type !== "never";
  const out: Record<string, unknown> = {};
  const seen = new Set<string>();
  const at = (key: string) => (path === "" ? key : `${path}.${key}`);
  for (const [key, item] of Object.entries(value)) {
    const name = direction.schemaKey(key);
    const field = shape[name];
    if (field === undefined && !loose) direction.unknown(at(key));
    seen.add(name);
    out[direction.rename(key)] = walk(field, item, direction, at(key), element);
  }
  for (const [name, field] of Object.entries(shape)) {
    if (seen.has(name) || unwrap(field).optional) continue;
    // Encoding writes every field, as the reference does: one the event left out gets its type's default.
    const filled = direction === TO_WIRE ? field.safeParse(undefined) : undefined;
    if (filled?.success && filled.data !== undefined)
      out[camelToSnake(name)] = walk(field, filled.data, direction, at(name), element);
    else direction.missing(at(camelToSnake(name)));
  }
  return out;
}

/** An element's or a user type's fields: the top-level names renamed, the values as they are. */
function renameTop(value: unknown, direction: Direction): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [direction.rename(key), item]));
}

const ignore = () => undefined;

/** Encoding: this port's names to the wire's. Nothing is refused here: check() refuses what does not fit. */
const TO_WIRE: Direction = { rename: camelToSnake, schemaKey: snakeToCamel, unknown: ignore, missing: ignore };

/**
 * The payload of an event as stored: `schema` is the event type's when it is a core type (its nested structures
 * are renamed too), undefined for a type of the user's own (its top-level names only). `element` is the schema
 * that stands for any element, whose fields are renamed one level.
 */
export function payloadToWire(payload: JsonObject, schema: z.ZodType | undefined, element: z.ZodType): JsonObject {
  if (schema === undefined) return renameTop(payload, TO_WIRE) as JsonObject;
  return walk(schema as Walked, payload, TO_WIRE, "", element as Walked) as JsonObject;
}

/**
 * The payload of a stored event in this port's names. Strict: a field the event's type does not have, or a field
 * it needs that is not there, is a DecodeError that names the event and the field, never a silent default.
 */
export function payloadFromWire(
  payload: JsonObject,
  schema: z.ZodType | undefined,
  element: z.ZodType,
  where: { type: string; position?: number },
): JsonObject {
  const event = `event "${typeNameOf(where.type)}"${where.position === undefined ? "" : ` at position ${where.position}`}`;
  const fail = (problem: string, field: string) => {
    throw new DecodeError(`The stored ${event} ${problem} "${field}".`, { details: { type: where.type, field } });
  };
  const direction: Direction = {
    rename: snakeToCamel,
    schemaKey: snakeToCamel,
    unknown: (field) => fail("has a field its type does not know:", field),
    missing: (field) => fail("lacks the field", field),
  };
  if (schema === undefined) return renameTop(payload, direction) as JsonObject;
  return walk(schema as Walked, payload, direction, "", element as Walked) as JsonObject;
}
