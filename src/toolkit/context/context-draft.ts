/**
 * ContextDraft: the parts of one build that every model call of the running turn shares: numbers, handles,
 * recordings, and each event's messages made once. It lays out the context of any view of the stream
 * (the trace before one call) with given result shapes, to measure it or to send it.
 */
import type { Element } from "../../domain/elements.js";
import {
  Compaction,
  ModelOutput,
  Reopened,
  ToolOutput,
  type Event,
  type EventType,
  type ToolCall,
} from "../../domain/events.js";
import { Numbering } from "../../domain/numbering.js";
import { type Trace, turnEvents } from "../../domain/trace.js";
import { SystemMessage, ToolResult, UserMessage, type Message, type ToolDef } from "../../ports/messages.js";
import { ChatRequest } from "../../ports/request.js";
import type { Budget } from "../../runtime/budget.js";
import type { CitationStrategy, Show } from "../../runtime/contracts.js";
import { resultHandles, type Handles } from "../../runtime/tools/ids.js";
import { shownArguments } from "../../runtime/tools/arguments.js";
import type { RenderInput } from "../inputs/render.js";
import type { ContextPolicy } from "./context-policy.js";
import { eventMessages, type EventRendering } from "./event-messages.js";
import { limitImages } from "./images.js";
import type { ModelLimits } from "./limits.js";
import { Reasoning } from "./reasoning.js";
import { Recordings } from "./recordings.js";
import { reopenedOutput } from "./reopened-output.js";
import type { RenderEvent } from "./render-event.js";
import { FULL_SHAPE, shownResult, type ResultShape, type Shaping, type ShownResult } from "./shown-result.js";

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
