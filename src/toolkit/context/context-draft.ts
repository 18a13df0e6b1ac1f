/**
 * ContextDraft and form planning: the parts of one build that every model call of the running turn shares
 * (numbers, handles, recordings, each event's messages made once), which lay out the context of any view
 * of the stream, and the forms of the results, worked out again at each build from the first call of the
 * running turn.
 */
import type { Element } from "../../domain/elements.js";
import {
  Compaction,
  type Event,
  type EventType,
  ModelOutput,
  Reopened,
  type ToolCall,
  ToolOutput,
} from "../../domain/events.js";
import { Numbering } from "../../domain/numbering.js";
import { type Trace, turnEvents, turnStarts } from "../../domain/trace.js";
import { type Message, SystemMessage, type ToolDef, ToolResult, UserMessage } from "../../ports/messages.js";
import { ChatRequest } from "../../ports/request.js";
import type { Budget } from "../../runtime/budget.js";
import type { CitationStrategy, Show } from "../../runtime/contracts.js";
import { shownArguments } from "../../runtime/tools/arguments.js";
import { type Handles, resultHandles } from "../../runtime/tools/ids.js";
import type { RenderInput } from "../inputs/render.js";
import { type ContextPolicy, Reasoning } from "./context-policy.js";
import { FULL, type Form, STUBBED } from "./forms.js";
import type { MeasuredPrompt, ModelLimits } from "./limits.js";
import {
  type EventRendering,
  FULL_SHAPE,
  type RenderEvent,
  type ResultShape,
  type Shaping,
  type ShownResult,
  eventMessages,
  limitImages,
  shownResult,
} from "./render.js";
import { Recordings, reopenedOutput } from "./reopen.js";
import type { Shrink } from "./shrink.js";

// ContextDraft: the parts of one build that every model call of the running turn shares: numbers, handles,
// recordings, and each event's messages made once. It lays out the context of any view of the stream
// (the trace before one call) with given result shapes, to measure it or to send it.

/** How the summary of a Compaction follows the prompt in the system message; {summary} becomes it. */
export const SUMMARY_TEXT = "A summary of the earlier conversation, which the messages below continue:\n{summary}";

/** What a draft needs: the builder's settings with the turn's parts. */
export interface DraftSettings {
  renderInput: RenderInput;
  renderers: ReadonlyMap<EventType<any, any>, RenderEvent>;
  show: Show;
  select: ((trace: Trace) => readonly Event[]) | null;
  prompt: ((citation: string | null) => string) | null;
  citations: CitationStrategy | null;
  tools: readonly ToolDef[];
  budget: Budget | null;
  policy: ContextPolicy;
  limits: ModelLimits | null;
}

/** The events one call shows, and the summary that stands for the events before them. */
export interface Visible {
  events: readonly Event[];
  summary: string | null;
  /** The shown results (with a handle), by handle. */
  results: ReadonlyMap<string, ToolOutput>;
}

/** A laid-out context: its messages and tools, and whether it shows a result shortened. */
export interface Layout {
  messages: Message[];
  tools: readonly ToolDef[];
  shortened: boolean;
}

/** The shared parts of one build. */
export class ContextDraft {
  readonly numbering: Numbering;
  readonly handles: Handles;
  readonly recordings: Recordings;
  private readonly rendering: EventRendering;
  private readonly shaping: Shaping;
  private readonly running: ReadonlySet<Event>;
  private readonly messages = new Map<Event, readonly Message[]>();
  private readonly shown = new Map<Event, Map<ResultShape, ShownResult>>();
  private readonly drawn = new Map<Event, ToolOutput>();
  private readonly visibleByView = new WeakMap<Trace, Visible>();
  private promptText: string | null | undefined;

  /** `trace` is the stream's trace of the call to build: its running turn decides which reasoning is current. */
  constructor(
    private readonly settings: DraftSettings,
    trace: Trace,
  ) {
    const thread = trace.thread.events;
    this.numbering = new Numbering(thread);
    this.handles = resultHandles(thread);
    this.recordings = new Recordings(thread);
    this.running = new Set(turnEvents(trace.events));
    const reopen = settings.policy.reopen;
    const defs = new Map([...(reopen === null ? [] : [reopen.def()]), ...settings.tools].map((def) => [def.name, def]));
    const show = (elements: readonly Element[], tool: string | null) =>
      settings.show(elements, this.numbering, tool, settings.citations);
    this.shaping = { policy: settings.policy, limits: settings.limits, show };
    this.rendering = {
      renderInput: settings.renderInput,
      renderers: settings.renderers,
      show,
      toolOf: (callId) => this.recordings.toolOf(callId),
      // A call of a tool this turn does not offer shows as recorded: without its definition its ids are unknown.
      shownCall: (call: ToolCall) => {
        const def = defs.get(call.name);
        return def === undefined ? call : shownArguments(call, def, this.numbering, this.handles);
      },
    };
  }

