/**
 * Reopen: the tool that shows the model again what the context policy shortened or removed. It records
 * only which elements and whole results to show; the MessageBuilder draws them from where they were
 * recorded (Recordings), so nothing earlier in the conversation changes.
 */
import { z } from "zod";
import { Element } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import { type Event, ModelOutput, Reopened, type ToolCall, ToolOutput } from "../../domain/events.js";
import type { Numbering } from "../../domain/numbering.js";
import { InvalidQueryError } from "../../ports/errors.js";
import type { ToolDef } from "../../ports/messages.js";
import type { Limit, Tool, ToolCallContext } from "../../runtime/contracts.js";
import { type FunctionTool, tool } from "../../runtime/tools/function-tool.js";
import { ElementId, type Handles, ResultHandle } from "../../runtime/tools/ids.js";
import { kindOf } from "./shrink.js";

const NOTHING_NAMED = "Name at least one element number in elements or one result handle in results.";

/** The fields of the reopen arguments: elements by number, whole results by handle. */
const REOPEN_FIELDS = {
  elements: z
    .array(ElementId(Element))
    .default([])
    .describe("The numbers of the elements to show again, such as passages that show without text."),
  results: z
    .array(ResultHandle())
    .default([])
    .describe('The handles of the results to show again whole, such as "r12".'),
};

/**
 * The arguments the model writes to reopen: element numbers and result handles. The LlmStep records the
 * real id of each element and the call id of each result. Parsing refuses arguments that name nothing or
 * hold a field of another name.
 */
export const ReopenArguments = z
  .strictObject(REOPEN_FIELDS)
  .refine((value) => value.elements.length + value.results.length > 0, NOTHING_NAMED);
/** The parsed arguments of reopen, with real ids and call ids. */
export type ReopenArguments = z.output<typeof ReopenArguments>;

/** What the model reads about reopen by default. */
export const REOPEN_DESCRIPTION =
  "Show again what was shortened or left out of earlier results to save space: elements by their numbers, such as " +
  "passages that show without text, or whole results by their handles, such as r1. Use it instead of searching again.";

/** The settings of Reopen. */
export interface ReopenOptions {
  /** The name the model calls the tool by. Default "reopen". */
  name?: string;
  /** What the model reads about the tool. */
  description?: string;
  /** The schema of the arguments the model writes: ReopenArguments, or an object schema with its elements and results fields. */
  arguments?: z.ZodObject<any>;
}

/**
 * The tool that shows the model again what a shrink shortened or removed. A ContextPolicy holds it as
 * `reopen`; the builder offers it from the first model call that shortens a result or follows a summary,
 * until the turn's tools are withdrawn. Each element shows inside its whole, each whole result under its
 * handle, cut at its tool's cap. Nothing earlier in the conversation changes.
 */
export class Reopen implements Tool {
  readonly name: string;
  readonly description: string;
  /** The schema of the arguments, with the rule that they name something. */
  readonly arguments: z.ZodObject<any>;
  readonly limit: Limit | null = null;
  /**
   * True: an identical reopen call runs again. The repeat rule refuses a call whose result the model can
   * still read; a shrink may have shortened the earlier reopen result since, and reopen exists to undo that.
   */
  readonly repeats: boolean | null = true;
  readonly unbound: readonly string[] = [];
  private readonly made: FunctionTool;

  /** @throws ValueError for a bad name or description, or arguments without elements and results fields. */
  constructor(options: ReopenOptions = {}) {
    this.name = options.name ?? "reopen";
    this.description = options.description ?? REOPEN_DESCRIPTION;
    this.arguments = options.arguments ?? ReopenArguments;
    const shape = (this.arguments as Partial<z.ZodObject<any>>).shape as Record<string, z.ZodType> | undefined;
    if (
      !(this.arguments instanceof z.ZodObject) ||
      shape === undefined ||
      !("elements" in shape) ||
      !("results" in shape)
    ) {
      throw new ValueError(
        "Reopen's arguments must be an object schema with the fields elements and results, such as ReopenArguments.",
      );
    }
    // tool() checks the name and description, and makes the definition the model reads.
    this.made = tool({
      name: this.name,
      description: this.description,
      args: shape,
      run: (values) => this.run(values as ReopenArguments),
    });
  }

