/** LlmStep: one model call, built by a context builder from the trace, recorded as a ModelOutput. */
import { ModelOutput, type Event } from "../../domain/events.js";
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

  constructor(options: LlmStepOptions) {
    this.builder = options.builder;
    this.model = options.model;
    this.modelName = options.modelName ?? null;
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

  /** The context the next call of this step gets: what replay rebuilds. */
  rebuild(context: StepContext): ModelContext {
    return this.builder.build(streamTrace(context));
  }

  /** Why each shrunk result has its form at the next call, as the builder explains it; empty when it cannot. */
  explain(context: StepContext): readonly ExplainedForm[] {
    return this.builder.explain?.(streamTrace(context)) ?? [];
  }

  /** The request as the adapter would send it to this step's model (PreparesRequests), or null when it cannot say. */
  async prepare(request: ChatRequest): Promise<PreparedRequest | null> {
    return preparesRequests(this.model) ? this.model.prepare(request, { model: this.modelName }) : null;
  }

  async run(context: StepContext, key: string): Promise<Event[]> {
    if (this.done(context, key)) return [];
    const built = this.rebuild(context);
    const output = await this.call(built, context);
    return [recordedOutput(output, built, context)];
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
