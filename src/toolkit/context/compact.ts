/** Compact: how the model summarises earlier history when the context is still too big after every shrink. */
import { ValueError } from "../../domain/errors.js";
import { ModelOutput, ToolOutput, type Event } from "../../domain/events.js";
import { turnStarts } from "../../domain/trace.js";
import { Share, type Threshold } from "./limits.js";
import { Selection, turns } from "./selection.js";
import { checkThreshold } from "./shrink.js";
import { unitsOf } from "./units.js";

/** The text that asks the model for the summary, by default. */
export const COMPACT_INSTRUCTIONS =
  "The conversation above has grown too long. Write a summary of it for yourself, to use in place of the earlier messages: " +
  "each question of the user, the answer you gave, and each fact you found that may matter later, with the numbers of the " +
  "elements it came from. Write only the summary.";

/** The text that follows the instructions when the model cites, by default; {citation} becomes an example marker. */
export const COMPACT_CITING =
  "Keep the citation marker of each fact, such as {citation}, so that it still names its source.";

/** The settings of Compact. */
export interface CompactOptions {
  /** The turns to replace; only those that run from the oldest are. Default turns.slice(0, -2): every turn but the last two. */
  where?: Selection;
  /** The size of the context above which the model summarises. Default Share(0.8) of the window. */
  when?: Threshold;
  /** The text that asks the model for the summary; it follows the earlier messages as a user message. */
  instructions?: string;
  /** The text that follows the instructions when the model cites; its {citation} becomes an example marker. */
  citing?: string;
}

/**
 * How the model summarises earlier history. When a model call's context is over `when` after every shrink,
 * or does not fit at all, the model first writes a summary of the turns that `where` selects; the call is
 * then made from the summary, and the Compaction and the model's output are recorded together. The running
 * turn is always kept, and a summary never splits a call from its results.
 */
export class Compact {
  readonly where: Selection;
  readonly when: Threshold;
  readonly instructions: string;
  readonly citing: string;

  /** @throws ValueError for a where that is not a Selection, a when that is not a Threshold, or texts that are not strings. */
  constructor(options: CompactOptions = {}) {
    this.where = options.where ?? turns.slice(0, -2);
    this.when = options.when ?? new Share(0.8);
    this.instructions = options.instructions ?? COMPACT_INSTRUCTIONS;
    this.citing = options.citing ?? COMPACT_CITING;
    if (!(this.where instanceof Selection))
      throw new ValueError("Compact's where must be a Selection, such as turns.slice(0, -2).");
    checkThreshold(this.when, "Compact's when", false);
    if (typeof this.instructions !== "string" || this.instructions.trim() === "")
      throw new ValueError("Compact's instructions must be a text that asks for the summary.");
    if (typeof this.citing !== "string") throw new ValueError("Compact's citing must be a string.");
  }

  /** The text of the summary request: the instructions, and the citing text with an example marker when the model cites. */
  prompt(citation: string | null): string {
    return citation === null || this.citing === ""
      ? this.instructions
      : `${this.instructions}\n${this.citing.replaceAll("{citation}", citation)}`;
  }

  /**
   * The index in `events` (a stream's events) of the first event the summary keeps: the start of the first
   * unit that `where` does not select, counting from the oldest, at most the start of the running turn, moved
   * back to before a call whose results it would split from it. 0 (nothing replaced) when the events hold no
   * turn or `where` does not select the oldest unit.
   */
  keptFrom(events: readonly Event[]): number {
    const starts = turnStarts(events);
    const running = starts.at(-1);
    if (running === undefined) return 0;
    const units = unitsOf(events, this.where.unit);
    const picked = new Set(this.where.picked(units.length));
    let run = 0;
    while (run < units.length && picked.has(run)) run += 1;
    if (run === 0) return 0;
    return unsplit(events, Math.min(units[run]?.start ?? running, running));
  }
}

/** Move a cut back until no result after it answers a call before it. */
function unsplit(events: readonly Event[], cut: number): number {
  const callAt = new Map<string, number>();
  events.forEach((event, index) => {
    if (ModelOutput.is(event)) for (const call of event.toolCalls) callAt.set(call.id, index);
  });
  let at = cut;
  for (let moved = true; moved;) {
    moved = false;
    for (let index = at; index < events.length; index += 1) {
      const event = events[index]!;
      const call = ToolOutput.is(event) && event.callId !== null ? callAt.get(event.callId) : undefined;
      if (call !== undefined && call < at) {
        at = call;
        moved = true;
      }
    }
  }
  return at;
}
