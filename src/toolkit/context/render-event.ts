/** RenderEvent: how an agent's own event type becomes the messages the model reads. */
import type { Event } from "../../domain/events.js";
import type { Message } from "../../ports/messages.js";
import type { ShowElements } from "../inputs/render.js";

/**
 * A function that renders an event of the agent's own type as messages. It gets the event, and the
 * function that shows elements under their numbers in the thread. Give it to a MessageBuilder in
 * `renderers`, by the event's type.
 */
export type RenderEvent<E extends Event = any> = (event: E, show: ShowElements) => readonly Message[];
