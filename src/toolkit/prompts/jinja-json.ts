/**
 * Jinja's `tojson`: Python's json.dumps with Jinja's policy (keys sorted, ASCII only), made HTML-safe as
 * Jinja makes it. The indent and every part's size are stated to the budget before they are made.
 */
import { Callable, isDict, numeric, type Value } from "./jinja-values.js";
import { RenderBudget, TemplateSandboxError } from "./sandbox.js";

/** `value | tojson(indent)`. */
export function tojson(value: Value, indentArgument: Value, budget: RenderBudget): string {
  const indent = indentArgument === undefined || indentArgument === null ? null : numeric(indentArgument, "tojson()");
  if (indent !== null && !(indent >= 0 && Number.isInteger(indent))) {
    throw new TemplateSandboxError(`tojson(): indent ${indent} is no whole number of spaces`);
  }
  const json = pythonJson(value, indent, 0, budget);
  return json.replace(/[<>&']/g, (character) => `\\u00${character.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

function pythonJson(value: Value, indent: number | null, depth: number, budget: RenderBudget): string {
  budget.step();
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : value > 0 ? "Infinity" : "NaN";
  if (typeof value === "string") return asciiJson(value, budget);
  if (value instanceof Callable) throw new TemplateSandboxError("Object of type function is not JSON serializable");
  if (indent !== null) budget.text(indent * (depth + 1), "tojson()");
  const newline = indent === null ? "" : `\n${" ".repeat(indent * (depth + 1))}`;
  const closing = indent === null ? "" : `\n${" ".repeat(indent * depth)}`;
  const separator = indent === null ? ", " : ",";
  const parts = isDict(value)
    ? [...value.keys()]
        .sort()
        .map((key) => `${asciiJson(key, budget)}: ${pythonJson(value.get(key), indent, depth + 1, budget)}`)
    : value.map((item) => pythonJson(item, indent, depth + 1, budget));
  if (parts.length === 0) return isDict(value) ? "{}" : "[]";
  budget.text(
    parts.reduce((total, part) => total + part.length + newline.length + separator.length, 0),
    "tojson()",
  );
  const [open, close] = isDict(value) ? ["{", "}"] : ["[", "]"];
  return `${open}${newline}${parts.join(separator + newline)}${closing}${close}`;
}

// json.dumps escapes every character outside ASCII (ensure_ascii=True), as \uXXXX: at most 6 per character.
function asciiJson(text: string, budget: RenderBudget): string {
  budget.text(text.length * 6 + 2, "tojson()");
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