  /** The strict schema of the arguments, as the tool step parses them. */
  get args(): z.ZodObject<any> {
    return this.made.args;
  }

  /** The argument descriptions the model reads, by argument name. */
  get argumentDescriptions(): Readonly<Record<string, string>> {
    return this.made.argumentDescriptions;
  }

  /** The definition offered to the model: elements hold element numbers, results hold handles. */
  def(): ToolDef {
    return this.made.def();
  }

  /** A copy with other texts. */
  withTexts(texts: { description?: string | null; arguments?: Record<string, string> }): Reopen {
    const shape = { ...(this.arguments.shape as Record<string, z.ZodType>) };
    for (const [name, text] of Object.entries(texts.arguments ?? {})) {
      const field = shape[name];
      if (field === undefined)
        throw new ValueError(
          `Tool "${this.name}" has no argument "${name}"; it has: ${Object.keys(shape).join(", ")}.`,
        );
      shape[name] = field.describe(text);
    }
    return new Reopen({
      name: this.name,
      description: texts.description ?? this.description,
      arguments: z.strictObject(shape),
    });
  }

  /** Run one call with arguments parsed and mapped to real ids, as the tool step does. */
  invoke(args: Record<string, unknown>, context: ToolCallContext): Promise<Reopened> {
    return this.made.invoke(args, context) as Promise<Reopened>;
  }

  /**
   * Record which elements and results to show again: a Reopened result that names them, with no copy of their content.
   * @throws InvalidQueryError when the arguments name nothing or do not fit: the model reads why.
   */
  run(values: ReopenArguments): Promise<Reopened> {
    const parsed = this.arguments.safeParse(values);
    const named = parsed.success ? (parsed.data as ReopenArguments) : null;
    if (named === null || named.elements.length + named.results.length === 0) {
      return Promise.reject(
        new InvalidQueryError(`The arguments of ${this.name} name nothing to show again. ${NOTHING_NAMED}`),
      );
    }
    return Promise.resolve(Reopened({ reopenedElements: [...named.elements], reopenedResults: [...named.results] }));
  }
}

// Recordings: where each result and each element of a thread was recorded, for forms and for reopen.

/** Where an element was first recorded: the result and its place among the result's elements. */
export interface Recording {
  output: ToolOutput;
  index: number;
}

/**
 * The results, calls and element recordings of a thread's events (every stream), read as events are
 * appended. `missed` says whether an answer may change once more events are read: a lookup found
 * nothing, or a later call reused a call id.
 */
export class Recordings {
  /** Whether a lookup found nothing, or a later call reused a call id: what was drawn may differ after more events. */
  missed = false;
  private readonly outputs = new Map<string, ToolOutput>();
  // The calls in log order, and the place in it of the last call of each id. A build asks for the call of each
  // result in order, so the next answer is most often the one after the last, found without a lookup in a table as
  // large as the thread (Numbering's `near`), while no call id was reused.
  private readonly calls: ToolCall[] = [];
  private readonly places = new Map<string, number>();
  private reused = false;
  private near = 0;
  private readonly firsts = new Map<string, Recording>();
  // The results not in `outputs` and `firsts` yet: most builds never reopen, so they are indexed when asked.
  private unindexed: ToolOutput[] = [];

  /** Read the events of a thread, every stream, in log order. */
  constructor(events: readonly Event[] = []) {
    this.append(events);
  }

