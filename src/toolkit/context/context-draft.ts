/**
 * ContextDraft: the parts of one build that every model call of the running turn shares (numbers, handles,
 * recordings, each event's messages made once). It lays out the context of any view of the stream (the trace
 * before one call) with given result shapes, to measure it or to send it. What it renders it keeps in a
 * ThreadCache (thread-cache.ts), which the builder keeps for the next build; the forms of the results are
 * planned in form-plan.ts.
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
import { appended, extendsList } from "../../domain/lists.js";
import type { Trace } from "../../domain/trace.js";
import { type Message, SystemMessage, type ToolDef, ToolResult, UserMessage } from "../../ports/messages.js";
import { ChatRequest, charactersOf } from "../../ports/request.js";
import type { Budget } from "../../runtime/budget.js";
import type { CitationStrategy, Show } from "../../runtime/contracts.js";
import { shownArguments } from "../../runtime/tools/arguments.js";
import { handleNumber } from "../../runtime/tools/ids.js";
import type { RenderInput } from "../inputs/render.js";
import { type ContextPolicy, Reasoning } from "./context-policy.js";
import { FULL, type Shorten, asRecorded, shortened } from "./forms.js";
import type { ModelLimits } from "./limits.js";
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
import { reopenedOutput } from "./reopen.js";
import { measureOf, renderOf } from "./xml.js";
import { changedSince, firstChanged, shapeKey } from "./result-shapes.js";
import { type ThreadCache, valuesOf } from "./thread-cache.js";
import {
  type KeptEvent,
  type LaidOut,
  type Layout,
  PairList,
  type PlannedForms,
  type Rendered,
  type ShownPlace,
  ShownResults,
  type Sizes,
  type Visible,
} from "./draft-types.js";

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

/** The shared parts of one build. */
export class ContextDraft {
  private readonly rendering: EventRendering;
  private readonly shaping: Shaping;
  private readonly running: ReadonlySet<Event>;
  private readonly visibleByView = new WeakMap<Trace, Visible>();
  private promptText: string | null | undefined;
  private readonly withReopen: readonly ToolDef[];

  /** `trace` is the stream's trace of the call to build: its running turn decides which reasoning is current. */
  constructor(
    private readonly settings: DraftSettings,
    trace: Trace,
    /** What the builder keeps of the trace's thread: it has read every event of the thread. */
    readonly cache: ThreadCache,
  ) {
    this.numbering = cache.numbering.upToNow();
    this.running = new Set(trace.events.slice(cache.units.turnStarts(trace.events).at(-1) ?? 0));
    const reopen = settings.policy.reopen?.def() ?? null;
    // The tools with reopen, made once per build: each call of the turn that shortens something offers them.
    this.withReopen = reopen === null ? settings.tools : [...settings.tools, reopen];
    const defs = new Map([...(reopen === null ? [] : [reopen]), ...settings.tools].map((def) => [def.name, def]));
    // The xml layout shows textless elements (dropText's) without copying them; `textless` comes only where it
    // measures.
    const render = renderOf(settings.show) ?? settings.show;
    const show = (elements: readonly Element[], tool: string | null, textless?: readonly boolean[]) =>
      render(elements, cache.numbering, tool, settings.citations, textless);
    // A result is made smaller by each Shorten once while the cache keeps it, whichever shapes show it.
    const formed = (shorten: Shorten, output: ToolOutput, limits: ModelLimits, tool: string | null) => {
      // The default full form is the result itself: nothing to make or keep.
      if (shorten === asRecorded) return output;
      let byShorten = cache.formed.get(output);
      if (byShorten === undefined) cache.formed.set(output, (byShorten = new PairList()));
      let made = byShorten.get(shorten);
      if (made === undefined) byShorten.set(shorten, (made = shortened(shorten, output, limits, tool)));
      return made;
    };
    const measureShow = measureOf(settings.show);
    const measure =
      measureShow === undefined
        ? undefined
        : (elements: readonly Element[], tool: string | null, textless?: readonly boolean[]) =>
            measureShow(elements, cache.numbering, tool, settings.citations, textless);
    this.shaping = { policy: settings.policy, limits: settings.limits, show, measure, formed };
    this.rendering = {
      renderInput: settings.renderInput,
      renderers: settings.renderers,
      show,
      toolOf: (callId) => this.cache.recordings.toolOf(callId),
      // A call of a tool this turn does not offer shows as recorded: without its definition its ids are unknown.
      shownCall: (call: ToolCall) => {
        const def = defs.get(call.name);
        return def === undefined ? call : shownArguments(call, def, cache.numbering, cache.handles);
      },
    };
    cache.renderWith(
      {
        renderInput: settings.renderInput,
        citations: settings.citations,
        limits: valuesOf(settings.limits),
        calls: JSON.stringify([...defs.values()].map((def) => [def.name, def.elements, def.results])),
      },
      (event) => eventMessages(event, this.rendering),
    );
  }

