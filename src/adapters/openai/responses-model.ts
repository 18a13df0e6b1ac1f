/** OpenAIResponsesModel: the ChatModel adapter for OpenAI's Responses API (POST /v1/responses). */
import type OpenAI from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import type { ModelOutput } from "../../domain/events.js";
import { TransientError } from "../../ports/errors.js";
import type { CallOptions, ChatModel, Fragment, PreparedRequest, PreparesRequests } from "../../ports/model.js";
import type { ChatRequest } from "../../ports/request.js";
import { brokenStreamError, modelError } from "./errors.js";
import {
  callSettings,
  resolveResponsesOptions,
  type OpenAIResponsesModelOptions,
  type ResolvedResponsesOptions,
} from "./responses-options.js";
import { outputOfResponse } from "./responses-output.js";
import { mapResponsesRequest, responsesBody } from "./responses-request.js";
import { ResponsesStreamAssembly } from "./responses-stream.js";

const JSON_BODY = { "content-type": "application/json" };

/**
 * A ChatModel that calls OpenAI's Responses API through the `openai` client: messages become input items,
 * tool calls and results `function_call` and `function_call_output` items, tools function tools. Stateless by
 * default (`store: false`): each call sends its whole context, as the context builder made it. A reasoning
 * model's reasoning items are recorded with their encrypted content (ModelOutput.providerData) and sent back
 * with the calls after them, as the API asks. The client's own retries are off: passing failures raise
 * TransientError, and the runtime (on Temporal, the activity) retries.
 *
 * @example
 * ```ts
 * import OpenAI from "openai";
 * import { OpenAIResponsesModel } from "soev-agents/openai";
 *
 * const model = new OpenAIResponsesModel(new OpenAI(), {
 *   model: "gpt-5",
 *   settings: { reasoning: { effort: "low", summary: "auto" } },
 * });
 * ```
 */
export class OpenAIResponsesModel implements ChatModel, PreparesRequests {
  /** The model a call goes to when it names none. */
  readonly model: string;
  private readonly options: ResolvedResponsesOptions;

  constructor(
    private readonly client: OpenAI,
    options: OpenAIResponsesModelOptions,
  ) {
    this.options = resolveResponsesOptions(options);
    this.model = this.options.model;
  }

  /** The name of the model a call with `model` goes to. */
  resolve(model?: string | null): string {
    return model ?? this.model;
  }

  /** What a call sends for `request`, without calling: the request after the adapter's changes, and the settings. */
  prepare(request: ChatRequest, options: CallOptions = {}): Promise<PreparedRequest> {
    const model = this.resolve(options.model);
    const mapped = mapResponsesRequest(request, model);
    return Promise.resolve({
      request: mapped.sent,
      settings: callSettings(this.options, model),
      changes: mapped.changes,
    });
  }

  /** Call the model and return its whole output. */
  async complete(request: ChatRequest, options: CallOptions = {}): Promise<ModelOutput> {
    const model = this.resolve(options.model);
    try {
      const response = await this.client.responses.create({ model, input: [] }, this.sending(request, model, options));
      return outputOfResponse(response, response.output ?? [], { model, request });
    } catch (error) {
      throw modelError(error, model);
    }
  }

  /** Call the model and yield text fragments and ReasoningDeltas as they arrive, then the whole output. */
  async *streamComplete(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<Fragment | ModelOutput> {
    const model = this.resolve(options.model);
    let events: AsyncIterator<ResponseStreamEvent>;
    try {
      const stream = await this.client.responses.create(
        { model, input: [], stream: true },
        this.sending(request, model, options, { stream: true }),
      );
      events = stream[Symbol.asyncIterator]();
    } catch (error) {
      throw modelError(error, model);
    }
    const assembly = new ResponsesStreamAssembly(model);
    let ended = false;
    try {
      while (!ended) {
        let next: IteratorResult<ResponseStreamEvent>;
        try {
          next = await events.next();
        } catch (error) {
          ended = true;
          throw brokenStreamError(error, model);
        }
        ended = next.done === true;
        if (!ended) yield* assembly.add(next.value);
      }
    } finally {
      // A consumer that stops early (or an error event) must not leave the connection open.
      if (!ended) await events.return?.();
    }
    if (!assembly.finished) {
      throw new TransientError(
        `The streamed response of ${model} ended before the model finished its output. The call can be tried again.`,
      );
    }
    yield assembly.output({ model, request });
  }

  // The client sends the body of bytes as it is (the params only tell it whether the response streams). Its own
  // retries are off.
  private sending(request: ChatRequest, model: string, options: CallOptions, after: Record<string, unknown> = {}) {
    const body = responsesBody(mapResponsesRequest(request, model), callSettings(this.options, model), after);
    return { body, headers: JSON_BODY, maxRetries: 0, signal: options.signal ?? null };
  }
}
