import { z } from "zod";
import { describe, expect, it } from "vitest";
import { Source, type Element } from "../../../src/domain/elements.js";
import { ValueError } from "../../../src/domain/errors.js";
import { Input } from "../../../src/domain/events.js";
import type { JsonValue } from "../../../src/domain/json.js";
import { UserMessage } from "../../../src/ports/messages.js";
import { ChatTurnInput, Text, elementsThenText, renderedBy, type RenderTurn } from "../../../src/toolkit/index.js";

// Shows elements by their ids, so a test sees which elements were shown and in which order.
const show = (elements: readonly Element[]) => elements.map((element) => `<${element.id}>`).join("");

const note = Source({ id: "note-1", text: "The library opens at nine." });
const WithNotes = z.strictObject({
  text: z.string(),
  notes: z.array(z.looseObject({ type: z.string(), id: z.string() })),
});

describe("elementsThenText", () => {
  it("is the turn's text alone when the turn holds no elements", () => {
    expect(elementsThenText({ text: "Hello" }, show)).toEqual(UserMessage("Hello"));
  });

  it("shows the elements that the turn's fields hold, then its text after a blank line", () => {
    expect(elementsThenText({ text: "Is this right?", notes: [note] }, show)).toEqual(
      UserMessage("<note-1>\n\nIs this right?"),
    );
  });

  it("throws when the turn has no text", () => {
    expect(() => elementsThenText({ question: "Hello" }, show)).toThrow(ValueError);
    expect(() => elementsThenText("Hello", show)).toThrow(/text field/);
  });
});

describe("renderedBy", () => {
  it("parses each input's payload into the input type and renders it with elementsThenText by default", () => {
    const render = renderedBy(Text);
    expect(render(Input({ payload: "When?" }), show)).toEqual(UserMessage("When?"));
    // The text as written, spaces and lines included.
    expect(render(Input({ payload: "  When?\n\nTomorrow. " }), show)).toEqual(UserMessage("  When?\n\nTomorrow. "));
  });

  it("renders the parsed turn with the RenderTurn it is given, which also gets the recorded input", () => {
    const seen: unknown[] = [];
    const render: RenderTurn<ChatTurnInput> = (turn, _show, input) => {
      seen.push(turn, input.model);
      return UserMessage(turn.text.toUpperCase());
    };
    const input = Input({ payload: { text: "hi" }, model: "m" });
    expect(renderedBy(ChatTurnInput, render)(input, show)).toEqual(UserMessage("HI"));
    expect(seen).toEqual([{ text: "hi", tools: {}, context: null }, "m"]);
  });

  it("keeps an input from the model when the RenderTurn returns null", () => {
    expect(renderedBy(Text, () => null)(Input({ payload: "secret" }), show)).toBeNull();
  });

  it("shows an earlier input that the type no longer parses as recorded: its elements, then its payload as JSON", () => {
    const payload = { question: "Is this right?", notes: [note] } as unknown as JsonValue;
    expect(renderedBy(ChatTurnInput)(Input({ payload }), show)).toEqual(
      UserMessage(`<note-1>\n\n${JSON.stringify(payload)}`),
    );
  });

  it("shows a string payload that the type no longer parses as its text", () => {
    expect(renderedBy(WithNotes)(Input({ payload: "Just text, from before notes." }), show)).toEqual(
      UserMessage("Just text, from before notes."),
    );
  });

  it("parses strictly: an unknown field makes the input show as recorded, not dropped", () => {
    const payload = { text: "Hi", mood: "curious" };
    expect(renderedBy(ChatTurnInput)(Input({ payload }), show)).toEqual(UserMessage(JSON.stringify(payload)));
  });
});
