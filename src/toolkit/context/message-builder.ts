/**
 * MessageBuilder: the context builder of a turn and the default ContextStrategy of a ReActAgent. It
 * builds each request as a pure function of the trace: the system prompt, the selected events as
 * messages, and the tools offered.
 */
import { ValueError } from "../../domain/errors.js";
import type { Element } from "../../domain/elements.js";
import { ModelOutput, type Event, type EventType, type ToolCall } from "../../domain/events.js";
import { Numbering } from "../../domain/numbering.js";
import type { Trace } from "../../domain/trace.js";
import { SystemMessage, type Message, type ToolDef } from "../../ports/messages.js";
import { ChatRequest } from "../../ports/request.js";
import type { Budget } from "../../runtime/budget.js";
import type { CitationStrategy, ContextBuilder, ModelContext, Show, Step, Tool } from "../../runtime/contracts.js";
import { resultHandles } from "../../runtime/handles.js";
import type { LlmStep } from "../../runtime/steps/llm-step.js";
import { shownArguments } from "../../runtime/tools/arguments.js";
import type { RenderInput } from "../inputs/render.js";
import type { ContextStrategy, TurnParts } from "../react/strategy.js";
import { MissingTurnError } from "./errors.js";
import { eventMessages } from "./event-messages.js";
import type { ModelLimits } from "./limits.js";
import type { RenderEvent } from "./render-event.js";
import { xml } from "./xml.js";

/** The settings of a MessageBuilder: its own (policy, show, select, renderers), then the parts of one turn. */
export interface MessageBuilderOptions {
  /**
   * How the builder keeps the context within the model's limits. Accepted and kept, not yet applied:
   * the context-policy work types it as ContextPolicy and adds shrinking, compaction and reopen.
   */
  policy?: unknown;
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
  /** The limits of the model. Accepted and kept, not yet applied: the context-policy work checks sizes by them. */
  limits?: ModelLimits | null;
}

type Settings = Required<Omit<MessageBuilderOptions, "renderers">> & { renderers: ReadonlyMap<EventType<any, any>, RenderEvent> };

/** The defaults of a MessageBuilder, in one place (show is made per builder: xml() is cheap and stateless). */
const DEFAULTS: Omit<Settings, "show"> = {
  policy: null,
  select: null,
  renderers: new Map(),
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
 */
export class MessageBuilder implements ContextBuilder, ContextStrategy {
  /** The tools the builder offers itself: none yet (the context-policy work adds reopen). */
  readonly addedTools: readonly Tool[] = [];
  private readonly settings: Settings;

  /** @throws ValueError when a setting has the wrong shape or two tools share a name. */
  constructor(options: MessageBuilderOptions = {}) {
    const given = definedOnly(options);
    const settings: Settings = { ...DEFAULTS, show: xml(), ...given, renderers: renderersMap(given.renderers ?? []) };
    checkSettings(settings);
    this.settings = { ...settings, tools: [...settings.tools] };
  }

  /** The policy as given: the context-policy work applies it. */
  get policy(): unknown {
    return this.settings.policy;
  }

  /** A copy of this builder with the parts of one turn. This builder does not change. */
  forTurn(parts: TurnParts): MessageBuilder {
    return new MessageBuilder({ ...this.settings, ...parts });
  }

  /** The model step with the builder's own steps around it: the step itself, until the policy adds compaction. */
  wrap(step: LlmStep, _limits: ModelLimits): Step {
    return step;
  }

  /**
   * Build the context of the next model call from a stream's trace; numbers and handles are the whole thread's.
   * @throws MissingTurnError when the builder has no renderInput or no model.
   * @throws UnrenderedEventError when a selected event's type is neither built in nor in renderers.
   */
  build(trace: Trace): ModelContext {
    const { renderInput, model, prompt, citations, show, select, renderers, tools, budget } = this.settings;
    if (renderInput === null || model === null) {
      const missing = [renderInput === null ? "renderInput" : null, model === null ? "model" : null].filter(Boolean).join(" and ");
      throw new MissingTurnError(`The MessageBuilder has no ${missing}: give the turn's parts with forTurn, or when you make the builder.`);
    }
    const thread = trace.thread.events;
    const numbering = new Numbering(thread);
    const handles = resultHandles(thread);
    const calls = callsById(thread);
    const defs = new Map(tools.map((def) => [def.name, def]));
    const rendering = {
      renderInput,
      renderers,
      show: (elements: readonly Element[], tool: string | null) => show(elements, numbering, tool, citations),
      toolOf: (callId: string) => calls.get(callId)?.name ?? null,
      // A call of a tool this turn does not offer shows as recorded: without its definition its ids are unknown.
      shownCall: (call: ToolCall) => {
        const def = defs.get(call.name);
        return def === undefined ? call : shownArguments(call, def, numbering, handles);
      },
    };
    const messages: Message[] = prompt === null ? [] : [SystemMessage(prompt(citations === null ? null : citations.write(1)))];
    for (const event of select === null ? trace.events : select(trace)) messages.push(...eventMessages(event, rendering));
    const offered = budget !== null && budget.withdrawsTools(trace) ? [] : tools;
    return { request: new ChatRequest(messages, offered), model, numbering, citations };
  }
}

/** Every tool call of the thread's model outputs, by call id. */
function callsById(events: readonly Event[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  for (const event of events) {
    if (ModelOutput.is(event)) for (const call of event.toolCalls) calls.set(call.id, call);
  }
  return calls;
}

function definedOnly(options: MessageBuilderOptions): MessageBuilderOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function renderersMap(renderers: Iterable<readonly [EventType<any, any>, RenderEvent]>): ReadonlyMap<EventType<any, any>, RenderEvent> {
  const entries = typeof (renderers as Partial<Iterable<unknown>>)?.[Symbol.iterator] === "function" ? [...renderers] : null;
  const fits = entries?.every((entry) => Array.isArray(entry) && typeof (entry[0] as Partial<EventType>)?.is === "function" && typeof entry[1] === "function");
  if (!entries || !fits) {
    throw new ValueError("renderers must be a Map, or [type, renderer] pairs, from event types (from defineEventType) to RenderEvent functions.");
  }
  return new Map(entries);
}

function checkSettings(settings: Settings): void {
  if (typeof settings.show !== "function") throw new ValueError("show must be a Show function, such as xml().");
  if (settings.select !== null && typeof settings.select !== "function") throw new ValueError("select must be a function of the trace, such as only(Input, ModelOutput, ToolOutput), or null.");
  if (settings.prompt !== null && typeof settings.prompt !== "function") throw new ValueError("prompt must be a function of the example citation, or null.");
  if (settings.renderInput !== null && typeof settings.renderInput !== "function") throw new ValueError("renderInput must be a RenderInput function, or null.");
  if (settings.model !== null && (typeof settings.model !== "string" || settings.model === "")) throw new ValueError("model must be a model name, or null.");
  const names = settings.tools.map((def) => def.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new ValueError(`Two tools are named "${twice}": each tool a call offers needs its own name.`);
}
