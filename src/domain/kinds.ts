/**
 * A named record type with a parent, declared with zod: the TypeScript stand-in for the reference's
 * class hierarchies of events and elements. `is` answers like Python's isinstance, subtypes included.
 */
import { z } from "zod";
import { ValueError } from "./errors.js";

/** A declared record type: its stored name, its parent, the schema of its own fields. */
export interface Kind<T extends { type: string }> {
  /** The stored type name, in kebab case, such as "model-output" or "passage". */
  readonly name: string;
  /** The type this one extends, or undefined for a root. */
  readonly parent: Kind<any> | undefined;
  /** The schema of every field but the header fields, this type's and its ancestors'. */
  readonly schema: z.ZodObject<any>;
  /** Whether a value is of this type or of a type that extends it. */
  is(value: unknown): value is T;
  /** The stored names of this type and of every type that extends it. */
  readonly names: ReadonlySet<string>;
}

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

let declared = 0;

/** How many kinds were declared so far: what was found of a type name holds until another kind is declared. */
export function kindsDeclared(): number {
  return declared;
}

/** Declare a kind: checks the name, and registers it with each ancestor so that `is` sees subtypes. */
export function declareKind<T extends { type: string }>(
  name: string,
  schema: z.ZodObject<any>,
  parent: Kind<any> | undefined,
): Kind<T> {
  if (!KEBAB.test(name)) throw new ValueError(`Type name "${name}" is not kebab case (such as "model-output").`);
  const names = new Set<string>([name]);
  declared += 1;
  for (let ancestor = parent; ancestor; ancestor = ancestor.parent) {
    (ancestor.names as Set<string>).add(name);
  }
  return {
    name,
    parent,
    schema,
    names,
    is(value: unknown): value is T {
      return typeof value === "object" && value !== null && names.has((value as { type?: unknown }).type as string);
    },
  };
}

/**
 * A kind as a factory: `make` builds its values, and the result carries the kind's members and `extra`.
 *
 * @typeParam M - the factory's own signature, kept as the result's call signature.
 */
export function callableKind<T extends { type: string }, M extends (...args: any[]) => unknown, E extends object>(
  kind: Kind<T>,
  make: M,
  extra: E,
): M & Kind<T> & E {
  // A function's own `name` is read-only: make it writable so the kind's name can be assigned.
  Object.defineProperty(make, "name", { value: kind.name, writable: true });
  return Object.assign(make, kind, extra, { is: kind.is });
}

/** Lower-case a class-style name to kebab case: "ModelOutput" becomes "model-output". */
export function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1-$2")
    .toLowerCase();
}
