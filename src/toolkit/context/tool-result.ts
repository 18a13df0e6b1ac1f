/** The text of one tool result as the model reads it. */
import type { ToolOutput } from "../../domain/events.js";

/** The prefix of a result's error, so the model tells a failed call from its content. */
const ERROR_PREFIX = "Error: ";

/**
 * A result's parts in a fixed order, each one that is present, separated by a blank line: its text, its
 * elements as the Show rendered them (`shown`), its data as JSON, then its error after "Error: ". A result
 * with only elements is exactly their layout.
 */
export function resultContent(output: ToolOutput, shown: string): string {
  const parts: string[] = [];
  if (output.text !== null && output.text !== "") parts.push(output.text);
  if (shown !== "") parts.push(shown);
  if (output.data !== null) parts.push(JSON.stringify(output.data));
  if (output.error !== null) parts.push(`${ERROR_PREFIX}${output.error}`);
  return parts.join("\n\n");
}