  /** The numbers of the thread's elements, as they are at this build. */
  readonly numbering: Numbering;

  /** The events a call at `view` shows: the selection, without the events a Compaction replaced. */
  visible(view: Trace): Visible {
    let visible = this.visibleByView.get(view);
    if (visible !== undefined) return visible;
    visible = this.visibleAfterLast(view) ?? this.visibleAnew(view);
    if (visible.base === undefined && this.summable(visible))
      visible.base = this.sizes(visible.events, visible.handles, 0);
    this.visibleByView.set(view, visible);
    if (this.settings.select === null) this.cache.lastVisible = { view: view.events, visible };
    return visible;
  }

  // The events of a view that extends the view asked about last, when no event appended since is a summary: they
  // show after the last view's, whose lists this one shares.
  private visibleAfterLast(view: Trace): Visible | undefined {
    const last = this.cache.lastVisible;
    if (this.settings.select !== null || last === undefined || !extendsList(last.view, view.events)) return undefined;
    const appendedEvents = view.events.slice(last.view.length);
    const byPlace = this.cache.keptIn(view.events);
    const added = appendedEvents.map((_event, offset) =>
      this.cache.keptAt(view.events, byPlace, last.view.length + offset),
    );
    if (added.some((kept) => kept.kind.compaction)) return undefined;
    const before = last.visible;
    const shownBefore = before.events.length;
    // Where every event of the last view showed, every event of this one does: its list is the view's own.
    const events = before.events === last.view ? view.events : appended(before.events, appendedEvents);
    // The last view's handles grow in place unless a view extended it already: each view reads only its own length.
    const lastHandles = before.handles as (string | undefined)[];
    const handles = lastHandles.length === shownBefore ? lastHandles : lastHandles.slice(0, shownBefore);
    for (const kept of added) handles.push(kept.handle);
    // A handle that names a second result (a call id recorded twice) would change what the shorter views read.
    const shared = before.results.places;
    const again = added.some((kept) => kept.handle !== undefined && shared[handleNumber(kept.handle)] !== undefined);
    const places = again ? shared.slice() : shared;
    added.forEach((kept, offset) => {
      if (kept.handle !== undefined)
        places[handleNumber(kept.handle)] = {
          result: appendedEvents[offset] as ToolOutput,
          at: shownBefore + offset,
          kept,
        };
    });
    const visible: Visible = {
      events,
      handles,
      summary: before.summary,
      results: new ShownResults(places, events.length),
    };
    if (before.base !== undefined) visible.base = this.sizes(events, handles, shownBefore, before.base);
    return visible;
  }

  // The events of a view read from its start: the selection, from the last summary on.
  private visibleAnew(view: Trace): Visible {
    const byPlace = this.cache.keptIn(view.events);
    let last = view.events.length - 1;
    while (last >= 0 && !this.cache.keptAt(view.events, byPlace, last).kind.compaction) last -= 1;
    const compaction = last < 0 ? undefined : (view.events[last] as Compaction);
    const replaced = new Set(view.events.slice(0, compaction === undefined ? 0 : compaction.keptFrom));
    const selected = this.settings.select === null ? view.events : this.settings.select(view);
    const handles: (string | undefined)[] = [];
    const places: (ShownPlace | undefined)[] = [];
    // A view that shows every event shows its own list: the next view's list extends it (extendsList).
    const events = this.show(selected, selected === view.events ? byPlace : undefined, replaced, handles, places);
    return { events, handles, summary: compaction?.summary ?? null, results: new ShownResults(places, events.length) };
  }

  // Shapes are summed, not laid out, where every result of the turn's views stays shown and each event's
  // size holds from build to build: no selection, no summary, no image left out, no reasoning by turn.
  private summable(visible: Visible): boolean {
    const { select, policy } = this.settings;
    return (
      select === null &&
      visible.summary === null &&
      policy.maxImages === null &&
      policy.reasoning !== Reasoning.CURRENT_TURN
    );
  }

