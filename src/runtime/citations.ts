/**
 * Citation strategies: how the model is told to cite (`[4]` or `【4】`), and how its markers are read back
 * out of its text. Both strategies read every accepted form, so a model that writes another still is read.
 */
import { ValueError } from "../domain/errors.js";
import type { Marker } from "../domain/events.js";
import type { Numbering } from "../domain/numbering.js";
import type { CitationStrategy, ParsedMarker } from "./contracts.js";

// [4], [4, 5], [4;5] (not a Markdown link "[4](...)"), 【4】, 【4, 5】 and 【4†source】.
const LIST = String.raw`\d{1,9}(?:\s*[,;]\s*\d{1,9})*`;
const MARKER = new RegExp(String.raw`\[\s*(${LIST})\s*\](?!\()|【\s*(${LIST})\s*(?:†[^】\n]*)?】`, "g");
const TRAILING_SPACE = /[ \t]+$/;
const LEADING_SPACE = /^[ \t]*/;
const WORD_START = /^[\p{L}\p{N}]/u;

/**
 * Cut the markers out of a text. A marker takes the spaces before it ("free [2]." reads "free." and the
 * marker " [2]"), so the clean text reads well and `inserted(content, markers)` gives the text back exactly.
 * A marker that starts a line takes the spaces after it instead; one glued to the next word takes none.
 */
export function parseMarkers(text: string): { content: string; markers: ParsedMarker[] } {
  const markers: ParsedMarker[] = [];
  let content = "";
  let from = 0;
  for (const match of text.matchAll(MARKER)) {
    let start = match.index;
    let end = start + match[0].length;
    const before = text.slice(from, start);
    const kept = before.replace(TRAILING_SPACE, "");
    const after = text.slice(end);
    if (content.length + kept.length === 0 || (content + kept).endsWith("\n")) {
      content += before;
      end += LEADING_SPACE.exec(after)?.[0].length ?? 0;
    } else if (WORD_START.test(after)) {
      content += before;
    } else {
      content += kept;
      start -= before.length - kept.length;
    }
    const numbers = (match[1] ?? match[2] ?? "").split(/[,;]/).map((part) => Number(part.trim()));
    markers.push({ at: content.length, text: text.slice(start, end), numbers });
    from = end;
  }
  return { content: content + text.slice(from), markers };
}

function strategy(open: string, close: string): CitationStrategy {
  const write = (number: number): string => {
    if (!Number.isInteger(number) || number < 1)
      throw new ValueError(`An element number is a whole number of at least 1, not ${number}.`);
    return `${open}${number}${close}`;
  };
  return Object.freeze({
    write,
    writeAll: (numbers: readonly number[]) => numbers.map(write).join(""),
    parse: parseMarkers,
  });
}

/** The strategy that writes markers such as `[4]`, and `[4][5]` for two sources. It reads every accepted form. */
export const BRACKETS: CitationStrategy = strategy("[", "]");

/** The strategy that writes markers such as `【4】`, and `【4】【5】` for two sources. It reads the same as BRACKETS. */
export const FULLWIDTH: CitationStrategy = strategy("【", "】");

/**
 * Read the markers of a model's text with a strategy, and resolve each cited number by the thread's
 * numbering: `source` is the real id of the Source (citable element) the number names, else null (a
 * Reference, or a number that names nothing), so a false citation stays visible as data.
 */
export function readMarkers(
  text: string,
  citations: CitationStrategy,
  numbering: Numbering,
): { content: string; markers: Marker[] } {
  const { content, markers } = citations.parse(text);
  return {
    content,
    markers: markers.map((marker) => ({
      at: marker.at,
      text: marker.text,
      cited: marker.numbers.map((written) => ({ written, source: numbering.source(written) })),
    })),
  };
}
