/**
 * A thread's events and fragments as the chunks of the AI SDK's UI message stream protocol (v1), so a chat UI
 * built with `useChat` reads a turn unchanged: text and reasoning while the model writes, tool calls and their
 * results, the passages an answer cites as source documents, a failure as an error, then finish.
 */
import { Failure, ModelOutput, ToolOutput, type Event } from "../domain/events.js";
import type { SSEStreamingApi } from "hono/streaming";
import type { EventTypes } from "../domain/registry.js";
import type { LiveFragment } from "../ports/live.js";
import type { FollowWriter } from "./follow.js";

/** The headers a UI message stream is sent with. */
export const UI_MESSAGE_STREAM_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
} as const;

/** One chunk of the protocol: its `type` and the fields that type has. */
export type UIMessageChunk = { type: string } & Record<string, unknown>;

/** Translates one turn's fragments and events, in the order they arrive, into UI message chunks. */
export class UIMessageTranslator {
  /** The open text or reasoning part of each model call (key and attempt), by kind. */
  private readonly open = new Map<string, string>();
  /** Whether the model call's text arrived as fragments since the last output: its text is not sent again. */
  private streamed = false;
  private outputs = 0;
  private readonly sources = new Map<string, { type: string; text: string }>();
  private readonly sent = new Set<string>();

  constructor(private readonly messageId: string) {}

  /** The first chunk of the message. */
  start(): UIMessageChunk[] {
    return [{ type: "start", messageId: this.messageId }];
  }

  /** A fragment of a model call while it writes. */
  fragment(fragment: LiveFragment): UIMessageChunk[] {
    const id = `${fragment.kind}-${fragment.key}-${fragment.attempt}`;
    if (fragment.kind === "text") this.streamed = true;
    const chunks = this.openPart(fragment.kind, id);
    chunks.push({ type: `${fragment.kind}-delta`, id, delta: fragment.text });
    return chunks;
  }

  /** A recorded event. */
  event(event: Event): UIMessageChunk[] {
    if (ModelOutput.is(event)) return this.modelOutput(event);
    if (ToolOutput.is(event)) return this.toolOutput(event);
    if (Failure.is(event)) return [{ type: "error", errorText: `${event.error}: ${event.message}` }];
    return [];
  }

  /** The last chunk of the message. */
  finish(): UIMessageChunk[] {
    return [...this.closeParts(), { type: "finish" }];
  }

  private modelOutput(output: ModelOutput): UIMessageChunk[] {
    const chunks = this.closeParts();
    const streamed = this.streamed;
    this.streamed = false;
    if (!streamed && output.content !== "") {
      const id = `text-output-${++this.outputs}`;
      chunks.push(
        { type: "text-start", id },
        { type: "text-delta", id, delta: output.content },
        { type: "text-end", id },
      );
    }
    for (const call of output.toolCalls)
      chunks.push({ type: "tool-input-available", toolCallId: call.id, toolName: call.name, input: call.arguments });
    for (const cited of output.markers.flatMap((marker) => marker.cited)) {
      const source = cited.source === null ? undefined : this.sources.get(cited.source);
      if (cited.source === null || this.sent.has(cited.source)) continue;
      this.sent.add(cited.source);
      chunks.push({
        type: "source-document",
        sourceId: cited.source,
        mediaType: "text/plain",
        title: source ? `[${cited.written}] ${source.text}` : `[${cited.written}]`,
      });
    }
    return chunks;
  }

  private toolOutput(output: ToolOutput): UIMessageChunk[] {
    for (const element of output.elements) {
      const text = (element as { text?: unknown }).text;
      if (typeof text === "string" && !this.sources.has(element.id))
        this.sources.set(element.id, { type: element.type, text });
    }
    if (output.error !== null)
      return [{ type: "tool-output-error", toolCallId: output.callId, errorText: output.error }];
    return [{ type: "tool-output-available", toolCallId: output.callId, output: output.text ?? output.data }];
  }

  private openPart(kind: string, id: string): UIMessageChunk[] {
    if (this.open.get(kind) === id) return [];
    const chunks = this.closeParts();
    this.open.set(kind, id);
    chunks.push({ type: `${kind}-start`, id });
    return chunks;
  }

  private closeParts(): UIMessageChunk[] {
    const chunks = [...this.open].map(([kind, id]) => ({ type: `${kind}-end`, id }));
    this.open.clear();
    return chunks;
  }
}

/** A chunk as one server-sent event of the stream. */
function sseOf(chunk: UIMessageChunk | "[DONE]"): string {
  return `data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`;
}

/** The follow's writer in the UI message stream protocol: one assistant message, then `[DONE]`. */
export function uiMessageWriter(stream: SSEStreamingApi, types: EventTypes, messageId: string): FollowWriter {
  const translator = new UIMessageTranslator(messageId);
  let started = false;
  const send = async (chunks: UIMessageChunk[]) => {
    const begun = started ? [] : translator.start();
    started = true;
    for (const chunk of [...begun, ...chunks]) await stream.write(sseOf(chunk));
  };
  return {
    fragment: (fragment) => send(translator.fragment(fragment)),
    event: (entry) => send(translator.event(types.decode(entry.event))),
    end: async () => {
      await send(translator.finish());
      await stream.write(sseOf("[DONE]"));
    },
    keepAlive: () => stream.write(": keep-alive\n\n"),
  };
}