  // The sizes of the events from `from` on, every result full, added to `sizes`.
  private sizes(
    events: readonly Event[],
    handles: readonly (string | undefined)[],
    from: number,
    sizes: Sizes = { characters: 0, shortened: 0 },
  ): Sizes {
    let { characters, shortened } = sizes;
    const byPlace = this.cache.keptIn(events);
    for (let index = from; index < events.length; index += 1) {
      const kept = this.cache.keptAt(events, byPlace, index);
      if (handles[index] === undefined) {
        characters += this.messagesOf(events[index]!, kept).characters;
        continue;
      }
      const made = this.result(events[index] as ToolOutput, FULL_SHAPE, kept);
      characters += made.length;
      if (made.shortened) shortened += 1;
    }
    return { characters, shortened };
  }

  // The events that show: `selected` itself where every event does. Add each one's handle, and each result's
  // place by its handle.
  private show(
    selected: readonly Event[],
    byPlace: readonly KeptEvent[] | undefined,
    replaced: ReadonlySet<Event>,
    handles: (string | undefined)[],
    places: (ShownPlace | undefined)[],
  ): readonly Event[] {
    // A list of its own from the first event left out: most views show every event.
    let events: Event[] | undefined;
    for (let index = 0; index < selected.length; index += 1) {
      const event = selected[index]!;
      const kept = this.cache.keptAt(selected, byPlace, index);
      if (kept.kind.compaction || (replaced.size > 0 && replaced.has(event))) {
        events ??= selected.slice(0, index);
        continue;
      }
      const handle = kept.handle;
      if (handle !== undefined)
        places[handleNumber(handle)] = { result: event as ToolOutput, at: handles.length, kept };
      events?.push(event);
      handles.push(handle);
    }
    return events ?? selected;
  }

  /** The trace before the event at `index`, as Trace.before makes it; the shrinks read its thread's handles from the cache. */
  before(trace: Trace, index: number): Trace {
    return trace.before(index);
  }

  /** The result to shape: a reopen result with its content drawn in, any other result as recorded. */
  output(event: ToolOutput, kept: KeptEvent = this.cache.keptOf(event)): ToolOutput {
    if (!kept.kind.reopened) return event;
    let output = kept.reopenedOutput;
    if (output === undefined) {
      const wholeResult = (output: ToolOutput) => this.result(output, FULL_SHAPE).content;
      const fullElements = (output: ToolOutput) => this.fullOutput(output).elements;
      output = reopenedOutput(event as Reopened, {
        recordings: this.cache.recordings,
        numbering: this.cache.numbering,
        handles: this.cache.handles,
        wholeResult,
        fullElements,
      });
      kept.reopenedOutput = output;
    }
    return output;
  }

  // A recorded result as the full form of its tool makes it (as recorded without limits); the reopen result that
  // draws it in is kept with the thread, so it is made once.
  private fullOutput(output: ToolOutput): ToolOutput {
    const { limits, policy } = this.settings;
    if (limits === null) return output;
    const tool = this.toolOf(output);
    return this.shaping.formed!(policy.shortenFor(tool ?? "", FULL), output, limits, tool);
  }

  /** The name of the tool whose result this is: the reopen tool for a reopen result. */
  toolOf(event: ToolOutput, kept?: KeptEvent): string | null {
    if ((kept === undefined ? Reopened.is(event) : kept.kind.reopened) && this.settings.policy.reopen !== null)
      return this.settings.policy.reopen.name;
    if (kept === undefined) return this.cache.recordings.toolOf(event.callId);
    // The recorded call's tool, looked up once: a result is shaped in several shapes.
    if (kept.tool === undefined) kept.tool = this.cache.recordings.toolOf(event.callId);
    return kept.tool;
  }

  /** A result in a shape, made once per shape (by its form and floors) for as long as the builder keeps the thread. */
  result(event: ToolOutput, shape: ResultShape, kept: KeptEvent = this.cache.keptOf(event)): ShownResult {
    const byShape = (kept.shown ??= new PairList());
    const key = shapeKey(shape);
    let made = byShape.get(key);
    if (made === undefined) {
      made = shownResult(this.output(event, kept), this.toolOf(event, kept), kept.handle ?? "", shape, this.shaping);
      byShape.set(key, made);
    }
    return made;
  }

  /** Lay out the context of a call at `view`, each shown result in the shape `forms` gives it (full where none). */
  layout(view: Trace, forms: PlannedForms): Layout {
    const visible = this.visible(view);
    const change = forms.sizeChange;
    if (visible.base !== undefined && change !== undefined) return this.layoutOn(view, visible, forms, change);
    const messages: Message[] = [];
    let characters = 0;
    const shortened = this.walk(
      view,
      forms.states,
      (system) => {
        messages.push(SystemMessage(system));
        characters += system.length;
      },
      (rendered) => {
        for (const message of rendered.messages) messages.push(message);
        characters += rendered.characters;
      },
      (result, made) => {
        messages.push(this.resultMessage(result, made));
        characters += made.length;
      },
    );
    const tools = this.offered(view, shortened);
    const limited = limitImages(messages, this.settings.policy.maxImages);
    // Images left out change the count: then the laid-out messages are counted again.
    const counted =
      this.settings.policy.maxImages === null
        ? characters + new ChatRequest([], tools).characters
        : new ChatRequest(limited, tools).characters;
    return { messages: limited, tools, shortened, characters: counted };
  }

