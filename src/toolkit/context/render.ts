/**
 * Rendering: how each event of a trace becomes the messages of a request (the built-in types, then the
 * agent's own by RenderEvent), how one result shows in its form, and how older images give way to notes.
 */
import type { Element } from "../../domain/elements.js";
import {
  Compaction,
  type Event,
  type EventType,
  Failure,
  Input,
  ModelOutput,
  Request,
  Response,
  ToolsListed,
  type ToolCall,
  ToolOutput,
} from "../../domain/events.js";
import type { Kind } from "../../domain/kinds.js";
import { inserted } from "../../domain/trace.js";
import {
  AssistantMessage,
  type ContentPart,
  type Message,
  TextPart,
  ToolResult,
  UserMessage,
} from "../../ports/messages.js";
import type { RenderInput, ShowElements } from "../inputs/render.js";
import type { ContextPolicy } from "./context-policy.js";
import { UnrenderedEventError } from "./errors.js";
import { COMPRESSED, CUT_TEXT, FULL, type Form, STUBBED, type Shorten, capText, dropText, shortened } from "./forms.js";
import type { ModelLimits } from "./limits.js";
import { kindOf } from "./shrink.js";

// The setting of the nearest registered type: a subtype uses its closest registered ancestor's setting.

/** The value registered for a value's own type, else for its closest registered ancestor, or undefined. */
export function nearestKind<V>(byType: ReadonlyMap<Kind<any>, V>, value: object): V | undefined {
  let best: { depth: number; setting: V } | undefined;
  for (const [type, setting] of byType) {
    if (!type.is(value)) continue;
    const depth = depthOf(type);
    if (best === undefined || depth > best.depth) best = { depth, setting };
  }
  return best?.setting;
}

function depthOf(type: Kind<any>): number {
  let depth = 0;
  for (let ancestor = type.parent; ancestor; ancestor = ancestor.parent) depth += 1;
  return depth;
}

// RenderEvent: how an agent's own event type becomes the messages the model reads.

/**
 * A function that renders an event of the agent's own type as messages. It gets the event, and the
 * function that shows elements under their numbers in the thread. Give it to a MessageBuilder in
 * `renderers`, by the event's type.
 */
export type RenderEvent<E extends Event = any> = (event: E, show: ShowElements) => readonly Message[];

// The text of one tool result as the model reads it.

/** The prefix of a result's error, so the model tells a failed call from its content. */
const ERROR_PREFIX = "Error: ";

/**
 * A result's parts in a fixed order, each one that is present, separated by a blank line: its text, its
 * elements as the Show rendered them (`shown`), its data as JSON, then its error after "Error: ". A result
 * with only elements is exactly their layout.
 */
export function resultContent(output: ToolOutput, shown: string): string {
  const parts: string[] = [];
  if (output.text !== null && output.text !== "") parts.push(output.text);
  if (shown !== "") parts.push(shown);
  if (output.data !== null) parts.push(JSON.stringify(output.data));
  if (output.error !== null) parts.push(`${ERROR_PREFIX}${output.error}`);
  return parts.join("\n\n");
}

// How each event of a trace becomes the messages of a request: the built-in types, then the agent's own.

/** What rendering the events of one context needs, made once per build. */
export interface EventRendering {
  renderInput: RenderInput;
  renderers: ReadonlyMap<EventType<any, any>, RenderEvent>;
  /** Elements as the Show renders them, for the result of the named tool (null for an input or an event of the agent's own). */
  show: (elements: readonly Element[], tool: string | null) => string;
  /** The name of the tool whose call has this id, or null. */
  toolOf: (callId: string) => string | null;
  /** A recorded call with its arguments as the model wrote them. */
  shownCall: (call: ToolCall) => ToolCall;
}

/**
 * The messages of one event. Input and TaskInput: by renderInput (null keeps it out). ModelOutput: an
 * assistant message with its markers put back and its calls as the model wrote them. ToolOutput: a tool
 * result (a user message when it names no call). Request: an assistant message; Response: a user message;
 * none for those of a tool call.
 * Failure and ToolsListed: none, they are not the model's to read. Compaction: none here; the context policy shows its summary.
 * A subtype of a built-in type renders as the built-in; another type by its nearest registered renderer.
 * @throws UnrenderedEventError for a type that is neither built in nor registered.
 */
