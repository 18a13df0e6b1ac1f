/**
 * MessageBuilder: the context builder of a turn and the default ContextStrategy of a ReActAgent. It
 * builds each request as a pure function of the trace: the system prompt, the selected events as
 * messages, and the tools offered. `only` makes its usual selection.
 */
import { ValueError } from "../../domain/errors.js";
import type { Event, EventType } from "../../domain/events.js";
import type { Trace } from "../../domain/trace.js";
import type { ToolDef } from "../../ports/messages.js";
import { ChatRequest } from "../../ports/request.js";
import type { Budget } from "../../runtime/budget.js";
import { InputTooLargeError } from "../../runtime/errors.js";
import { type KeptThreads, keptThreads } from "../../runtime/runner/work.js";
import type { CitationStrategy, ContextBuilder, ModelContext, Show, Step, Tool } from "../../runtime/contracts.js";
import type { LlmStep } from "../../runtime/steps/llm-step.js";
import type { RenderInput } from "../inputs/render.js";
import type { ContextStrategy, TurnParts } from "../react/strategy.js";
import { type Assessment, CompactingStep } from "./compact.js";
import { ContextDraft } from "./context-draft.js";
import { noForms, planForms } from "./form-plan.js";
import type { PlannedForms } from "./draft-types.js";
import { ThreadCache, cacheFor } from "./thread-cache.js";
import { ContextPolicy } from "./context-policy.js";
import { ContextFullError, MissingTurnError } from "./errors.js";
import type { ModelLimits } from "./limits.js";
import type { RenderEvent } from "./render.js";
import { Shrunk, modelOutputsIn, turnStartsIn } from "./shrink.js";
import { xml } from "./xml.js";

/** The settings of a MessageBuilder: its own (policy, show, select, renderers), then the parts of one turn. */
export interface MessageBuilderOptions {
  /** How the builder keeps the context within the model's limits: shrinks, floors, compaction, reopen. Default new ContextPolicy(). */
  policy?: ContextPolicy;
  /** The layout of elements. Default: xml(). */
  show?: Show;
  /** Which events of the stream's trace a call sees, or null for all. `only` makes the usual selection. */
  select?: ((trace: Trace) => readonly Event[]) | null;
  /**
   * How each of the agent's own event types becomes messages, as a Map or [type, renderer] pairs; a
   * subtype uses its nearest registered ancestor's. A subtype of a built-in type renders as the built-in.
   */
  renderers?: Iterable<readonly [EventType<any, any>, RenderEvent]>;
  /** How an Input renders, or null before the turn's parts are given. */
  renderInput?: RenderInput | null;
  /** The name of the model each call goes to, or null before the turn's parts are given. */
  model?: string | null;
  /** The system prompt as a function of an example citation (null when the model does not cite), or null for none. */
  prompt?: ((citation: string | null) => string) | null;
  /** The tools each call offers. */
  tools?: readonly ToolDef[];
  /** The turn's budget, or null to never withdraw the tools. */
  budget?: Budget | null;
  /** The citation strategy of the model, or null when it does not cite. */
  citations?: CitationStrategy | null;
  /** The limits of the model, or null to shrink nothing and check no size. */
  limits?: ModelLimits | null;
  /**
   * How many threads the builder, and the builders its forTurn makes, keep the renders of (so the next build of
   * a thread does only its new events' work), and how many events of them together; the least recently built go
   * first, and the thread built last stays however long it is. Default KEPT_RENDERS: 8 threads and 100,000
   * events, about 120 MB.
   */
  keep?: { threads?: number; events?: number };
}

type Settings = Required<Omit<MessageBuilderOptions, "renderers" | "keep">> & {
  renderers: ReadonlyMap<EventType<any, any>, RenderEvent>;
  keep: KeptThreads;
};

/**
 * The renders a builder keeps unless told (keep): of 8 threads, the most recently built first (a worker's builder
 * serves the turns of a few threads in turn), and of 100,000 events of them together, since a builder keeps
 * about 1.2 KB an event.
 */
export const KEPT_RENDERS: Readonly<KeptThreads> = Object.freeze({ threads: 8, events: 100_000 });