  // Where shapes are summed (see summable), each event's messages hold from build to build: the messages laid out
  // last are kept up to the first event that is not the same or a result in another shape.
  private layoutOn(view: Trace, visible: Visible, forms: PlannedForms, change: Sizes): Layout {
    const { events, base } = visible;
    const last = this.cache.lastLayout;
    const { from, keptResults } =
      last === undefined ? { from: 0, keptResults: 0 } : this.keptOfLast(last, events, forms);
    // The last layout is this cache's alone: it is cut back to what still holds and goes on from there.
    const laid: LaidOut = last ?? { events, forms, messages: [], starts: [], results: [], rising: true };
    laid.messages.length = from === 0 ? 0 : laid.starts[from]!;
    const keptMessages = laid.messages.length;
    laid.starts.length = from;
    laid.results.length = from === 0 ? 0 : keptResults;
    if (laid.results.length === 0) laid.rising = true;
    laid.events = events;
    laid.forms = forms;
    this.layOutFrom(laid, visible, from);
    this.cache.lastLayout = laid;
    const { shortened, tools, characters } = this.summed(view, visible.summary, base!, change);
    const messages = this.handedOut(laid, this.systemText(visible.summary), keptMessages);
    return { messages, tools, shortened, characters };
  }

  // How much of the last layout holds for `events` in `forms`: the first event to lay out again, and how many of
  // its results keep their messages.
  private keptOfLast(last: LaidOut, events: readonly Event[], forms: PlannedForms) {
    if (!extendsList(last.events, events)) return { from: 0, keptResults: 0 };
    const shapes = forms.states;
    let from = last.events.length;
    let kept = 0;
    // The same forms show each result as laid out last; forms that passes made from them, each result but those
    // the passes changed.
    const changed = last.forms.states === shapes ? [] : last.rising ? changedSince(last.forms, forms) : undefined;
    if (changed !== undefined) kept = firstChanged(last.results, changed, shapes);
    // From the first result in another shape on, each is compared.
    for (; kept < last.results.length; kept += 1) {
      const laidOut = last.results[kept]!;
      const shape = shapes.get(laidOut.handle) ?? FULL_SHAPE;
      if (shape === laidOut.shape) continue;
      // A shape of the same key shows the result as the same kept message (a turn's first pass makes new shapes).
      if (shapeKey(shape) !== shapeKey(laidOut.shape)) {
        from = laidOut.at;
        break;
      }
      laidOut.shape = shape;
    }
    return { from, keptResults: kept };
  }

  // Lay out the events of `visible` from the one at `from` on, after the messages `laid` keeps.
  private layOutFrom(laid: LaidOut, visible: Visible, from: number): void {
    const { events, handles } = visible;
    const { messages, starts, results } = laid;
    const shapes = laid.forms.states;
    const byPlace = this.cache.keptIn(events);
    let previous = results.length === 0 ? 0 : handleNumber(results.at(-1)!.handle);
    for (let index = from; index < events.length; index += 1) {
      starts.push(messages.length);
      const handle = handles[index];
      const kept = this.cache.keptAt(events, byPlace, index);
      if (handle === undefined) {
        // By index: an iterator over each event's few messages is an object each time.
        const own = this.messagesOf(events[index]!, kept).messages;
        for (let at = 0; at < own.length; at += 1) messages.push(own[at]!);
        continue;
      }
      const shape = shapes.get(handle) ?? FULL_SHAPE;
      const result = events[index] as ToolOutput;
      messages.push(this.resultMessage(result, this.result(result, shape, kept)));
      const number = handleNumber(handle);
      laid.rising &&= number > previous;
      previous = number;
      results.push({ at: index, handle, shape });
    }
    starts.push(messages.length);
  }

