/**
 * The step that MessageBuilder.wrap makes for a Compact: before the model call, when the context is over
 * the compact's `when` or does not fit, the model first writes a summary of the turns that `where`
 * selects. The Compaction and the call's output are recorded together, in one append.
 */
import { Compaction, type Event, type LogEntry } from "../../domain/events.js";
import { type Trace, streamTrace } from "../../domain/trace.js";
import { UserMessage } from "../../ports/messages.js";
import { ChatRequest } from "../../ports/request.js";
import type { ModelContext, Step, StepContext, Work } from "../../runtime/contracts.js";
import type { LlmStep } from "../../runtime/steps/llm-step.js";
import type { Compact } from "./compact.js";
import type { ModelLimits } from "./limits.js";
import { CompactionError, ContextFullError } from "./policy-errors.js";

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
export class CompactingStep implements Step {
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

  /** The context the next call gets: what replay rebuilds (after a recorded Compaction, it shows its summary). */
  rebuild(context: StepContext): ModelContext {
    return this.step.rebuild(context);
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