/** The defaults of a MessageBuilder, in one place (show is made per builder: xml() is cheap and stateless). */
const DEFAULTS: Omit<Settings, "show" | "policy" | "renderers"> = {
  select: null,
  keep: KEPT_RENDERS,
  renderInput: null,
  model: null,
  prompt: null,
  tools: [],
  budget: null,
  citations: null,
  limits: null,
};

/**
 * The context builder of a turn: the system prompt that `prompt` writes, then the events that `select`
 * picks, each as messages. Elements show by `show` under their numbers in the whole thread, so a
 * selection never renumbers. On the call after the budget's last pass, no tools are offered.
 *
 * With limits, the policy decides the form of each result again at each call, from the first call of the
 * turn: each result is made smaller by the function of its form and cut at its tool's cap; a compressed
 * result starts with a line that names its handle, a stubbed one is that line and what floors keep. The
 * policy's reopen is offered after the tools from the first call that shortens a result or follows a
 * summary; after a Compaction the summary follows the prompt in place of the events it replaced.
 */
export class MessageBuilder implements ContextBuilder, ContextStrategy {
  private readonly settings: Settings;
  // What the builds of each recent thread rendered, so the next build of a thread does only its new events'
  // work; shared with the builders forTurn makes, so a thread's next turn and a worker's next activity build warm.
  private caches: ThreadCache[] = [];

  /**
   * `new MessageBuilder({ policy, show, ... })`, or the reference's positional form `new MessageBuilder(policy)`
   * with the other settings after it: `new MessageBuilder(policy, { show })`.
   * @throws ValueError when a setting has the wrong shape, two tools share a name, or a tool has the reopen tool's name.
   */
  constructor(options?: MessageBuilderOptions);
  constructor(policy: ContextPolicy, options?: Omit<MessageBuilderOptions, "policy">);
  constructor(first: MessageBuilderOptions | ContextPolicy = {}, rest: Omit<MessageBuilderOptions, "policy"> = {}) {
    const given = definedOnly(builderOptions(first, rest));
    const settings: Settings = {
      ...DEFAULTS,
      show: xml(),
      policy: new ContextPolicy(),
      ...given,
      renderers: renderersMap(given.renderers ?? []),
      keep: keptThreads(given.keep ?? KEPT_RENDERS, KEPT_RENDERS, "keep"),
    };
    checkSettings(settings);
    this.settings = { ...settings, tools: [...settings.tools] };
  }

  /** How the builder keeps the context within the model's limits. */
  get policy(): ContextPolicy {
    return this.settings.policy;
  }

  /** The limits of the model the builder measures its contexts against, or null when it checks no size. */
  get limits(): ModelLimits | null {
    return this.settings.limits;
  }

  /** The tools the builder adds to the turn's tools: the policy's reopen, if it has one. */
  get addedTools(): readonly Tool[] {
    return this.settings.policy.reopen === null ? [] : [this.settings.policy.reopen];
  }

  /**
   * A copy of this builder with the parts of one turn. This builder does not change. The copy shares what
   * this builder keeps of recent threads; what a kept render depends on of the turn's parts (renderInput,
   * the tools' definitions, citations, limits, and for the planned forms the prompt, model and budget) is
   * compared at each build, and a render made for other parts is made again.
   */
  forTurn(parts: TurnParts): MessageBuilder {
    const made = new MessageBuilder({ ...this.settings, ...parts });
    made.caches = this.caches;
    return made;
  }

  /**
   * The model step itself when the policy has no compact; else a step that first lets the model write a
   * summary when the context is over the compact's `when` or does not fit, then makes the call.
   * @throws ValueError when the step's builder is not a MessageBuilder: only it shows the summaries.
   */
  wrap(step: LlmStep, limits: ModelLimits): Step {
    const compact = this.settings.policy.compact;
    if (compact === null) return step;
    if (!(step.builder instanceof MessageBuilder))
      throw new ValueError(
        "A Compact needs the model step's builder to be a MessageBuilder, which shows each summary in place of the events it replaced.",
      );
    return new CompactingStep(step, compact, limits, step.builder);
  }

