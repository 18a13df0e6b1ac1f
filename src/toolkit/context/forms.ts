/**
 * Forms and shortening: how much of a result the model is shown (Form), how the results of one tool look in
 * each form (Forms), and the Shorten functions that make a form: the built-in ones, text caps and jsonCap.
 * The built-in Shorten functions keep every element, in order, and the error, as every Shorten must.
 */
import { type Element, Source } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import type { ToolOutput } from "../../domain/events.js";
import { ShortenError } from "./errors.js";
import { type ModelLimits, Tokens } from "./limits.js";

// Form: how much of a result the model is shown. Forms are not recorded: each model call works them out again.

/**
 * How much of a result the model is shown, ordered: STUBBED < COMPRESSED < FULL. A shrink only lowers the
 * form of a result; a floor only lifts the form of one element.
 */
export enum Form {
  /** The output is one line that names its handle, and the elements that floors keep. The call stays. */
  STUBBED = 0,
  /** The output as the compressed function of its tool makes it, under a line that names its handle. */
  COMPRESSED = 1,
  /** The output as the full function of its tool makes it: by default, as the tool recorded it. */
  FULL = 2,
}

/** The form of a result that the model reads whole, Form.FULL. */
export const FULL = Form.FULL;
/** The form of a result with less text, under a line that names its handle, Form.COMPRESSED. */
export const COMPRESSED = Form.COMPRESSED;
/** The form of a result that is one line with its handle, Form.STUBBED. */
export const STUBBED = Form.STUBBED;

/** Whether a value is a Form. */
export function isForm(value: unknown): value is Form {
  return value === Form.STUBBED || value === Form.COMPRESSED || value === Form.FULL;
}

// Forms: how the results of one tool look in each form, given to a ContextPolicy by the tool's name.

/** The settings of Forms; a field that is null or absent uses the policy's own. */
export interface FormsOptions {
  /** The function of the full form, or null for the policy's full. */
  full?: Shorten | null;
  /** The function of the compressed form, or null for the policy's compressed. */
  compressed?: Shorten | null;
  /** The most tokens of a result of this tool that the model reads: null never cuts, "policy" uses the policy's resultCap. */
  cap?: Tokens | null | "policy";
}

/**
 * How the results of one tool look in each form. A stubbed result is always its handle line and the
 * elements that floors keep, so it has no function.
 */
export class Forms {
  readonly full: Shorten | null;
  readonly compressed: Shorten | null;
  readonly cap: Tokens | null | "policy";

  /** @throws ValueError when a function is not a function or cap is not Tokens, null or "policy". */
  constructor(options: FormsOptions = {}) {
    this.full = options.full ?? null;
    this.compressed = options.compressed ?? null;
    this.cap = options.cap === undefined ? "policy" : options.cap;
    for (const name of ["full", "compressed"] as const) {
      if (this[name] !== null && typeof this[name] !== "function")
        throw new ValueError(
          `Forms.${name} must be a Shorten function, such as sources(cap(new Tokens(500))), or null.`,
        );
    }
    if (!(this.cap === null || this.cap === "policy" || this.cap instanceof Tokens)) {
      throw new ValueError('Forms.cap must be Tokens, null (never cut) or "policy" (the policy\'s resultCap).');
    }
  }
}

// Shorten: how a result looks in one form, for the model that reads it. The built-in ones keep every
// element, in order, and the error, as every Shorten must.

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
  return { ...output, elements: output.elements.map(withoutText) };
}

/** An element as dropText leaves it: a Source copied with its text empty, any other element as it is. */
export function withoutText(element: Element): Element {
  return Source.is(element) ? { ...element, text: "" } : element;
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
  // The default full form is the result itself: nothing to check.
  if (shorten === asRecorded) return output;
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
  if (made === output) return output;
  // A copy made by spreading the result (as the built-in ones do) has the header already.
  if (
    made.type === output.type &&
    made.callId === output.callId &&
    made.stream === output.stream &&
    made.seq === output.seq
  )
    return made;
  return { ...made, type: output.type, callId: output.callId, stream: output.stream, seq: output.seq };
}

