/**
 * Shorten: how a result looks in one form, for the model that reads it. The built-in ones keep every
 * element, in order, and the error, as every Shorten must.
 */
import { Source, type Element } from "../../domain/elements.js";
import type { ToolOutput } from "../../domain/events.js";
import type { ModelLimits } from "./limits.js";
import { ShortenError } from "./policy-errors.js";

/**
 * A function that makes a result look as it does in one form: it gets the result as recorded and the limits
 * of the model the call goes to. It may change text, data and the text of each Source; it must keep every
 * element, in order, and the error.
 */
export type Shorten = (output: ToolOutput, limits: ModelLimits) => ToolOutput;

/** A function that shortens one text for the model that reads it. */
export type ShortenText = (text: string, limits: ModelLimits) => string;

/** The result as the tool recorded it: the default full form. */
export function asRecorded(output: ToolOutput, _limits: ModelLimits): ToolOutput {
  return output;
}

/**
 * The result with the text of each Source removed: the default compressed form. With the xml layout each
 * source shows as a tag without content. The result's own text and data stay. `output` does not change.
 */
export function dropText(output: ToolOutput, _limits: ModelLimits): ToolOutput {
  return {
    ...output,
    elements: output.elements.map((element) => (Source.is(element) ? { ...element, text: "" } : element)),
  };
}

/**
 * A Shorten that applies `shorten` to the text of each Source of a result; other elements, the result's
 * text and its data stay. `sources(cap(new Tokens(500)))` cuts each source's text at 500 tokens.
 */
export function sources(shorten: ShortenText): Shorten {
  return (output, limits) => ({
    ...output,
    elements: output.elements.map((element) =>
      Source.is(element) && typeof element.text === "string"
        ? { ...element, text: shorten(element.text, limits) }
        : element,
    ),
  });
}

/**
 * Apply a Shorten and check its rule: the same elements, by id and in order, and the same error.
 * @throws ShortenError when it broke the rule, naming the tool and what changed.
 */
export function shortened(shorten: Shorten, output: ToolOutput, limits: ModelLimits, tool: string | null): ToolOutput {
  const made = shorten(output, limits);
  const name = tool === null ? "a result" : `a result of "${tool}"`;
  if (made === null || typeof made !== "object" || !Array.isArray(made.elements)) {
    throw new ShortenError(
      `The Shorten function of ${name} returned no ToolOutput: return a copy of the result it gets.`,
      { details: { tool } },
    );
  }
  if (!sameIds(output.elements, made.elements)) {
    throw new ShortenError(
      `The Shorten function of ${name} removed, added or reordered its elements: keep every element, in order, and change only their text.`,
      {
        details: {
          tool,
          before: output.elements.map((element) => element.id),
          after: made.elements.map((element) => element?.id),
        },
      },
    );
  }
  if ((made.error ?? null) !== output.error) {
    throw new ShortenError(
      `The Shorten function of ${name} changed its error: the model reacts to the error, so keep it as recorded.`,
      { details: { tool } },
    );
  }
  // The header stays the recorded one: a Shorten decides what the model reads, not which call it answers.
  return { ...made, type: output.type, callId: output.callId, stream: output.stream, seq: output.seq };
}

function sameIds(before: readonly Element[], after: readonly Element[]): boolean {
  return (
    before.length === after.length &&
    before.every((element, index) => after[index]?.id === element.id && after[index]?.type === element.type)
  );
}