  // The messages to hand out: the last ones up to the first change, in a list known to share them with the last
  // (ChatRequest.hash goes on from it without comparing them); the same system message is the same object.
  private handedOut(laid: LaidOut, system: string | null, keptMessages: number): readonly Message[] {
    const { sent, messages } = laid;
    const lastSystem = sent?.[0]?.role === "system" ? sent[0] : undefined;
    const sameSystem = (lastSystem?.content ?? null) === system;
    const offset = lastSystem === undefined ? 0 : 1;
    if (sent !== undefined && sameSystem)
      laid.sent = appended(sent, messages.slice(keptMessages), offset + keptMessages);
    else if (system === null) laid.sent = messages.slice();
    else laid.sent = ([SystemMessage(system)] as Message[]).concat(messages);
    return laid.sent;
  }

  // The size of a context whose shapes are summed: the system text, the events with every result full, what
  // the shapes change, and the tools offered (reopen once something is shortened).
  private summed(view: Trace, summary: string | null, base: Sizes, change: Sizes) {
    const system = this.systemText(summary);
    const shortened = base.shortened + change.shortened > 0 || summary !== null;
    const tools = this.offered(view, shortened);
    const characters =
      (system === null ? 0 : system.length) +
      base.characters +
      change.characters +
      new ChatRequest([], tools).characters;
    return { shortened, tools, characters };
  }

  /**
   * The characters of the context of a call at `view` in these shapes, as ChatRequest counts them: the sum
   * of each event's counted characters, without laying the context out (unless images may be left out).
   */
  characters(view: Trace, forms: PlannedForms): number {
    if (this.settings.policy.maxImages !== null) return this.layout(view, forms).characters;
    const { base, summary } = this.visible(view);
    const change = forms.sizeChange;
    if (base !== undefined && change !== undefined) return this.summed(view, summary, base, change).characters;
    let characters = 0;
    const shortened = this.walk(
      view,
      forms.states,
      (system) => (characters += system.length),
      (rendered) => (characters += rendered.characters),
      (_result, made) => (characters += made.length),
    );
    return characters + new ChatRequest([], this.offered(view, shortened)).characters;
  }

  /** Visit the system text, then each shown event's messages or shown result, in order; whether a result or the history is shortened. */
  private walk(
    view: Trace,
    shapes: ReadonlyMap<string, ResultShape>,
    onSystem: (text: string) => void,
    onEvent: (rendered: Rendered) => void,
    onResult: (result: ToolOutput, made: ShownResult) => void,
  ): boolean {
    const { events, handles, summary } = this.visible(view);
    const system = this.systemText(summary);
    if (system !== null) onSystem(system);
    let shortened = summary !== null;
    events.forEach((event, index) => {
      const handle = handles[index];
      if (handle === undefined) return onEvent(this.messagesOf(event));
      const made = this.result(event as ToolOutput, shapes.get(handle) ?? FULL_SHAPE);
      shortened ||= made.shortened;
      onResult(event as ToolOutput, made);
    });
    return shortened;
  }

  // A result's message is made once for each way it is shown.
  private resultMessage(result: ToolOutput, made: ShownResult): Message {
    made.message ??= result.callId === null ? UserMessage(made.content) : ToolResult(result.callId, made.content);
    return made.message;
  }

  /** The tools a call at `view` offers: none once the budget withdraws them; reopen after the others once something is shortened. */
  private offered(view: Trace, shortened: boolean): readonly ToolDef[] {
    const { budget, tools } = this.settings;
    if (budget !== null && budget.withdrawsTools(view)) return [];
    return shortened ? this.withReopen : tools;
  }

  /** What the passes of a build depend on besides the renders: the prompt, the model, the tools offered and the budget. */
  planningParts(model: string): readonly unknown[] {
    const { tools, budget } = this.settings;
    return [this.systemText(null), model, JSON.stringify(tools), ...valuesOf(budget)];
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

  // Each event renders once while the builder keeps its thread; the reasoning of a model output follows the policy.
  private messagesOf(event: Event, kept: KeptEvent = this.cache.keptOf(event)): Rendered {
    let made = kept.messages;
    if (made === undefined) {
      const messages = eventMessages(event, this.rendering);
      made = kept.messages = { messages, characters: charactersOf(messages) };
    }
    const reasoning = kept.kind.modelOutput ? this.reasoningOf(event as ModelOutput) : null;
    if (reasoning === null) return made;
    if (kept.reasoned === undefined) {
      const messages = made.messages.map((message) =>
        message.role === "assistant" ? { ...message, reasoning } : message,
      );
      kept.reasoned = { messages, characters: charactersOf(messages) };
    }
    return kept.reasoned;
  }

  private reasoningOf(output: ModelOutput): string | null {
    const setting = this.settings.policy.reasoning;
    if (setting === Reasoning.ALWAYS || (setting === Reasoning.CURRENT_TURN && this.running.has(output)))
      return output.reasoning;
    return null;
  }
}
