/** The hand-back of a task: its result as the ToolOutput of the call that handed it off. */
import { z } from "zod";
import { Source, type Element } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import { ModelOutput, TaskInput, ToolOutput, type Marker } from "../../domain/events.js";
import type { JsonValue } from "../../domain/json.js";
import { elementsOf, Numbering } from "../../domain/numbering.js";
import { inserted, type Trace } from "../../domain/trace.js";
import { BRACKETS, FULLWIDTH } from "../../runtime/citations.js";

/** Reads a task's result from its stream's trace after the task ended. */
export type TaskResult = (trace: Trace) => JsonValue;

/** The default result: the content of the task's last event when it is a ModelOutput, else null. */
export function lastContent(trace: Trace): JsonValue {
  const last = trace.events.at(-1);
  return ModelOutput.is(last) ? last.content : null;
}

/**
 * The ToolOutput of a task that ended. It holds every Source the task was shown and each shown element
 * that such a Source is part of (its `ref`), in order of first appearance. With the default result
 * (`result` null), a final model output comes back as a final reply: its text, with a marker only for the
 * sources that resolved, in the thread's numbers, which are the parent's. Any other result is data. A
 * null result, or one that does not fit the JSON Schema the TaskInput expects, gets an error instead.
 */
export function handBackEvent(name: string, child: Trace, result: TaskResult | null): ToolOutput {
  const task = child.byType(TaskInput).at(-1);
  if (!task)
    throw new ValueError(`The trace given to ${name}.handBack holds no TaskInput: give it the task stream's trace.`);
  const header = { callId: task.callId, elements: shownElements(child) };
  const value = (result ?? lastContent)(child);
  if (value === null || value === undefined) {
    const last = child.events.at(-1);
    return ToolOutput({
      ...header,
      error: `The task of ${name} ended without a result (its last event is ${last ? `a ${last.type}` : "missing"}).`,
    });
  }
  const misfit = task.expects === null ? null : schemaProblems(task.expects, value);
  if (misfit !== null)
    return ToolOutput({ ...header, error: `The result of the task of ${name} does not fit its schema (${misfit}).` });
  if (result !== null) return ToolOutput({ ...header, data: value });
  const last = child.events.at(-1) as ModelOutput;
  return ToolOutput({ ...header, text: replyText(last, new Numbering(child.thread.events)) });
}

/** The elements a task was shown that its result holds: its Sources and the elements they are part of. */
export function shownElements(child: Trace): Element[] {
  const shown = new Map<string, Element>();
  for (const event of child.events)
    for (const element of elementsOf(event)) if (!shown.has(element.id)) shown.set(element.id, element);
  const sources = [...shown.values()].filter((element) => Source.is(element));
  const wholes = new Set(sources.flatMap((source) => (typeof source.ref === "string" ? [source.ref] : [])));
  return [...shown.values()].filter((element) => Source.is(element) || wholes.has(element.id));
}

/**
 * A model output's text as a final reply: each marker cut down to the sources it resolved to, written in
 * the numbers of `numbering`, in the style it was written in; a marker that resolved to none is left out.
 */
export function replyText(output: ModelOutput, numbering: Numbering): string {
  const markers = output.markers.flatMap((marker): (readonly [number, string])[] => {
    const numbers = resolvedNumbers(marker, numbering);
    if (numbers.length === 0) return [];
    const strategy = marker.text.includes("【") ? FULLWIDTH : BRACKETS;
    const before = /^\s*/.exec(marker.text)![0];
    const after = /\s*$/.exec(marker.text)![0];
    return [[marker.at, `${before}${strategy.writeAll(numbers)}${after}`]];
  });
  return inserted(output.content, markers);
}

function resolvedNumbers(marker: Marker, numbering: Numbering): number[] {
  const numbers = marker.cited.flatMap((cited) => {
    const number = cited.source === null ? undefined : numbering.numberOf(cited.source);
    return number === undefined ? [] : [number];
  });
  return [...new Set(numbers)];
}

/** Why a value does not fit a JSON Schema, or null when it fits. */
function schemaProblems(schema: Record<string, JsonValue>, value: JsonValue): string | null {
  const checked = z.fromJSONSchema(schema as z.core.JSONSchema.JSONSchema).safeParse(value);
  if (checked.success) return null;
  return checked.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "result"}: ${issue.message}`)
    .join("; ");
}
