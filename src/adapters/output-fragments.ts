/** A whole ModelOutput streamed the way a service streams one, for the models that compute it at once. */
import type { ModelOutput } from "../domain/events.js";
import { ReasoningDelta, type Fragment } from "../ports/model.js";

/** The most pieces one text is split into. */
const PIECES = 3;

/** The fragments of an output: its reasoning as ReasoningDeltas, then its text, each in a few pieces. */
function fragmentsOf(output: ModelOutput): Fragment[] {
  return [...piecesOf(output.reasoning ?? "").map((piece) => new ReasoningDelta(piece)), ...piecesOf(output.content)];
}

/** Yield the fragments of an output, then the output itself. */
export async function* streamOutput(output: ModelOutput): AsyncGenerator<Fragment | ModelOutput> {
  yield* fragmentsOf(output);
  yield output;
}

/** A text split after whitespace into at most PIECES pieces that join to the text. Empty text gives none. */
function piecesOf(text: string): string[] {
  if (text === "") return [];
  const words = text.split(/(?<=\s)/);
  const size = Math.ceil(words.length / PIECES);
  const pieces: string[] = [];
  for (let start = 0; start < words.length; start += size) pieces.push(words.slice(start, start + size).join(""));
  return pieces;
}
