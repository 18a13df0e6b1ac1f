/**
 * What a reopen result shows: the elements it names, each inside its whole as first recorded, and the
 * whole results it names, each under its handle. The Reopened event holds only ids; the content is drawn
 * from where it was recorded, so nothing earlier in the conversation changes.
 */
import type { Element } from "../../domain/elements.js";
import { Reopened, ToolOutput } from "../../domain/events.js";
import type { Numbering } from "../../domain/numbering.js";
import type { Handles } from "../../runtime/tools/ids.js";
import type { Recordings } from "./recordings.js";

/** What drawing a reopen result needs. */
export interface Drawing {
  recordings: Recordings;
  numbering: Numbering;
  handles: Handles;
  /** The content of a whole result as the full form shows it, cut at the cap of its tool. */
  wholeResult: (output: ToolOutput) => string;
}

/**
 * The reopen result as a ToolOutput with the content drawn in: the named elements, each after its whole
 * (the element its ref names, from the same result or else where the thread first recorded it), and as
 * text each named whole result under a line with its handle. Elements show in the form their tool recorded.
 */
export function reopenedOutput(reopened: Reopened, drawing: Drawing): ToolOutput {
  const elements: Element[] = [];
  const added = new Set<string>();
  const add = (element: Element | undefined) => {
    if (element === undefined || added.has(element.id)) return;
    added.add(element.id);
    elements.push(element);
  };
  // A reopen result of another making may hold elements and text of its own: they show first.
  reopened.elements.forEach(add);
  for (const id of reopened.reopenedElements) {
    const recording = drawing.recordings.firstRecorded(id);
    if (recording === undefined) continue;
    const element = recording.output.elements[recording.index]!;
    if (element.ref !== null && element.ref !== undefined) add(wholeOf(element.ref, recording.output, drawing));
    add(element);
  }
  const wholes = reopened.reopenedResults.flatMap((callId) => {
    const output = drawing.recordings.output(callId);
    if (output === undefined) return [];
    const handle = drawing.handles.handleOf(callId) ?? callId;
    return [`[${handle}]\n${drawing.wholeResult(output)}`];
  });
  const texts = [...(reopened.text === null || reopened.text === "" ? [] : [reopened.text]), ...wholes];
  return ToolOutput({
    callId: reopened.callId,
    text: texts.length === 0 ? null : texts.join("\n\n"),
    data: reopened.data,
    error: reopened.error,
    elements,
    stream: reopened.stream,
    origin: reopened.origin,
  });
}

function wholeOf(ref: string, output: ToolOutput, drawing: Drawing): Element | undefined {
  const inSame = output.elements.find((element) => element.id === ref);
  if (inSame !== undefined) return inSame;
  const number = drawing.numbering.numberOf(ref);
  return number === undefined ? undefined : drawing.numbering.element(number);
}
