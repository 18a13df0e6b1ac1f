/** The part ScriptedModel and FunctionModel share: record each call, make and stream its output. */
import { ValueError } from "../domain/errors.js";
import { ModelOutput } from "../domain/events.js";
import { streamOutput } from "../adapters/output-fragments.js";
import type { CallOptions, ChatModel, Fragment, PreparedRequest, PreparesRequests } from "../ports/model.js";
import type { ChatRequest } from "../ports/request.js";
import type { ScriptedReply } from "./scripted-output.js";

/** One call of a test model: its place among the model's calls (from 0) and the model it resolves to. */
export interface ModelCall {
  index: number;
  model: string;
}

/** A test model that records what it was asked. Subclasses say what each call replies. */
export abstract class RecordingModel implements ChatModel, PreparesRequests {
  /** The name a call resolves to when it names no model. */
  readonly model: string;
  /** Every request received, in order, streamed calls included. */
  readonly requests: ChatRequest[] = [];
  /** The `model` option of each call, in order: null when the call named none. */
  readonly models: (string | null)[] = [];

  protected constructor(name: string, kind: string) {
    if (typeof name !== "string" || name === "")
      throw new ValueError(`${kind} needs a non-empty name, such as "scripted".`);
    this.model = name;
  }

  /** The name of the model a call with `model` goes to. */
  resolve(model?: string | null): string {
    return model ?? this.model;
  }

  /** The request as it is sent: a test model changes nothing. */
  prepare(request: ChatRequest, options: CallOptions = {}): Promise<PreparedRequest> {
    return Promise.resolve({ request, settings: { model: this.resolve(options.model) }, changes: [] });
  }

  /** Record the call and return its output, markers not yet cut. */
  async complete(request: ChatRequest, options: CallOptions = {}): Promise<ModelOutput> {
    const index = this.requests.length;
    this.requests.push(request);
    this.models.push(options.model ?? null);
    const model = this.resolve(options.model);
    const reply = await this.reply(request, { index, model });
    return ModelOutput({
      ...reply,
      model: reply.model ?? model,
      promptCharacters: request.characters,
      requestHash: request.hash,
    });
  }

  /** Record the call and yield its reasoning and text in a few fragments each, then the output. */
  async *streamComplete(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<Fragment | ModelOutput> {
    yield* streamOutput(await this.complete(request, options));
  }

  /** The reply to one call. */
  protected abstract reply(request: ChatRequest, call: ModelCall): Promise<ScriptedReply>;
}
