/** How an input becomes the user message the model reads. */
import type { z } from "zod";
import type { Element } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import type { Input } from "../../domain/events.js";
import { elementsOf } from "../../domain/numbering.js";
import { UserMessage } from "../../ports/messages.js";
import { Text, textTurn } from "./input-types.js";

/** Elements as the context's Show renders them, under their numbers in the thread. */
export type ShowElements = (elements: readonly Element[]) => string;

/**
 * How the model reads a parsed input: a function of the parsed turn, ShowElements and the recorded Input
 * (for what the turn does not hold, such as when it was sent). It returns the user message, or null to
 * keep the input from the model on purpose.
 */
export type RenderTurn<T = any> = (turn: T, show: ShowElements, input: Input) => UserMessage | null;

/** A function that renders a recorded Input as the user message the model reads, or null to keep it from the model. */
export type RenderInput = (input: Input, show: ShowElements) => UserMessage | null;

/**
 * The default RenderTurn: the elements that the turn's fields hold, as `show` renders them, then its text
 * after a blank line. A turn that holds no elements is its text alone. `input` is not read.
 * @throws ValueError when the turn has no text: its input type needs a RenderTurn of its own.
 */
export function elementsThenText(turn: any, show: ShowElements, _input?: Input | null): UserMessage {
  const text: unknown = turn !== null && typeof turn === "object" ? (turn as { text?: unknown }).text : undefined;
  if (typeof text !== "string") {
    throw new ValueError(
      "elementsThenText needs a turn with a text field, and this turn has none: give the agent a renderInput of its own for its input type.",
    );
  }
  return withElements(elementsIn(turn), text, show);
}

/**
 * Return a RenderInput that parses each input's payload into `inputType` and renders it with `render`.
 * An input that `inputType` no longer parses is shown as recorded: its elements, then the payload (as text
 * when it is a string, as JSON otherwise), so a change to the input type leaves older threads readable.
 */
export function renderedBy<T>(inputType: z.ZodType<T>, render: RenderTurn<T> = elementsThenText): RenderInput {
  return (input, show) => {
    // Text, the default input type, turns a string into its turn without zod's machinery (a cold build renders
    // every input of a long thread); such a turn holds no element, so the default RenderTurn's message is its text.
    if ((inputType as z.ZodType<unknown>) === Text && typeof input.payload === "string")
      return render === elementsThenText
        ? UserMessage(input.payload)
        : render(textTurn(input.payload) as T, show, input);
    const parsed = inputType.safeParse(input.payload);
    return parsed.success ? render(parsed.data, show, input) : asRecorded(input, show);
  };
}

/** An input as recorded: its elements, then its payload as text (a string) or JSON. */
export function asRecorded(input: Input, show: ShowElements): UserMessage {
  const payload = typeof input.payload === "string" ? input.payload : JSON.stringify(input.payload);
  return withElements(elementsOf(input), payload, show);
}

function withElements(elements: readonly Element[], text: string, show: ShowElements): UserMessage {
  return UserMessage(elements.length > 0 ? `${show(elements)}\n\n${text}` : text);
}

// The elements anywhere in the turn's fields: the same search as for a recorded input's payload.
function elementsIn(turn: unknown): Element[] {
  return elementsOf({ type: "input", payload: turn } as unknown as Input);
}
