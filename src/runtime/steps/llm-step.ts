/** LlmStep: one model call, built by a context builder from the trace, recorded as a ModelOutput. */
import { canonicalJson } from "../../domain/json.js";
import { ModelOutput, ToolsListed, type Event } from "../../domain/events.js";
import type { Trace } from "../../domain/trace.js";
import type { ToolDef } from "../../ports/messages.js";
import { THREAD_HANDLES } from "../tools/ids.js";
import { readMarkers } from "../citations.js";
import { mapArguments } from "../tools/arguments.js";
import { TransientError } from "../../ports/errors.js";
import { preparesRequests, type ChatModel, type PreparedRequest } from "../../ports/model.js";
import type { ChatRequest } from "../../ports/request.js";
import type { ContextBuilder, ExplainedForm, ModelContext, ModelStep, StepContext, Work } from "../contracts.js";
import { streamTrace } from "../../domain/trace.js";

/** The parts of an LlmStep. */
export interface LlmStepOptions {
  /** Builds each call's request from the trace. */
  builder: ContextBuilder;
  /** The adapter that calls the model. */
  model: ChatModel;
  /** The model the turn runs on, as its input names it; null calls the adapter's own model. */
  modelName?: string | null;
  /** Present when a server lists some of the offered tools (Tool.listed): their definitions are recorded. */
  listedTools?: ListedTools;
}

/** The tools a turn offers when a server lists some of them, and how to build a call that offers others. */
export interface ListedTools {
  /** The definitions the turn offers now, which `builder` offers. */
  offered: readonly ToolDef[];
  /** A builder like the step's own that offers `tools` instead: the list a ToolsListed recorded. */
  builderFor(tools: readonly ToolDef[]): ContextBuilder;
}

/**
 * A step that calls the model once: it builds the request from the trace, calls the model (streaming
 * when someone follows the thread), cuts the citation markers out, maps element numbers in tool-call
 * arguments to real ids, and records one ModelOutput with the prompt's characters and the request's hash.
 */
export class LlmStep implements ModelStep {
  readonly builder: ContextBuilder;
  readonly model: ChatModel;
  readonly modelName: string | null;
  private readonly listed: RecordedLists | null;

  constructor(options: LlmStepOptions) {
    this.builder = options.builder;
    this.model = options.model;
    this.modelName = options.modelName ?? null;
    this.listed = options.listedTools ? new RecordedLists(options.listedTools, options.builder) : null;
  }

  /** One model call, unless the stream's last event is this node's output already. */
  plan(context: StepContext): Work[] {
    const trace = streamTrace(context);
    const last = trace.last;
    if (ModelOutput.is(last) && last.origin === context.node) return [];
    const name = this.model.resolve(this.modelName);
    return [{ key: String(trace.length), kind: "model", name, summary: `${name}, pass ${passOf(trace.turn)}` }];
  }

  /** Whether the stream holds this node's ModelOutput at or after the stream length `key`. */
  done(context: StepContext, key: string): boolean {
    return streamTrace(context)
      .from(Number(key))
      .some((event) => ModelOutput.is(event) && event.origin === context.node);
  }

  /** Refuse an input whose first call would not fit the model's limits even alone (the builder's checkInput). */
  checkInput(context: StepContext): void {
    this.builder.checkInput?.(streamTrace(context));
  }

  /** The context the next call of this step gets: what replay rebuilds (with the tools last recorded as listed). */
  rebuild(context: StepContext): ModelContext {
    const trace = streamTrace(context);
    return this.builderAt(trace).build(trace);
  }

  /** Why each shrunk result has its form at the next call, as the builder explains it; empty when it cannot. */
  explain(context: StepContext): readonly ExplainedForm[] {
    const trace = streamTrace(context);
    return this.builderAt(trace).explain?.(trace) ?? [];
  }