  /** The events a call at `view` shows: the selection, without the events a Compaction replaced. */
  visible(view: Trace): Visible {
    const known = this.visibleByView.get(view);
    if (known !== undefined) return known;
    const compaction = view.events.findLast((event): event is Compaction => Compaction.is(event));
    const replaced = new Set(compaction === undefined ? [] : view.events.slice(0, compaction.keptFrom));
    const selected = this.settings.select === null ? view.events : this.settings.select(view);
    const events = selected.filter((event) => !replaced.has(event) && !Compaction.is(event));
    const results = new Map<string, ToolOutput>();
    for (const event of events) {
      const handle = this.handleOf(event);
      if (handle !== undefined) results.set(handle, event as ToolOutput);
    }
    const visible = { events, summary: compaction?.summary ?? null, results };
    this.visibleByView.set(view, visible);
    return visible;
  }

  /** The handle of a result that shapes apply to, or undefined for any other event. */
  handleOf(event: Event): string | undefined {
    return ToolOutput.is(event) && event.callId !== null ? this.handles.handleOf(event.callId) : undefined;
  }

  /** The result to shape: a reopen result with its content drawn in, any other result as recorded. */
  output(event: ToolOutput): ToolOutput {
    if (!Reopened.is(event)) return event;
    let drawn = this.drawn.get(event);
    if (drawn === undefined) {
      const wholeResult = (output: ToolOutput) => this.result(output, FULL_SHAPE).content;
      drawn = reopenedOutput(event, {
        recordings: this.recordings,
        numbering: this.numbering,
        handles: this.handles,
        wholeResult,
      });
      this.drawn.set(event, drawn);
    }
    return drawn;
  }

  /** The name of the tool whose result this is: the reopen tool for a reopen result. */
  toolOf(event: ToolOutput): string | null {
    return Reopened.is(event) && this.settings.policy.reopen !== null
      ? this.settings.policy.reopen.name
      : this.recordings.toolOf(event.callId);
  }

  /** A result in a shape, made once per shape. */
  result(event: ToolOutput, shape: ResultShape): ShownResult {
    let byShape = this.shown.get(event);
    if (byShape === undefined) this.shown.set(event, (byShape = new Map()));
    let made = byShape.get(shape);
    if (made === undefined) {
      made = shownResult(this.output(event), this.toolOf(event), this.handleOf(event) ?? "", shape, this.shaping);
      byShape.set(shape, made);
    }
    return made;
  }

  /** Lay out the context of a call at `view`, each shown result in its shape (full when `shapes` has none). */
  layout(view: Trace, shapes: ReadonlyMap<string, ResultShape>): Layout {
    const { events, summary } = this.visible(view);
    const messages: Message[] = [];
    const system = this.systemText(summary);
    if (system !== null) messages.push(SystemMessage(system));
    let shortened = summary !== null;
    for (const event of events) {
      const handle = this.handleOf(event);
      if (handle === undefined) {
        messages.push(...this.messagesOf(event));
        continue;
      }
      const result = event as ToolOutput;
      const made = this.result(result, shapes.get(handle) ?? FULL_SHAPE);
      shortened ||= made.shortened;
      messages.push(result.callId === null ? UserMessage(made.content) : ToolResult(result.callId, made.content));
    }
    return {
      messages: limitImages(messages, this.settings.policy.maxImages),
      tools: this.offered(view, shortened),
      shortened,
    };
  }

  /** The characters of the context of a call at `view` in these shapes, as ChatRequest counts them. */
  characters(view: Trace, shapes: ReadonlyMap<string, ResultShape>): number {
    const { messages, tools } = this.layout(view, shapes);
    return new ChatRequest(messages, tools).characters;
  }

  /** The tools a call at `view` offers: none once the budget withdraws them; reopen after the others once something is shortened. */
  private offered(view: Trace, shortened: boolean): readonly ToolDef[] {
    const { budget, tools, policy } = this.settings;
    if (budget !== null && budget.withdrawsTools(view)) return [];
    return policy.reopen !== null && shortened ? [...tools, policy.reopen.def()] : tools;
  }

  private systemText(summary: string | null): string | null {
    const { prompt, citations } = this.settings;
    // The prompt is written once per build, however many calls of the turn the policy lays out.
    if (this.promptText === undefined)
      this.promptText = prompt === null ? null : prompt(citations === null ? null : citations.write(1));
    const text = this.promptText;
    if (summary === null) return text;
    const shown = SUMMARY_TEXT.replaceAll("{summary}", summary);
    return text === null ? shown : `${text}\n\n${shown}`;
  }

  // Each event renders once per build; the reasoning of a model output follows the policy.
  private messagesOf(event: Event): readonly Message[] {
    let made = this.messages.get(event);
    if (made === undefined) {
      made = eventMessages(event, this.rendering);
      const reasoning = ModelOutput.is(event) ? this.reasoningOf(event) : null;
      if (reasoning !== null)
        made = made.map((message) => (message.role === "assistant" ? { ...message, reasoning } : message));
      this.messages.set(event, made);
    }
    return made;
  }

  private reasoningOf(output: ModelOutput): string | null {
    const setting = this.settings.policy.reasoning;
    if (setting === Reasoning.ALWAYS || (setting === Reasoning.CURRENT_TURN && this.running.has(output)))
      return output.reasoning;
    return null;
  }
}