  /**
   * Build the context of the next model call from a stream's trace; numbers and handles are the whole thread's.
   * @throws MissingTurnError when the builder has no renderInput or no model.
   * @throws UnrenderedEventError when a selected event's type is neither built in nor in renderers.
   * @throws ContextFullError with limits, when the estimated prompt plus the policy's outputReserve does not fit the window.
   * @throws ValueError when the policy's target is not below its startAt in the model's window.
   * @throws ShortenError when a Shorten function removed, added or reordered an element, or changed the error.
   */
  build(trace: Trace): ModelContext {
    const assessment = this.assess(trace);
    if (!assessment.fits) {
      const { limits, policy } = this.settings;
      throw new ContextFullError(
        `The context of the next call to "${assessment.context.model}" is about ${assessment.tokens} tokens; with the output reserve of ` +
          `${policy.outputReserve.count} it does not fit in the window of ${limits!.window.count} tokens. A retry cannot help: ` +
          "give the policy stronger shrinks, a smaller resultCap or a compact, or the model a larger window.",
        {
          details: {
            tokens: assessment.tokens,
            outputReserve: policy.outputReserve.count,
            window: limits!.window.count,
          },
        },
      );
    }
    return assessment.context;
  }

  /**
   * With limits, refuse an input whose first call, with nothing before it but the prompt and the tools,
   * does not fit the window with the output reserve: no shrink or summary could ever make room for it.
   * `trace` holds the input alone. Without limits every input fits, and nothing is built.
   * @throws InputTooLargeError naming the estimated tokens and the window.
   */
  checkInput(trace: Trace): void {
    const { limits, policy } = this.settings;
    if (limits === null) return;
    // The input alone is a trace of its own: what it renders is not kept, so it takes no thread's place in the caches.
    const assessment = this.assessWith(trace, []);
    if (assessment.fits) return;
    throw new InputTooLargeError(
      `The input alone makes a first call to "${assessment.context.model}" of about ${assessment.tokens} tokens; with the output reserve of ` +
        `${policy.outputReserve.count} it does not fit in the window of ${limits.window.count} tokens. ` +
        "Send a smaller input, or run the agent on a model with a larger window.",
      {
        details: { tokens: assessment.tokens, outputReserve: policy.outputReserve.count, window: limits.window.count },
      },
    );
  }

  /** Build the context of the next call with its estimated prompt tokens, and whether it fits, without refusing it. */
  assess(trace: Trace): Assessment {
    return this.assessWith(trace, this.caches);
  }

  private assessWith(trace: Trace, caches: ThreadCache[]): Assessment {
    const { model, citations, limits, policy } = this.settings;
    const draft = this.draft(trace, caches);
    const layout = draft.layout(trace, this.forms(draft, trace));
    // The layout sums each event's characters as the draft counted them: the request need not count them again.
    const request = new ChatRequest(layout.messages, layout.tools, { characters: layout.characters });
    const context = { request, model: model!, numbering: draft.numbering, citations };
    if (limits === null) return { context, tokens: 0, fits: true };
    const tokens = limits.promptTokens(layout.characters, draft.cache.measuredPrompt(trace.events, model!));
    return { context, tokens, fits: tokens + policy.outputReserve.count <= limits.window.count };
  }

  /**
   * Why each shrunk result of `trace` has its form at the next model call, in the order of the results; empty without limits.
   * @throws MissingTurnError, ValueError, UnrenderedEventError or ShortenError, as build does.
   */
  explain(trace: Trace): Shrunk[] {
    const { states } = this.forms(this.draft(trace), trace);
    // A state names the call of the running turn; Shrunk counts the model calls of the whole stream before it.
    const events = trace.events;
    const callsBefore = modelOutputsIn(events.slice(0, turnStartsIn(events).at(-1) ?? 0));
    return [...states]
      .sort(([a], [b]) => Number(a.slice(1)) - Number(b.slice(1)))
      .map(([handle, state]) => new Shrunk(handle, state.form, state.by, callsBefore + state.call));
  }