export function eventMessages(event: Event, rendering: EventRendering): readonly Message[] {
  const kind = kindOf(event);
  if (kind.input) {
    const message = rendering.renderInput(event as Input, showElementsOf(rendering));
    return message === null ? [] : [message];
  }
  if (kind.modelOutput) {
    const output = event as ModelOutput;
    const markers = output.markers;
    const content =
      markers.length === 0
        ? output.content
        : inserted(
            output.content,
            markers.map((marker) => [marker.at, marker.text]),
          );
    // The recorded list of calls where each shows as recorded (most name no id): a cold build renders every call.
    const calls = output.toolCalls;
    let toolCalls = calls;
    for (let index = 0; index < calls.length; index += 1) {
      const shown = rendering.shownCall(calls[index]!);
      if (shown !== calls[index]) (toolCalls === calls ? (toolCalls = calls.slice()) : toolCalls)[index] = shown;
    }
    const providerData = output.providerData;
    return [AssistantMessage(content, providerData === undefined ? { toolCalls } : { toolCalls, providerData })];
  }
  if (kind.result) {
    const output = event as ToolOutput;
    const tool = output.callId === null ? null : rendering.toolOf(output.callId);
    const content = resultContent(output, output.elements.length === 0 ? "" : rendering.show(output.elements, tool));
    return [output.callId === null ? UserMessage(content) : ToolResult(output.callId, content)];
  }
  if (Failure.is(event) || ToolsListed.is(event) || Compaction.is(event)) return [];
  // A tool's request is part of its call: the model reads its effect in the call's result, and a message
  // between the calls and their results would break the request's order.
  if ((Request.is(event) || Response.is(event)) && event.callId !== null) return [];
  if (Request.is(event)) return [AssistantMessage(event.text)];
  if (Response.is(event))
    return [UserMessage(typeof event.payload === "string" ? event.payload : JSON.stringify(event.payload))];
  const render = nearestKind(rendering.renderers, event);
  if (render === undefined) {
    throw new UnrenderedEventError(
      `The selected event type "${event.type}" has no renderer: give the MessageBuilder a RenderEvent for it in renderers, or leave it out with select.`,
      { details: { type: event.type } },
    );
  }
  return render(event, showElementsOf(rendering));
}

// Elements as an input or an event of the agent's own shows them.
function showElementsOf(rendering: EventRendering): ShowElements {
  return (elements) => rendering.show(elements, null);
}

// How one result shows in its form: the full or compressed function of its tool, the elements that floors
// lift, the handle line of a compressed or stubbed result, and the cut at the cap of its tool.

/** The first line of a compressed result; {handle} becomes its handle. */
export const COMPRESSED_LINE = "[{handle}: text left out to save space]";
/** The line of a stubbed result; {handle} becomes its handle. */
export const STUBBED_LINE = "[{handle}: result left out to save space]";

// A handle line is made only when its result's content is read: planning measures most forms and sends few,
// so the length is summed from the template (its characters but "{handle}", and a handle for each).
interface HandleLine {
  /** The template's text before each "{handle}" and after the last. */
  parts: readonly string[];
  fixed: number;
  handles: number;
}

function handleLineOf(template: string): HandleLine {
  const parts = template.split("{handle}");
  return { parts, fixed: template.length - (parts.length - 1) * "{handle}".length, handles: parts.length - 1 };
}

const COMPRESSED_HANDLE_LINE = handleLineOf(COMPRESSED_LINE);
const STUBBED_HANDLE_LINE = handleLineOf(STUBBED_LINE);

/** A result's form and the forms that floors lifted its elements to, by element id. */
export interface ResultShape {
  form: Form;
  floors: ReadonlyMap<string, Form>;
}

/** The full shape: what every result has until a shrink lowers it. */
export const FULL_SHAPE: ResultShape = Object.freeze({ form: FULL, floors: new Map<string, Form>() });

/** What shaping a result needs: the policy, the limits (null: every result full, as recorded) and the layout. */
export interface Shaping {
  policy: ContextPolicy;
  limits: ModelLimits | null;
  /**
   * Elements as the layout shows them. An element whose place in `textless` is true is shown as `withoutText`
   * leaves it: a `textless` is given only where `measure` is.
   */
  show: (elements: readonly Element[], tool: string | null, textless?: readonly boolean[]) => string;
  /**
   * The length of what `show` makes, without making it, when the layout can tell; absent: shown results are made
   * at once. An element whose place in `textless` is true is measured as `withoutText` leaves it.
   */
  measure?: (elements: readonly Element[], tool: string | null, textless?: readonly boolean[]) => number;
  /** A result in a form as `shortened` makes it, or as a cache of it keeps it; default `shortened` itself. */
  formed?: (shorten: Shorten, output: ToolOutput, limits: ModelLimits, tool: string | null) => ToolOutput;
}