// The forms of the results, worked out again at each build from the first model call of the running turn:
// at each call of the turn the shrinks run on the forms of the call before, so a form never rises within
// a turn, and a shrunk result keeps what floors kept when it shrank. Nothing is stored.

/** The shape of a shrunk result, and the shrink and the call that gave it its form. */
export interface ResultState extends ResultShape {
  /** The shrink that gave the form. */
  by: Shrink;
  /** The number of model calls before the call at which the shrink gave the form. */
  at: number;
}

/** The state of each shrunk result, by handle; a result that is not in it is full. */
export type ResultStates = ReadonlyMap<string, ResultState>;

/** What planning needs besides the draft. */
export interface Planning {
  policy: ContextPolicy;
  limits: ModelLimits;
  /** The model the calls go to: its recorded prompt counts make the estimate exact up to the last call. */
  model: string;
}

/** The result states of the next call of a stream's `trace`: each call of the running turn in turn, the next call last. */
export function planForms(draft: ContextDraft, trace: Trace, planning: Planning): ResultStates {
  const events = trace.events;
  const from = turnStarts(events).at(-1) ?? 0;
  const calls = events.flatMap((event, index) => (index >= from && ModelOutput.is(event) ? [index] : []));
  let states: ResultStates = new Map();
  for (const view of [...calls.map((index) => trace.before(index)), trace])
    states = shrinkPass(draft, view, states, planning);
  return states;
}

/** The estimated prompt tokens of a call at `view` in these states. */
export function promptTokens(draft: ContextDraft, view: Trace, states: ResultStates, planning: Planning): number {
  return planning.limits.promptTokens(draft.characters(view, states), measuredPrompt(view.events, planning.model));
}

/**
 * The real prompt tokens of the stream's last call to `model` that recorded them, with the characters its
 * prompt had, or null: from then on only the characters added are estimated.
 */
export function measuredPrompt(events: readonly Event[], model: string): MeasuredPrompt | null {
  const output = events.findLast(
    (event): event is ModelOutput =>
      ModelOutput.is(event) && event.model === model && event.usage !== null && event.promptCharacters !== null,
  );
  return output === undefined ? null : { tokens: output.usage!.promptTokens, characters: output.promptCharacters! };
}

/**
 * One pass of the shrinks at the call after `view`: over startAt, the shrinks without a `when` apply their
 * offers one at a time until the size is under target; a shrink with a `when` runs while the size is over
 * it. A pass that frees less than minGain is not made, unless without it the call would not fit.
 */
function shrinkPass(draft: ContextDraft, view: Trace, before: ResultStates, planning: Planning): ResultStates {
  const { policy, limits } = planning;
  const { startAt, target } = policy.thresholds(limits);
  const measured = measuredPrompt(view.events, planning.model);
  const { results } = draft.visible(view);
  let characters = draft.characters(view, before);
  const tokens = () => limits.promptTokens(characters, measured);
  const initial = tokens();
  const started = initial > startAt;
  const states = new Map(before);
  const at = view.events.filter((event) => ModelOutput.is(event)).length;
  for (const shrink of policy.shrink) {
    const when = shrink.when === undefined || shrink.when === null ? null : limits.tokens(shrink.when);
    const active = () => (when === null ? started && tokens() >= target : tokens() > when);
    if (!active()) continue;
    for (const [handle, form] of shrink(view, formsOf(states))) {
      const result = results.get(handle);
      const current = states.get(handle);
      // An offer that does not lower the form, or names a result the call does not show, frees nothing.
      if (result === undefined || !(form < (current?.form ?? FULL))) continue;
      const output = draft.output(result);
      const state: ResultState = {
        form,
        floors: floorsOf(output.elements, form, draft.toolOf(result), view, policy),
        by: shrink,
        at,
      };
      const freed =
        draft.result(result, current ?? FULL_SHAPE).content.length - draft.result(result, state).content.length;
      if (freed <= 0) continue;
      states.set(handle, state);
      characters -= freed;
      if (!active()) break;
    }
  }
  const gain = initial - tokens();
  const minGain = policy.minGain === null ? 0 : limits.tokens(policy.minGain);
  const fitsWithout = initial + policy.outputReserve.count <= limits.window.count;
  return gain > 0 && gain < minGain && fitsWithout ? before : states;
}

function formsOf(states: ResultStates): Map<string, Form> {
  return new Map([...states].map(([handle, state]) => [handle, state.form]));
}

/** The forms that floors lift the elements of a result to, above its own form, reading only the trace before the call. */
function floorsOf(
  elements: readonly Element[],
  form: Form,
  tool: string | null,
  view: Trace,
  policy: ContextPolicy,
): Map<string, Form> {
  const floors = new Map<string, Form>();
  for (const element of elements) {
    let lifted: Form = STUBBED;
    for (const floor of policy.protect)
      if (floor.form > lifted && floor.applies(element, tool, view)) lifted = floor.form;
    if (lifted > form) floors.set(element.id, lifted);
  }
  return floors;
}
