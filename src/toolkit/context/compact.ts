/**
 * Compaction: how the model summarises earlier history when the context is still too big after every
 * shrink (Compact), and the step that MessageBuilder.wrap makes for it, which records the Compaction and
 * the call's output together, in one append.
 */
import { ValueError } from "../../domain/errors.js";
import { Compaction, type Event, type LogEntry, ModelOutput, ToolOutput } from "../../domain/events.js";
import { type Trace, streamTrace, turnStarts } from "../../domain/trace.js";
import { UserMessage } from "../../ports/messages.js";
import { ChatRequest } from "../../ports/request.js";
import type { PreparedRequest } from "../../ports/model.js";
import type { ExplainedForm, ModelContext, ModelStep, StepContext, Work } from "../../runtime/contracts.js";
import type { LlmStep } from "../../runtime/steps/llm-step.js";
import { CompactionError, ContextFullError } from "./errors.js";
import { type ModelLimits, Share, type Threshold } from "./limits.js";
import { Selection, checkThreshold, turns, unitsOf } from "./shrink.js";

// Compact: how the model summarises earlier history when the context is still too big after every shrink.

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

// The step that MessageBuilder.wrap makes for a Compact: before the model call, when the context is over
// the compact's `when` or does not fit, the model first writes a summary of the turns that `where`
// selects. The Compaction and the call's output are recorded together, in one append.

/** A built context with its estimated prompt tokens, and whether it fits with the output reserve. */
export interface Assessment {
  context: ModelContext;
  tokens: number;
  fits: boolean;
}

/** A context builder that can say how big a context is without refusing it: MessageBuilder. */
export interface AssessingBuilder {
  /** The context of the next call with its size in tokens and whether it fits the model's limits. */
  assess(trace: Trace): Assessment;
}

/**
 * The model step with compaction before it. A summary that replaces nothing raises CompactionError; a
 * context that does not fit when nothing more can be replaced, or after the summary, raises ContextFullError.
 */
export class CompactingStep implements ModelStep {
  constructor(
    /** The model step whose calls this step compacts for. */
    readonly step: LlmStep,
    readonly compact: Compact,
    readonly limits: ModelLimits,
    private readonly builder: AssessingBuilder,
  ) {}

  /** The model step's work: one model call. */
  plan(context: StepContext): Work[] {
    return this.step.plan(context);
  }

  /** Whether the model step's call of `key` is recorded. */
  done(context: StepContext, key: string): boolean {
    return this.step.done(context, key);
  }

  /** Refuse an input that would not fit even alone: no summary can make room for the input itself. */
  checkInput(context: StepContext): void {
    this.step.checkInput(context);
  }

  /** The context the next call gets: what replay rebuilds (after a recorded Compaction, it shows its summary). */
  rebuild(context: StepContext): ModelContext {
    return this.step.rebuild(context);
  }

  /** Why each shrunk result has its form at the next call: the model step's builder explains it. */
  explain(context: StepContext): readonly ExplainedForm[] {
    return this.step.explain(context);
  }

  /** The request as the model step's adapter would send it, or null when it cannot say. */
  prepare(request: ChatRequest): Promise<PreparedRequest | null> {
    return this.step.prepare(request);
  }

  /** Make the call, after a summary when the context is over the compact's when or does not fit: [Compaction, output] or [output]. */
  async run(context: StepContext, key: string): Promise<Event[]> {
    if (this.done(context, key)) return [];
    const stream = streamTrace(context);
    const before = this.builder.assess(stream);
    if (before.fits && before.tokens <= this.limits.tokens(this.compact.when)) return this.step.run(context, key);
    const events = stream.events;
    const keptFrom = this.compact.keptFrom(events);
    const replaced = events.findLast((event): event is Compaction => Compaction.is(event))?.keptFrom ?? 0;
    if (keptFrom <= replaced) {
      if (before.fits) return this.step.run(context, key);
      throw new ContextFullError(
        `The context of the next call to "${before.context.model}" is about ${before.tokens} tokens, and with the output reserve it does not fit ` +
          `in the window of ${this.limits.window.count} tokens; the summary replaced every turn that the compact's where (${String(this.compact.where)}) selects already. ` +
          "Give the model a larger window, a smaller resultCap or stronger shrinks.",
        { details: { tokens: before.tokens, window: this.limits.window.count } },
      );
    }
    const compaction = await this.summarise(stream, before, keptFrom, context);
    const entry: LogEntry<Event> = { position: context.trace.position + 1, event: compaction };
    const after = { ...context, trace: context.trace.with([entry]) };
    const assessed = this.builder.assess(streamTrace(after));
    if (assessed.context.request.hash === before.context.request.hash) {
      throw new CompactionError(
        "The request after the summary is the same as before it: the context builder does not show Compaction events, so a summary cannot make room.",
      );
    }
    if (!assessed.fits) {
      throw new ContextFullError(
        `The context of the next call is still about ${assessed.tokens} tokens after the summary, and with the output reserve it does not fit in the window of ${this.limits.window.count} tokens. ` +
          "Give the compact a where that replaces more turns, or the model a larger window.",
        { details: { tokens: assessed.tokens, window: this.limits.window.count } },
      );
    }
    return [compaction, ...(await this.step.run(after, key))];
  }

  // The summary call gets the builder's messages, then the instructions; it offers no tools and is not streamed.
  private async summarise(
    stream: Trace,
    before: Assessment,
    keptFrom: number,
    context: StepContext,
  ): Promise<Compaction> {
    const base = before.fits ? before : this.builder.assess(stream.before(keptFrom));
    const citation = base.context.citations === null ? null : base.context.citations.write(1);
    const request = new ChatRequest([...base.context.request.messages, UserMessage(this.compact.prompt(citation))], []);
    const output = await this.step.model.complete(request, { model: this.step.modelName, signal: context.signal });
    if (output.content.trim() === "") {
      throw new CompactionError(
        "The model wrote an empty summary, so nothing of the earlier conversation can be replaced.",
        { details: { model: base.context.model } },
      );
    }
    return Compaction({ summary: output.content.trim(), keptFrom, stream: context.stream, origin: context.node });
  }
}
