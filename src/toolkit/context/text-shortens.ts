/** The usual ShortenText functions: cap a text at a number of tokens, or keep its first words. */
import { ValueError } from "../../domain/errors.js";
import { Tokens, type ModelLimits } from "./limits.js";
import type { ShortenText } from "./shorten.js";

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