/**
 * The content of a result as the model reads it, its length, and whether it shows less than the full
 * result. The content may be made only when it is read: planning measures most forms and sends few.
 */
export interface ShownResult {
  readonly content: string;
  /** The length of `content`, known without making it. */
  readonly length: number;
  readonly shortened: boolean;
  /** The message that shows it, once a layout made one: a shown result is kept while its thread is. */
  message?: Message;
}

// A result whose content is made the first time it is read, from what the form left of it (the text, data
// and error of `parts` and the shown `elements`, or the elements alone) under its handle line; its length
// is known before. A class, not a closure: a plan makes one for each result in each form.
class LaterResult implements ShownResult {
  private made: string | undefined;
  message?: Message;

  constructor(
    readonly length: number,
    readonly shortened: boolean,
    private readonly parts: ToolOutput | null,
    private readonly elements: readonly Element[],
    private readonly textless: readonly boolean[] | undefined,
    private readonly line: HandleLine | null,
    private readonly handle: string,
    private readonly tool: string | null,
    private readonly show: Shaping["show"],
  ) {}

  get content(): string {
    this.made ??= withLine(
      this.line,
      this.handle,
      body(this.parts, this.elements, this.textless, this.tool, this.show),
    );
    return this.made;
  }
}

function madeResult(content: string, shortened: boolean): ShownResult {
  return { content, length: content.length, shortened };
}

/**
 * The content of `output` (a result of `tool`, under `handle`) in `shape`. Without limits it shows as recorded.
 * @throws ShortenError when a Shorten function of the tool breaks its rule.
 */
export function shownResult(
  output: ToolOutput,
  tool: string | null,
  handle: string,
  shape: ResultShape,
  shaping: Shaping,
): ShownResult {
  const { policy, limits, show } = shaping;
  if (limits === null) return madeResult(body(output, output.elements, undefined, tool, show), false);
  const name = tool ?? "";
  const formed = shaping.formed ?? shortened;
  if (shape.form === FULL) {
    const full = formed(policy.shortenFor(name, FULL), output, limits, tool);
    return capped(full, full.elements, undefined, null, handle, tool, shaping);
  }
  const compress = policy.shortenFor(name, COMPRESSED);
  // dropText keeps the result's text, data and error, and each element but a Source's text: where the layout
  // measures, its elements are measured as it leaves them and copied only when the content is made.
  const dropping = compress === dropText && shaping.measure !== undefined;
  const compressed = dropping ? output : formed(compress, output, limits, tool);
  const { elements } = output;
  // The form of each element: the shape's, or its floor's where that is higher.
  const forms: Form[] = new Array<Form>(elements.length);
  let kept = 0;
  let lifted: ToolOutput | null = null;
  // Whether every element shows as recorded: then the result's own list shows, and no copy of it is kept.
  let same = true;
  for (let index = 0; index < elements.length; index += 1) {
    const floor = shape.floors.size === 0 ? undefined : shape.floors.get(elements[index]!.id);
    const form = (forms[index] = Math.max(shape.form, floor ?? STUBBED) as Form);
    if (form === STUBBED) {
      same = false;
      continue;
    }
    kept += 1;
    if (form === FULL) lifted ??= formed(policy.shortenFor(name, FULL), output, limits, tool);
    same &&= (form === FULL ? lifted! : compressed).elements[index] === elements[index];
  }
  const left = same ? (elements as Element[]) : new Array<Element>(kept);
  let textless: boolean[] | undefined;
  kept = 0;
  for (let index = 0; index < elements.length; index += 1) {
    const form = forms[index]!;
    if (form === STUBBED) continue;
    if (!same) left[kept] = (form === FULL ? lifted! : compressed).elements[index]!;
    if (dropping && form === COMPRESSED) (textless ??= new Array<boolean>(left.length).fill(false))[kept] = true;
    kept += 1;
  }
  const line = shape.form === COMPRESSED ? COMPRESSED_HANDLE_LINE : STUBBED_HANDLE_LINE;
  return capped(shape.form === COMPRESSED ? compressed : null, left, textless, line, handle, tool, shaping);
}

