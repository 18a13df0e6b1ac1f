/** How each event of a trace becomes the messages of a request: the built-in types, then the agent's own. */
import type { Element } from "../../domain/elements.js";
import {
  Compaction,
  Failure,
  Input,
  ModelOutput,
  Request,
  Response,
  ToolOutput,
  type Event,
  type EventType,
  type ToolCall,
} from "../../domain/events.js";
import { inserted } from "../../domain/trace.js";
import { AssistantMessage, ToolResult, UserMessage, type Message } from "../../ports/messages.js";
import type { RenderInput, ShowElements } from "../inputs/render.js";
import { UnrenderedEventError } from "./errors.js";
import { nearestKind } from "./nearest-kind.js";
import type { RenderEvent } from "./render-event.js";
import { resultContent } from "./tool-result.js";

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
 * Failure: none, it is not the model's to read. Compaction: none here; the context policy shows its summary.
 * A subtype of a built-in type renders as the built-in; another type by its nearest registered renderer.
 * @throws UnrenderedEventError for a type that is neither built in nor registered.
 */
export function eventMessages(event: Event, rendering: EventRendering): readonly Message[] {
  const showElements: ShowElements = (elements) => rendering.show(elements, null);
  if (Input.is(event)) {
    const message = rendering.renderInput(event, showElements);
    return message === null ? [] : [message];
  }
  if (ModelOutput.is(event)) {
    const content = inserted(
      event.content,
      event.markers.map((marker) => [marker.at, marker.text] as const),
    );
    return [AssistantMessage(content, { toolCalls: event.toolCalls.map(rendering.shownCall) })];
  }
  if (ToolOutput.is(event)) {
    const tool = event.callId === null ? null : rendering.toolOf(event.callId);
    const content = resultContent(event, event.elements.length === 0 ? "" : rendering.show(event.elements, tool));
    return [event.callId === null ? UserMessage(content) : ToolResult(event.callId, content)];
  }
  if (Failure.is(event) || Compaction.is(event)) return [];
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
  return render(event, showElements);
}