  /** The request as the adapter would send it to this step's model (PreparesRequests), or null when it cannot say. */
  async prepare(request: ChatRequest): Promise<PreparedRequest | null> {
    return preparesRequests(this.model) ? this.model.prepare(request, { model: this.modelName }) : null;
  }

  /** The call, as [ToolsListed, output] when the listed tools changed since their last record, else [output]. */
  async run(context: StepContext, key: string): Promise<Event[]> {
    if (this.done(context, key)) return [];
    const trace = streamTrace(context);
    const changed = this.listed?.changed(trace) ?? false;
    const built = (changed ? this.builder : this.builderAt(trace)).build(trace);
    const output = await this.call(built, context);
    const recorded = recordedOutput(output, built, context);
    if (!changed) return [recorded];
    const listed = ToolsListed({ tools: [...this.listed!.offered], stream: context.stream, origin: context.node });
    return [listed, recorded];
  }

  private builderAt(trace: Trace): ContextBuilder {
    return this.listed?.builderAt(trace) ?? this.builder;
  }

  private async call(built: ModelContext, context: StepContext): Promise<ModelOutput> {
    const options = { model: this.modelName, signal: context.signal };
    if (!context.onFragment) return this.model.complete(built.request, options);
    for await (const item of this.model.streamComplete(built.request, options)) {
      if (ModelOutput.is(item)) return item;
      await context.onFragment(item);
    }
    throw new TransientError(`The model "${built.model}" ended its stream without a complete output.`);
  }
}

/** The output as recorded: markers cut out and resolved, tool-call arguments mapped to real ids. */
function recordedOutput(output: ModelOutput, built: ModelContext, context: StepContext): ModelOutput {
  const { content, markers } = built.citations
    ? readMarkers(output.content, built.citations, built.numbering)
    : { content: output.content, markers: [] };
  const handles = context.trace.thread.index(THREAD_HANDLES);
  const definitions = new Map(built.request.tools.map((def) => [def.name, def]));
  const toolCalls = output.toolCalls.map((call) => {
    const def = definitions.get(call.name);
    return def ? mapArguments(call, def, built.numbering, handles) : call;
  });
  return ModelOutput({
    ...output,
    content,
    markers,
    toolCalls,
    model: output.model ?? built.model,
    promptCharacters: built.request.characters,
    requestHash: built.request.hash,
    stream: context.stream,
    origin: context.node,
    seq: null,
    ts: null,
  });
}

/** The number of this model call in the running turn (its events), from 1. */
function passOf(turn: readonly Event[]): number {
  return turn.filter((event) => ModelOutput.is(event)).length + 1;
}

/** The builders of the tool lists a thread recorded (ToolsListed), by the list; one per list, made on first use. */
class RecordedLists {
  readonly offered: readonly ToolDef[];
  private readonly builders = new Map<string, ContextBuilder>();
  // A thread records few lists (one per change of a server's tools): more than this are built again each time.
  private static readonly KEPT = 8;

  constructor(
    private readonly listedTools: ListedTools,
    builder: ContextBuilder,
  ) {
    this.offered = listedTools.offered;
    this.builders.set(canonicalJson(this.offered), builder);
  }

  /** Whether the tools offered now differ from the last list the trace recorded (or it recorded none). */
  changed(trace: Trace): boolean {
    const last = trace.lastOf(ToolsListed);
    return last === undefined || canonicalJson(last.tools) !== canonicalJson(this.offered);
  }

  /** The builder of the last list the trace recorded, or of the tools offered now when it recorded none. */
  builderAt(trace: Trace): ContextBuilder {
    const tools = trace.lastOf(ToolsListed)?.tools ?? this.offered;
    const key = canonicalJson(tools);
    const known = this.builders.get(key);
    if (known !== undefined) return known;
    const builder = this.listedTools.builderFor(tools);
    if (this.builders.size < RecordedLists.KEPT) this.builders.set(key, builder);
    return builder;
  }
}
