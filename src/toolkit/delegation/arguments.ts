/**
 * The arguments a delegation's model writes, from the task's input schema: the input's fields, or one
 * `input` argument for an input that is not an object. ElementId fields must sit where the runtime fills
 * them (mapArguments): a field itself, an array's items, or a union with null.
 */
import { z } from "zod";
import { ValueError } from "../../domain/errors.js";
import { idTarget } from "../../runtime/tools/ids.js";

/** The argument that holds an input that is not an object. */
export const INPUT_ARGUMENT = "input";

/** The arguments schema of a task's input, and whether the input sits under the `input` argument. */
export interface DelegationArguments {
  args: z.ZodObject<any, z.core.$strict>;
  wrapped: boolean;
}

// Wrappers that hold one schema and change neither where a value sits nor its JSON form.
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch"]);

/**
 * The arguments of a delegation named `name` whose task takes `input`.
 * @throws ValueError when an ElementId sits inside another object, inside a collection other than an
 *   array (or in an array of arrays), in a union with a type other than null, or behind a transform.
 */
export function delegationArguments(name: string, input: z.ZodType): DelegationArguments {
  const definition = input._zod.def as { type: string; shape?: Record<string, z.ZodType> };
  const wrapped = definition.type !== "object" || definition.shape === undefined;
  const shape: Record<string, z.ZodType> = wrapped ? { [INPUT_ARGUMENT]: input } : { ...definition.shape! };
  for (const [field, schema] of Object.entries(shape)) checkField(name, field, schema, false);
  return { args: z.strictObject(shape), wrapped };
}

function checkField(name: string, field: string, schema: z.ZodType, inArray: boolean): void {
  if (idTarget(schema)) return;
  const definition = schema._zod.def as Definition;
  if (WRAPPERS.has(definition.type) && definition.innerType)
    return checkField(name, field, definition.innerType, inArray);
  if (definition.type === "array" && definition.element) {
    if (!inArray) return checkField(name, field, definition.element, true);
    return refuse(name, field, definition.element, "inside an array of arrays");
  }
  if (definition.type === "union") {
    const options = definition.options ?? [];
    const others = options.filter((option) => option._zod.def.type !== "null");
    if (others.length === 1 && others.length < options.length) return checkField(name, field, others[0]!, inArray);
    return refuse(name, field, schema, "in a union with a type other than null");
  }
  const where: Record<string, string> = {
    object: "inside another object",
    intersection: "inside another object",
    tuple: "inside a collection other than an array",
    set: "inside a collection other than an array",
    record: "inside a collection other than an array",
    map: "inside a collection other than an array",
  };
  refuse(name, field, schema, where[definition.type] ?? "behind a transform or another schema that hides it");
}

function refuse(name: string, field: string, schema: z.ZodType, where: string): void {
  if (!holdsId(schema, new Set())) return;
  throw new ValueError(
    `ToolDelegation "${name}": an ElementId in the input field "${field}" sits ${where}, where the runtime cannot fill it. ` +
      "Put each ElementId in a field of its own, in an array field, or in a union with null.",
  );
}

interface Definition {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  shape?: Record<string, z.ZodType>;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  getter?: () => z.ZodType;
}

/** Whether an ElementId (or ResultHandle) sits anywhere in a schema. */
function holdsId(schema: z.ZodType, seen: Set<z.ZodType>): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  if (idTarget(schema)) return true;
  const definition = schema._zod.def as Definition;
  const children: (z.ZodType | null | undefined)[] = [
    definition.innerType,
    definition.element,
    definition.rest,
    definition.keyType,
    definition.valueType,
    definition.left,
    definition.right,
    definition.in,
    definition.out,
    ...(definition.options ?? []),
    ...(definition.items ?? []),
    ...Object.values(definition.shape ?? {}),
  ];
  if (definition.type === "lazy" && definition.getter) children.push(definition.getter());
  return children.some((child) => child instanceof z.ZodType && holdsId(child, seen));
}
