/** OpenAIChatModel: the ChatModel adapter for chat completions, on any OpenAI-compatible endpoint. */
import type OpenAI from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { ModelOutput } from "../../domain/events.js";
import type { JsonValue } from "../../domain/json.js";
import { TransientError } from "../../ports/errors.js";
import type { CallOptions, ChatModel, Fragment, PreparedRequest, PreparesRequests } from "../../ports/model.js";
import type { ChatRequest } from "../../ports/request.js";
import { brokenStreamError, modelError } from "./errors.js";
import { resolveOptions, type OpenAIChatModelOptions, type ResolvedOptions } from "./options.js";
import { mapRequest, requestBody } from "./request-mapping.js";
import { outputOfCompletion } from "./response-mapping.js";
import { StreamAssembly } from "./stream-assembly.js";

const JSON_BODY = { "content-type": "application/json" };

/**
 * A ChatModel that calls chat completions through the `openai` client. Point the client's `baseURL` at
 * any compatible server (vLLM, Ollama, a llama.cpp server). The client's own retries are off on every
 * call: passing failures raise TransientError, and the runtime (on Temporal, the activity) retries.
 */
export class OpenAIChatModel implements ChatModel, PreparesRequests {
  /** The model a call goes to when it names none. */
  readonly model: string;
  private readonly options: ResolvedOptions;

  constructor(
    private readonly client: OpenAI,
    options: OpenAIChatModelOptions,
  ) {
    this.options = resolveOptions(options);
    this.model = this.options.model;
  }

  /** The name of the model a call with `model` goes to. */
  resolve(model?: string | null): string {
    return model ?? this.model;
  }

  /** What a call sends for `request`, without calling: the request after the adapter's changes, and the settings. */
  prepare(request: ChatRequest, options: CallOptions = {}): Promise<PreparedRequest> {
    const mapped = mapRequest(request, this.options.reasoningField);
    const settings: Record<string, JsonValue> = { model: this.resolve(options.model), ...this.options.settings };
    return Promise.resolve({ request: mapped.sent, settings, changes: mapped.changes });
  }

  /** Call the model and return its whole output. */
  async complete(request: ChatRequest, options: CallOptions = {}): Promise<ModelOutput> {
    const model = this.resolve(options.model);
    try {
      // The body has no `stream: false`: it is exactly the prepared settings, messages and tools.
      const completion = await this.client.chat.completions.create(
        { model, messages: [] },
        this.sending(this.body(request, model), options),
      );
      return outputOfCompletion(completion, { model, request });
    } catch (error) {
      throw modelError(error, model);
    }
  }

  /** Call the model and yield text fragments and ReasoningDeltas as they arrive, then the whole output. */
  async *streamComplete(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<Fragment | ModelOutput> {
    const model = this.resolve(options.model);
    const body = this.body(request, model, { stream: true, stream_options: { include_usage: true } });
    let chunks: AsyncIterator<ChatCompletionChunk>;
    try {
      const stream = await this.client.chat.completions.create(
        { model, messages: [], stream: true },
        this.sending(body, options),
      );
      chunks = stream[Symbol.asyncIterator]();
    } catch (error) {
      throw modelError(error, model);
    }
    const assembly = new StreamAssembly();
    let ended = false;
    try {
      while (!ended) {
        let next: IteratorResult<ChatCompletionChunk>;
        try {
          next = await chunks.next();
        } catch (error) {
          ended = true;
          throw brokenStreamError(error, model);
        }
        ended = next.done === true;
        if (!ended) yield* assembly.add(next.value);
      }
    } finally {
      // A consumer that stops early must not leave the connection open.
      if (!ended) await chunks.return?.();
    }
    if (!assembly.finished) {
      throw new TransientError(
        `The streamed response of ${model} ended before the model finished its output. The call can be tried again.`,
      );
    }
    yield assembly.output({ model, request });
  }

  // The body as UTF-8 JSON: the settings, the model, the messages and tools, then `after`.
  private body(request: ChatRequest, model: string, after: Record<string, unknown> = {}): Uint8Array {
    return requestBody(request, this.options.reasoningField, { ...this.options.settings, model }, after);
  }

  // The client sends a body of bytes as it is (RequestOptions.body, which takes the place of the params: they only
  // tell the client whether the response streams), with the content type given. Its own retries are off.
  private sending(body: Uint8Array, options: CallOptions) {
    return { body, headers: JSON_BODY, maxRetries: 0, signal: options.signal ?? null };
  }
}
