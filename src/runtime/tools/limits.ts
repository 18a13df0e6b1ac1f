/** Per-turn limits of a tool: checked before a call runs; a call that would pass the limit gets its error. */
import { ValueError } from "../../domain/errors.js";
import type { ElementType } from "../../domain/elements.js";
import type { Event, ToolCall } from "../../domain/events.js";
import type { Limit } from "../contracts.js";
import { callsBefore, turnElements } from "./turn.js";

/** What `atMost` counts, and the error the model reads when a call would pass the limit. */
export interface AtMostOptions {
  /** Count the calls of the tool with this name: earlier calls of the turn, and earlier calls of the same model output. */
  calls?: string;
  /** Count the elements of this type (subtypes included) that the turn recorded, each id once. */
  elements?: ElementType<any, any>;
  /** The result of a refused call. The model reads it, so say what to do instead. */
  error: string;
}

/** A limit made by `atMost`: its settings stay readable. */
export interface AtMost extends Limit {
  readonly n: number;
  readonly calls: string | null;
  readonly elements: ElementType<any, any> | null;
  readonly error: string;
}

/**
 * A per-turn limit: a call runs only while fewer than `n` calls of the tool `calls` came before it in the
 * turn, or fewer than `n` elements of the type `elements` were recorded. Give exactly one of the two.
 * Results of the call's sibling calls are not counted: siblings run concurrently, in no fixed order.
 */
export function atMost(n: number, options: AtMostOptions): AtMost {
  const calls = options.calls ?? null;
  const elements = options.elements ?? null;
  if (!Number.isInteger(n) || n < 0) throw new ValueError(`atMost needs a whole number of at least 0, not ${n}.`);
  if ((calls === null) === (elements === null)) {
    throw new ValueError(
      "atMost counts either the calls of a tool or the elements of a type: give exactly one of calls and elements.",
    );
  }
  if (typeof options.error !== "string" || options.error.trim() === "") {
    throw new ValueError("atMost needs the error that the model reads when a call would pass the limit.");
  }
  const count = (turn: readonly Event[], call: ToolCall): number =>
    calls !== null
      ? callsBefore(turn, call.id).filter((earlier) => earlier.name === calls).length
      : turnElements(turn, call.id, elements!).length;
  return Object.freeze({
    n,
    calls,
    elements,
    error: options.error,
    check: (turn: readonly Event[], call: ToolCall) => (count(turn, call) >= n ? options.error : null),
  });
}
