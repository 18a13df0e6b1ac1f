/**
 * Tool-call arguments as text. A model writes the arguments of a call as JSON text; an adapter parses
 * them. When the text is not a JSON object, the adapter keeps it under UNPARSED_ARGUMENTS instead of
 * failing the whole output, so the runtime can tell the model what it wrote and ask it to call again.
 */
import type { JsonValue } from "../domain/json.js";

/** The key under which a ToolCall's `arguments` keep text that was not a JSON object. */
export const UNPARSED_ARGUMENTS = "$unparsed";

/**
 * Parse a call's argument text: a JSON object as it is; empty text as `{}` (some servers send "" for a
 * call without arguments); anything else as `{ [UNPARSED_ARGUMENTS]: text }`.
 */
export function parseToolArguments(text: string): Record<string, JsonValue> {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, JsonValue>;
  } catch {
    // Not JSON: kept below so the runtime can show the model what it wrote.
  }
  return { [UNPARSED_ARGUMENTS]: text };
}

/** The text of arguments that did not parse, or null when the arguments are a parsed JSON object. */
export function unparsedArguments(args: Readonly<Record<string, JsonValue>>): string | null {
  const keys = Object.keys(args);
  const text = args[UNPARSED_ARGUMENTS];
  return keys.length === 1 && typeof text === "string" ? text : null;
}

/** The arguments as the model wrote them: the unparsed text itself, else the object as JSON. */
export function argumentsText(args: Readonly<Record<string, JsonValue>>): string {
  return unparsedArguments(args) ?? JSON.stringify(args);
}
