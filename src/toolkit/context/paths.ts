/** Dotted paths into an element, such as "title" or "properties.chunkIndex", for the xml layout's settings. */
import { ValueError } from "../../domain/errors.js";
import type { ElementType } from "../../domain/elements.js";

/** Check that a path starts with a field of the element type, so a typo fails when the layout is made. */
export function checkPath(type: ElementType<any, any>, path: string, setting: string): void {
  const first = path.split(".")[0] ?? "";
  const fields = Object.keys(type.schema.shape);
  if (path.split(".").some((part) => part === "") || !fields.includes(first)) {
    throw new ValueError(
      `The ${setting} path "${path}" of element type "${type.name}" does not start with one of its fields (${fields.join(", ")}).`,
    );
  }
}

/** The value at a path of an element, or undefined when a step of the path is missing. */
export function readPath(element: object, path: string): unknown {
  let value: unknown = element;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
