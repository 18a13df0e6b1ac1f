/** How an input becomes the user message the model reads. */
import type { z } from "zod";
import type { Element } from "../../domain/elements.js";
import type { Input } from "../../domain/events.js";
import { UserMessage } from "../../ports/messages.js";
import { elementsOf } from "../../domain/numbering.js";

/** Elements as the context's Show renders them, under their numbers in the thread. */
export type ShowElements = (elements: readonly Element[]) => string;

/** How the model reads a parsed input: the user message, or null to keep the input from the model. */
export type RenderTurn<T = any> = (turn: T, show: ShowElements, input: Input) => UserMessage | null;

/** A function that renders a recorded Input as the user message the model reads, or null. */
export type RenderInput = (input: Input, show: ShowElements) => UserMessage | null;

/** The default RenderTurn: the elements the turn's fields hold, as `show` renders them, then its text after a blank line. */
export function elementsThenText(turn: any, show: ShowElements, _input?: Input): UserMessage {
  if (typeof turn?.text !== "string") {
    throw new TypeError("elementsThenText needs a turn with a text field; give the input type a RenderTurn of its own.");
  }
  const elements = findElements(turn);
  return UserMessage(elements.length > 0 ? `${show(elements)}\n\n${turn.text}` : turn.text);
}

/**
 * A RenderInput that parses each input's payload into `inputType` and renders it with `render`. An input
 * that the type no longer parses is shown as recorded: its elements, then the payload (text or JSON).
 */
export function renderedBy<T>(inputType: z.ZodType<T>, render: RenderTurn<T> = elementsThenText): RenderInput {
  return (input, show) => {
    const parsed = inputType.safeParse(input.payload);
    if (parsed.success) return render(parsed.data, show, input);
    const elements = elementsOf(input);
    const payload = typeof input.payload === "string" ? input.payload : JSON.stringify(input.payload);
    return UserMessage(elements.length > 0 ? `${show(elements)}\n\n${payload}` : payload);
  };
}

function findElements(turn: Record<string, unknown>): Element[] {
  return elementsOf({ type: "input", payload: turn as never } as unknown as Input);
}
