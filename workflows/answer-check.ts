/**
 * The `answer` Update's check of a payload against its request's JSON schema, in workflow code: plain and
 * deterministic, for the keywords a zod schema's JSON schema uses (type, properties, required,
 * additionalProperties, items, enum, const, bounds, lengths, pattern, anyOf/oneOf/allOf). Keywords it
 * does not know pass here; the recordAnswer activity checks the whole schema again before it records.
 */
import type { TurnJson } from "../src/temporal/contract.js";

type Schema = { [key: string]: TurnJson };

/** The problems of `value` against `schema`, each with its path; empty when it fits. */
export function schemaProblems(schema: Schema | boolean, value: TurnJson, path = "payload"): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: no value is allowed here`];
  const problems: string[] = [];
  const fail = (message: string) => problems.push(`${path}: ${message}`);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => hasType(value, type as string)))
      fail(`expected ${types.join(" or ")}, got ${typeOf(value)}`);
    if (problems.length > 0) return problems;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => same(option, value)))
    fail(`expected one of ${JSON.stringify(schema.enum)}`);
  if ("const" in schema && !same(schema.const!, value)) fail(`expected ${JSON.stringify(schema.const)}`);
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) fail(`must be at least ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) fail(`must be at most ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum)
      fail(`must be more than ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum)
      fail(`must be less than ${schema.exclusiveMaximum}`);
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength)
      fail(`must have at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === "number" && length > schema.maxLength)
      fail(`must have at most ${schema.maxLength} characters`);
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value))
      fail(`must match ${schema.pattern}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems)
      fail(`needs at least ${schema.minItems} items`);
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
      fail(`takes at most ${schema.maxItems} items`);
    if (isSchema(schema.items))
      value.forEach((item, index) =>
        problems.push(...schemaProblems(schema.items as Schema, item, `${path}.${index}`)),
      );
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const properties = (isSchema(schema.properties) ? schema.properties : {}) as Record<string, Schema>;
    for (const name of Array.isArray(schema.required) ? schema.required : [])
      if (!(String(name) in value)) problems.push(`${path}.${String(name)}: is required`);
    for (const [name, item] of Object.entries(value)) {
      if (name in properties) problems.push(...schemaProblems(properties[name]!, item, `${path}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${path}.${name}: is not allowed`);
      else if (isSchema(schema.additionalProperties))
        problems.push(...schemaProblems(schema.additionalProperties as Schema, item, `${path}.${name}`));
    }
  }
  const alternatives = (key: string) => (Array.isArray(schema[key]) ? (schema[key] as Schema[]) : null);
  const anyOf = alternatives("anyOf") ?? alternatives("oneOf");
  if (anyOf && !anyOf.some((option) => schemaProblems(option, value, path).length === 0))
    fail("fits none of the allowed forms");
  for (const part of alternatives("allOf") ?? []) problems.push(...schemaProblems(part, value, path));
  return problems;
}

function isSchema(value: TurnJson | undefined): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function hasType(value: TurnJson, type: string): boolean {
  switch (type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "null":
      return value === null;
    default:
      return typeof value === type;
  }
}

function typeOf(value: TurnJson): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

function same(a: TurnJson, b: TurnJson): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