  private draft(trace: Trace, caches = this.caches): ContextDraft {
    const { renderInput, model } = this.settings;
    if (renderInput === null || model === null) {
      const missing = [renderInput === null ? "renderInput" : null, model === null ? "model" : null]
        .filter(Boolean)
        .join(" and ");
      throw new MissingTurnError(
        `The MessageBuilder has no ${missing}: give the turn's parts with forTurn, or when you make the builder.`,
      );
    }
    return new ContextDraft(
      { ...this.settings, renderInput },
      trace,
      cacheFor(caches, trace.thread, this.settings.keep),
    );
  }

  private forms(draft: ContextDraft, trace: Trace): PlannedForms {
    const { limits, policy, model } = this.settings;
    return limits === null ? noForms() : planForms(draft, trace, { policy, limits, model: model! });
  }
}

function definedOnly(options: MessageBuilderOptions): MessageBuilderOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function renderersMap(
  renderers: Iterable<readonly [EventType<any, any>, RenderEvent]>,
): ReadonlyMap<EventType<any, any>, RenderEvent> {
  const entries =
    typeof (renderers as Partial<Iterable<unknown>>)?.[Symbol.iterator] === "function" ? [...renderers] : null;
  const fits = entries?.every(
    (entry) =>
      Array.isArray(entry) &&
      typeof (entry[0] as Partial<EventType>)?.is === "function" &&
      typeof entry[1] === "function",
  );
  if (!entries || !fits) {
    throw new ValueError(
      "renderers must be a Map, or [type, renderer] pairs, from event types (from defineEventType) to RenderEvent functions.",
    );
  }
  return new Map(entries);
}

function checkSettings(settings: Settings): void {
  if (typeof settings.show !== "function") throw new ValueError("show must be a Show function, such as xml().");
  if (settings.select !== null && typeof settings.select !== "function")
    throw new ValueError(
      "select must be a function of the trace, such as only(Input, ModelOutput, ToolOutput), or null.",
    );
  if (settings.prompt !== null && typeof settings.prompt !== "function")
    throw new ValueError("prompt must be a function of the example citation, or null.");
  if (settings.renderInput !== null && typeof settings.renderInput !== "function")
    throw new ValueError("renderInput must be a RenderInput function, or null.");
  if (settings.model !== null && (typeof settings.model !== "string" || settings.model === ""))
    throw new ValueError("model must be a model name, or null.");
  if (!(settings.policy instanceof ContextPolicy))
    throw new ValueError(
      "policy must be a ContextPolicy, such as new ContextPolicy({ resultCap: new Tokens(4_000) }).",
    );
  const names = settings.tools.map((def) => def.name);
  const reopen = settings.policy.reopen?.name;
  if (reopen !== undefined && names.includes(reopen)) {
    throw new ValueError(
      `A tool is named "${reopen}", like the policy's reopen tool: rename one, or give the policy reopen: null.`,
    );
  }
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined)
    throw new ValueError(`Two tools are named "${twice}": each tool a call offers needs its own name.`);
}

// The options of either constructor form; anything else is refused with the forms that work.
function builderOptions(first: unknown, rest: unknown): MessageBuilderOptions {
  const isOptions = (value: unknown) =>
    typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
  if (first instanceof ContextPolicy) {
    if (!isOptions(rest) || "policy" in (rest as object))
      throw new ValueError(
        "new MessageBuilder(policy, options) takes the other settings after the policy, without a second policy: " +
          "new MessageBuilder(policy, { show }).",
      );
    return { ...(rest as MessageBuilderOptions), policy: first };
  }
  if (!isOptions(first))
    throw new ValueError(
      "MessageBuilder takes a ContextPolicy or an options object: new MessageBuilder(policy) or " +
        "new MessageBuilder({ policy, show, select, ... }).",
    );
  return first as MessageBuilderOptions;
}

// only: the usual selection of events for MessageBuilder.select.

/**
 * A selection of the events of `types`, subtypes included, in the order of the trace, such as
 * `only(Input, ModelOutput, ToolOutput)`. Element numbers stay the thread's: a selection never renumbers.
 * @throws ValueError when no type is given.
 */
export function only(...types: EventType<any, any>[]): (trace: Trace) => Event[] {
  if (types.length === 0)
    throw new ValueError("only() needs at least one event type, such as only(Input, ModelOutput, ToolOutput).");
  return (trace) => trace.events.filter((event) => types.some((type) => type.is(event)));
}
