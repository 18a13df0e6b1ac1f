/** ChatModel: the port at which the framework calls a model. */
import type { ModelOutput } from "../domain/events.js";
import type { JsonValue } from "../domain/json.js";
import type { ChatRequest } from "./request.js";

/** A piece of the model's reasoning, yielded while the output arrives. The whole is in ModelOutput.reasoning. */
export class ReasoningDelta {
  constructor(readonly text: string) {}
}

/** A piece of a model's output while it arrives: a string of its text, or a ReasoningDelta. */
export type Fragment = string | ReasoningDelta;

/** Options of one model call. */
export interface CallOptions {
  /** The model to call; null or undefined calls the model the adapter was built with. */
  model?: string | null;
  /** Aborts the call. */
  signal?: AbortSignal;
}

/**
 * An adapter that calls a model. It maps the whole response of its API to one ModelOutput, translates
 * the API's passing failures to TransientError, and lets every other error propagate.
 */
export interface ChatModel {
  /** The name of the model that a call with `model` goes to (the endpoint name, not a provider's version). */
  resolve(model?: string | null): string;
  /** Call the model with one request and return its output, markers not yet cut out. */
  complete(request: ChatRequest, options?: CallOptions): Promise<ModelOutput>;
  /**
   * Call the model and yield its output as it arrives: text fragments and ReasoningDeltas in arrival
   * order, then exactly one complete ModelOutput. A response that ends without it raises TransientError.
   */
  streamComplete(request: ChatRequest, options?: CallOptions): AsyncIterable<Fragment | ModelOutput>;
}

/** A request in the shape that an adapter's client sends, prepared but not sent. */
export interface PreparedRequest {
  /** The messages and tools as the client sends them, after its changes. */
  request: ChatRequest;
  /** Everything the client sends besides messages and tools, such as sampling settings. */
  settings: Record<string, JsonValue>;
  /** What the adapter changed, in order. */
  changes: string[];
}

/** A ChatModel that can show what it sends for a request, without a call. */
export interface PreparesRequests {
  /** The request and settings the client would send for `request`, and what the adapter changed; nothing is sent. */
  prepare(request: ChatRequest, options?: CallOptions): Promise<PreparedRequest>;
}

/** Whether a model can prepare requests. */
export function preparesRequests(model: unknown): model is PreparesRequests {
  return typeof (model as Partial<PreparesRequests> | null)?.prepare === "function";
}