function sameIds(before: readonly Element[], after: readonly Element[]): boolean {
  return (
    before.length === after.length &&
    before.every((element, index) => after[index]?.id === element.id && after[index]?.type === element.type)
  );
}

// The usual ShortenText functions: cap a text at a number of tokens, or keep its first words.

/** What follows a cut text by default; {tokens} becomes about how many tokens were left out. */
export const CUT_TEXT = "[… about {tokens} more tokens not shown]";

// A word is a run of letters and digits, so JSON, which has no spaces, cuts between its values too.
const WORD = /[\p{L}\p{N}_]/u;

/**
 * A ShortenText that cuts a text at `limit` tokens of the model that reads it, before the word that the
 * limit falls in. A cut text ends with `cut`, so the model tells a cut text from a short one; a text that fits stays.
 * @throws ValueError when limit is not Tokens or cut is not a string.
 */
export function cap(limit: Tokens, cut: string = CUT_TEXT): ShortenText {
  if (!(limit instanceof Tokens)) throw new ValueError("cap needs a limit in Tokens, such as cap(new Tokens(500)).");
  if (typeof cut !== "string")
    throw new ValueError('The cut text of cap must be a string, such as "[… about {tokens} more tokens not shown]".');
  return (text, limits) => capText(text, limit.count, cut, limits);
}

/** Cut `text` at `limit` tokens before the word the limit falls in, followed by `cut`; a text that fits stays. */
export function capText(text: string, limit: number, cut: string, limits: ModelLimits): string {
  if (limits.estimate(text.length) <= limit) return text;
  let end = Math.floor(limit * limits.charactersPerToken);
  // Inside a word: cut before it, so no word shows half.
  if (end > 0 && WORD.test(text.charAt(end)) && WORD.test(text.charAt(end - 1))) {
    while (end > 0 && WORD.test(text.charAt(end - 1))) end -= 1;
  }
  const kept = text.slice(0, end).trimEnd();
  const note = cut.replaceAll("{tokens}", String(limits.estimate(text.length - kept.length)));
  return kept === "" ? note : `${kept} ${note}`;
}

/**
 * A ShortenText that keeps the first `count` words of a text: a longer text becomes those words, one space
 * between them, followed by "…". A shorter text stays.
 * @throws ValueError when count is not a whole number of at least 1.
 */
export function firstWords(count: number): ShortenText {
  if (!Number.isInteger(count) || count < 1)
    throw new ValueError(`firstWords needs a whole number of words of at least 1, not ${count}.`);
  return (text) => {
    const words = text.split(/\s+/).filter((word) => word !== "");
    return words.length > count ? `${words.slice(0, count).join(" ")}…` : text;
  };
}

// jsonCap: a Shorten that writes a result's data as JSON and cuts it at a number of tokens.

/**
 * A Shorten that writes the data of a result as JSON and cuts it at `limit` tokens. When the JSON is longer,
 * the result gets no data, and the cut JSON follows its text on a new line. Shorter data stays as it is,
 * and so does a result without data.
 * @throws ValueError when limit is not Tokens or cut is not a string.
 */
export function jsonCap(limit: Tokens, cut: string = CUT_TEXT): Shorten {
  if (!(limit instanceof Tokens))
    throw new ValueError("jsonCap needs a limit in Tokens, such as jsonCap(new Tokens(1_000)).");
  if (typeof cut !== "string") throw new ValueError("The cut text of jsonCap must be a string.");
  return (output, limits) => {
    if (output.data === null) return output;
    const json = JSON.stringify(output.data);
    if (limits.estimate(json.length) <= limit.count) return output;
    const cutJson = capText(json, limit.count, cut, limits);
    return {
      ...output,
      data: null,
      text: output.text === null || output.text === "" ? cutJson : `${output.text}\n${cutJson}`,
    };
  };
}
