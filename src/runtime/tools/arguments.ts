/**
 * The id arguments of a recorded tool call. The model writes element numbers and result handles; the
 * LlmStep records real ids and call ids (mapArguments), so a recorded call reads without the tool's code
 * and a new number never changes what an old call named. The context builder sends calls back to the
 * model as it wrote them (shownArguments).
 */
import type { ToolCall } from "../../domain/events.js";
import type { JsonValue } from "../../domain/json.js";
import type { Numbering } from "../../domain/numbering.js";
import type { ToolDef } from "../../ports/messages.js";
import type { Handles } from "./ids.js";

/**
 * The call with each element number replaced by the real id of the element it names, when that element is of
 * a type the argument accepts, and each result handle by its result's call id. A value that names nothing, or
 * an element of another type, stays as written, so the tool step refuses it with an error the model reads.
 */
export function mapArguments(call: ToolCall, def: ToolDef, numbering: Numbering, handles: Handles): ToolCall {
  return rewritten(call, def, {
    element: (value, accepted) => {
      const number = elementNumber(value);
      const element = number === undefined ? undefined : numbering.element(number);
      return element && accepted.includes(element.type) ? element.id : value;
    },
    result: (value) => (typeof value === "string" ? (handles.callIdOf(value.trim()) ?? value) : value),
  });
}

/** The call as the model wrote it: real ids back to numbers (as strings), call ids back to handles. */
export function shownArguments(call: ToolCall, def: ToolDef, numbering: Numbering, handles: Handles): ToolCall {
  // A cold build shows every recorded call, and most name no id: those are returned before anything is made.
  if (!namesIds(call, def)) return call;
  return rewritten(call, def, {
    element: (value) => {
      const number = typeof value === "string" ? numbering.numberOf(value) : undefined;
      return number === undefined ? value : String(number);
    },
    result: (value) => (typeof value === "string" ? (handles.handleOf(value) ?? value) : value),
  });
}

/** The element number a value holds: a whole number from 1, written as an integer or as digits. */
export function elementNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value !== "string" || !/^\s*\d+\s*$/.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) && number > 0 ? number : undefined;
}

interface Rewrites {
  element: (value: JsonValue, accepted: readonly string[]) => JsonValue;
  result: (value: JsonValue) => JsonValue;
}

// Whether the tool declares an argument an element or a result argument. A cold build shows every recorded
// call: the tool's few result arguments are looked up without a Set.
function idArgument(def: ToolDef, name: string): boolean {
  return def.elements[name] !== undefined || def.results.includes(name);
}

// Whether the call has an element or result argument.
function namesIds(call: ToolCall, def: ToolDef): boolean {
  for (const name in call.arguments) if (Object.hasOwn(call.arguments, name) && idArgument(def, name)) return true;
  return false;
}

function rewritten(call: ToolCall, def: ToolDef, rewrites: Rewrites): ToolCall {
  const names = Object.keys(call.arguments).filter((name) => idArgument(def, name));
  if (names.length === 0) return call;
  const args = { ...call.arguments };
  for (const name of names) {
    const accepted = def.elements[name];
    const rewrite = accepted !== undefined ? (value: JsonValue) => rewrites.element(value, accepted) : rewrites.result;
    const value = args[name]!;
    args[name] = Array.isArray(value) ? value.map(rewrite) : rewrite(value);
  }
  return { ...call, arguments: args };
}
