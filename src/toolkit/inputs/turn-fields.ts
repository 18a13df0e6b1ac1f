/**
 * Whether an input type's parsed turns hold a field, read from its zod schema's output shape. An agent
 * checks it at construction so that a default that reads a missing field fails before any turn runs.
 */
import type { z } from "zod";
import { Text } from "./input-types.js";

/**
 * The fields of input types whose output zod cannot show (a transform's output is a function's result).
 * Text is one: its transform always makes `text`, `tools` and `context`.
 */
const KNOWN_FIELDS = new WeakMap<z.ZodType, ReadonlySet<string>>([[Text, new Set(["text", "tools", "context"])]]);

// Wrappers whose output has the fields of their inner type.
const WRAPPERS = new Set([
  "default",
  "prefault",
  "optional",
  "nullable",
  "nonoptional",
  "readonly",
  "catch",
  "success",
]);

/**
 * Whether each parsed turn of `schema` has `field`: true, false, or null when the schema cannot say (a
 * transform, a loose object without the field, `z.any()`, a custom type). A caller checks the parsed turn
 * itself when it is null.
 */
export function hasTurnField(schema: z.ZodType, field: string): boolean | null {
  const known = KNOWN_FIELDS.get(schema);
  if (known !== undefined) return known.has(field);
  const def = (schema as { _zod?: { def?: Record<string, any> } })._zod?.def;
  if (def === undefined) return null;
  const type = def.type as string;
  if (WRAPPERS.has(type)) return hasTurnField(def.innerType as z.ZodType, field);
  switch (type) {
    case "object": {
      if (field in (def.shape as object)) return true;
      // A loose object may hold the field as an extra key; a strict or stripping one never does.
      const catchall = def.catchall as z.ZodType | undefined;
      return catchall === undefined || catchall._zod.def.type === "never" ? false : null;
    }
    case "pipe":
      return hasTurnField(def.out as z.ZodType, field);
    case "lazy":
      return hasTurnField((def.getter as () => z.ZodType)(), field);
    case "union":
      return allOf((def.options as z.ZodType[]).map((option) => hasTurnField(option, field)));
    case "intersection": {
      const sides = [hasTurnField(def.left as z.ZodType, field), hasTurnField(def.right as z.ZodType, field)];
      return sides.includes(true) ? true : sides.includes(null) ? null : false;
    }
    case "record":
    case "transform":
    case "any":
    case "unknown":
    case "custom":
      return null;
    default:
      // Strings, numbers, arrays, records and the like have no named fields.
      return false;
  }
}

// Every option must have the field: one that lacks it makes some turns lack it.
function allOf(answers: readonly (boolean | null)[]): boolean | null {
  if (answers.includes(false)) return false;
  return answers.includes(null) ? null : true;
}