// What the form left of a result: the text, data and error of `parts` with the shown elements, or the elements alone.
// An element whose place in `textless` is true shows without its text (dropText's: the layout leaves it out, no copy).
function body(
  parts: ToolOutput | null,
  elements: readonly Element[],
  textless: readonly boolean[] | undefined,
  tool: string | null,
  show: Shaping["show"],
) {
  const shown = elements.length === 0 ? "" : show(elements, tool, textless);
  return parts === null ? shown : resultContent(parts, shown);
}

// A shortened form's handle line stays whole above what the cap left.
function withLine(line: HandleLine | null, handle: string, cut: string): string {
  if (line === null) return cut;
  let made = line.parts[0]!;
  for (let index = 1; index < line.parts.length; index += 1) made += handle + line.parts[index]!;
  return cut === "" ? made : `${made}\n${cut}`;
}

// The cap cuts the body (see `body`); a result with a handle line is shortened whatever the cap does. The
// body is made only when the cap cuts it or the content is read, when the layout can measure it.
function capped(
  parts: ToolOutput | null,
  elements: readonly Element[],
  textless: readonly boolean[] | undefined,
  line: HandleLine | null,
  handle: string,
  tool: string | null,
  shaping: Shaping,
): ShownResult {
  const limit = shaping.policy.capFor(tool ?? "");
  const { show, measure, limits } = shaping;
  if (measure !== undefined) {
    const shownLength = elements.length === 0 ? 0 : measure(elements, tool, textless);
    const bodyLength = parts === null ? shownLength : contentLength(parts, shownLength);
    if (limit === null || limits === null || limits.estimate(bodyLength) <= limit.count) {
      const lineLength = line === null ? 0 : line.fixed + line.handles * handle.length;
      const length = line === null ? bodyLength : bodyLength === 0 ? lineLength : lineLength + 1 + bodyLength;
      return new LaterResult(length, line !== null, parts, elements, textless, line, handle, tool, show);
    }
  }
  const made = body(parts, elements, textless, tool, show);
  const cut = limit === null || limits === null ? made : capText(made, limit.count, CUT_TEXT, limits);
  return madeResult(withLine(line, handle, cut), line !== null || cut !== made);
}

/** The length of resultContent(output, shown) for a shown text of `shownLength`, without making either. */
function contentLength(output: ToolOutput, shownLength: number): number {
  // Each part as join writes it: a value that is not a string as String makes it.
  let length = 0;
  let count = 0;
  if (output.text !== null && output.text !== "") {
    length += String(output.text).length;
    count += 1;
  }
  if (shownLength > 0) {
    length += shownLength;
    count += 1;
  }
  if (output.data !== null) {
    length += (JSON.stringify(output.data) ?? "").length;
    count += 1;
  }
  if (output.error !== null) {
    length += `${ERROR_PREFIX}${output.error}`.length;
    count += 1;
  }
  return count === 0 ? 0 : length + 2 * (count - 1);
}

// maxImages: the newest images of a request are sent; each older image becomes a note that it was left out.

/** The note an image becomes; {name} becomes the image's name, or "an image" when it has none. */
export const IMAGE_NOTE = "[{name} left out to save space]";

/** The messages with at most `max` images, the newest kept; null keeps them all. The messages do not change. */
export function limitImages(messages: readonly Message[], max: number | null): Message[] {
  if (max === null) return [...messages];
  let kept = 0;
  const result = [...messages];
  for (let index = result.length - 1; index >= 0; index -= 1) {
    const message = result[index]!;
    if (message.role !== "user" || typeof message.content === "string") continue;
    const parts = [...message.content];
    let changed = false;
    for (let at = parts.length - 1; at >= 0; at -= 1) {
      const part = parts[at]!;
      if (part.kind !== "image") continue;
      if (kept < max) {
        kept += 1;
        continue;
      }
      parts[at] = note(part);
      changed = true;
    }
    if (changed) result[index] = { ...message, content: parts };
  }
  return result;
}

function note(part: ContentPart & { kind: "image" }): TextPart {
  return TextPart(IMAGE_NOTE.replaceAll("{name}", part.name === null ? "an image" : `the image "${part.name}"`));
}
