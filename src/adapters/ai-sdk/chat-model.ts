/** AiSdkChatModel: the ChatModel adapter over the AI SDK's language-model provider interface (v4). */
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { ValueError } from "../../domain/errors.js";
import type { ModelOutput } from "../../domain/events.js";
import type { JsonValue } from "../../domain/json.js";
import { TransientError } from "../../ports/errors.js";
import type { CallOptions, ChatModel, Fragment, PreparedRequest, PreparesRequests } from "../../ports/model.js";
import { ChatRequest } from "../../ports/request.js";
import { modelError, streamError } from "./errors.js";
import { resolveOptions, type AiSdkChatModelOptions, type ResolvedOptions } from "./options.js";
import { mapCall } from "./request-mapping.js";
import { StreamAssembly, outputOf, partsOfContent } from "./response-mapping.js";

/**
 * A ChatModel over any AI SDK provider package (`@ai-sdk/anthropic`, `@ai-sdk/google`, `@ai-sdk/mistral`,
 * ...): the package speaks its provider's wire format, this adapter maps requests, outputs and errors.
 * The packages do not retry at this level: passing failures raise TransientError, and the runtime (on
 * Temporal, the activity) retries. The recorded request and its hash are the ChatRequest's, before mapping,
 * so they are the same whichever provider answers.
 */
export class AiSdkChatModel implements ChatModel, PreparesRequests {
  /** The name of the model a call goes to when it names none. */
  readonly model: string;
  private readonly options: ResolvedOptions;

  constructor(options: AiSdkChatModelOptions) {
    this.options = resolveOptions(options);
    this.model = this.options.name;
  }

  /** The name of the model a call with `model` goes to. */
  resolve(model?: string | null): string {
    return model ?? this.model;
  }

  /** What a call sends for `request`, without calling: the request as it is, the call's settings, and the changes. */
  async prepare(request: ChatRequest, options: CallOptions = {}): Promise<PreparedRequest> {
    const name = this.resolve(options.model);
    const language = this.languageModel(name);
    const { call, changes } = mapCall(request.messages, request.tools, this.options);
    const { prompt: _prompt, tools: _tools, ...rest } = call;
    const settings = {
      model: name,
      provider: language.provider,
      modelId: language.modelId,
      ...rest,
    } as unknown as Record<string, JsonValue>;
    const sent = new ChatRequest(
      request.messages.map((message) => (message.role === "assistant" ? { ...message, reasoning: null } : message)),
      request.tools,
    );
    return { request: changes.length > 0 ? sent : request, settings, changes };
  }

  /** Call the model and return its whole output. */
  async complete(request: ChatRequest, options: CallOptions = {}): Promise<ModelOutput> {
    const model = this.resolve(options.model);
    const language = this.languageModel(model);
    const { call } = mapCall(request.messages, request.tools, this.options);
    let result: Awaited<ReturnType<LanguageModelV4["doGenerate"]>>;
    try {
      result = await language.doGenerate({ ...call, ...signalOf(options) });
    } catch (error) {
      throw modelError(error, model, options.signal);
    }
    return outputOf(partsOfContent(result.content, result.finishReason, result.usage), { model, request });
  }

  /** Call the model and yield text fragments and ReasoningDeltas as they arrive, then the whole output. */
  async *streamComplete(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<Fragment | ModelOutput> {
    const model = this.resolve(options.model);
    const language = this.languageModel(model);
    const { call } = mapCall(request.messages, request.tools, this.options);
    let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>;
    try {
      reader = (await language.doStream({ ...call, ...signalOf(options) })).stream.getReader();
    } catch (error) {
      throw modelError(error, model, options.signal);
    }
    const assembly = new StreamAssembly();
    try {
      for (;;) {
        let next: ReadableStreamReadResult<LanguageModelV4StreamPart>;
        try {
          next = await reader.read();
        } catch (error) {
          throw streamError(error, model, options.signal);
        }
        if (next.done) break;
        const fragment = assembly.add(next.value);
        if (fragment !== null && typeof fragment === "object" && "error" in fragment)
          throw streamError(fragment.error, model, options.signal);
        if (fragment !== null) yield fragment;
      }
    } finally {
      // A consumer that stops early, or a failed stream, must not leave the connection open.
      await reader.cancel().catch(() => undefined);
    }
    if (!assembly.finished) {
      throw new TransientError(
        `The streamed response of ${model} ended before the model finished its output. The call can be tried again.`,
      );
    }
    yield assembly.output({ model, request });
  }

  // The adapter's own model by its name; another name goes through the provider, when one was given.
  private languageModel(name: string): LanguageModelV4 {
    if (name === this.model) return this.options.model;
    if (this.options.provider === null) {
      throw new ValueError(
        `AiSdkChatModel was built for "${this.model}" and cannot call "${name}": ` +
          "pass { provider } to the adapter to let calls name other models, or start the turn with its model.",
      );
    }
    return this.options.provider(name);
  }
}

function signalOf(options: CallOptions): { abortSignal?: AbortSignal } {
  return options.signal ? { abortSignal: options.signal } : {};
}