  /** Read events that follow those read so far. */
  append(events: readonly Event[]): void {
    for (let index = 0; index < events.length; index += 1) {
      const event = events[index]!;
      // The kind of each event is read once, and kept for the other readers of the thread.
      const kind = kindOf(event);
      if (kind.modelOutput) {
        const calls = (event as ModelOutput).toolCalls;
        for (let at = 0; at < calls.length; at += 1) {
          const call = calls[at]!;
          const known = this.places.size;
          // A reused call id leaves the size as it was: one lookup, not two.
          if (this.places.set(call.id, this.calls.push(call) - 1).size === known) this.missed = this.reused = true;
        }
      }
      if (!kind.result) continue;
      this.unindexed.push(event as ToolOutput);
    }
  }

  /** The result recorded for a call id, or undefined. */
  output(callId: string): ToolOutput | undefined {
    this.index();
    return this.found(this.outputs.get(callId));
  }

  /** The call with this id, or undefined. */
  call(callId: string): ToolCall | undefined {
    if (!this.reused)
      for (let at = this.near; at >= this.near - 1 && at >= 0; at -= 1)
        if (this.calls[at]?.id === callId) {
          this.near = at + 1;
          return this.calls[at];
        }
    const at = this.places.get(callId);
    if (at === undefined) return this.found(undefined);
    this.near = at + 1;
    return this.calls[at];
  }

  /** The name of the tool whose call has this id, or null. */
  toolOf(callId: string | null): string | null {
    return callId === null ? null : (this.call(callId)?.name ?? null);
  }

  /** The result that first recorded an element id, and its place in it, or undefined. */
  firstRecorded(id: string): Recording | undefined {
    this.index();
    return this.found(this.firsts.get(id));
  }

  // Index the results read since: the first result recorded for a call id is its result, and the first that
  // recorded an element id is where it is drawn from. A reopen result holds no elements of its own.
  private index(): void {
    for (const output of this.unindexed) {
      if (output.callId !== null && !this.outputs.has(output.callId)) this.outputs.set(output.callId, output);
      if (kindOf(output).reopened) continue;
      output.elements.forEach((element, index) => {
        if (!this.firsts.has(element.id)) this.firsts.set(element.id, { output, index });
      });
    }
    this.unindexed = [];
  }

  private found<V>(value: V | undefined): V | undefined {
    if (value === undefined) this.missed = true;
    return value;
  }
}

// What a reopen result shows: the elements it names, each inside its whole as first recorded, and the
// whole results it names, each under its handle. The Reopened event holds only ids; the content is drawn
// from where it was recorded, so nothing earlier in the conversation changes.

/** What drawing a reopen result needs. */
export interface Drawing {
  recordings: Recordings;
  numbering: Numbering;
  handles: Handles;
  /** The content of a whole result as the full form shows it, cut at the cap of its tool. */
  wholeResult: (output: ToolOutput) => string;
  /** The elements of a recorded result as the full form of its tool shows them (its Forms' full, else the policy's). */
  fullElements: (output: ToolOutput) => readonly Element[];
}

/**
 * The reopen result as a ToolOutput with the content drawn in: the named elements, each after its whole
 * (the element its ref names, from the same result or else where the thread first recorded it), and as
 * text each named whole result under a line with its handle. Each element shows in the full form of the
 * tool that recorded it (that tool's Forms), as its own result would show it.
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
    const shown = drawing.fullElements(recording.output);
    const element = shown[recording.index]!;
    if (element.ref !== null && element.ref !== undefined) {
      const inSame = recording.output.elements.findIndex((candidate) => candidate.id === element.ref);
      add(inSame >= 0 ? shown[inSame] : firstRecorded(element.ref, drawing));
    }
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

// An element where the thread first recorded it, in the full form of the tool that recorded it; an element
// that no result recorded (an input's) as numbered.
function firstRecorded(id: string, drawing: Drawing): Element | undefined {
  const recording = drawing.recordings.firstRecorded(id);
  if (recording !== undefined) return drawing.fullElements(recording.output)[recording.index];
  const number = drawing.numbering.numberOf(id);
  return number === undefined ? undefined : drawing.numbering.element(number);
}
