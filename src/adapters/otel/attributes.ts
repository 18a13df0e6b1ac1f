/** The span names and attributes that OtelObserver exports, read from the runtime's calls and events. */
import type { Attributes } from "@opentelemetry/api";
import type { Event, Failure, Input, ModelOutput } from "../../domain/events.js";
import type { CallKind } from "../../ports/observer.js";

/** The name of the span of one run of a thread. */
export const RUN_SPAN = "soev.run";

/** The span event on a span that `close()` ended: nothing answered its call, or its run did not return. */
export const CLOSED_SPAN_EVENT = "soev.observer_closed";

/** The span event on a call span ended by a new call of the same node or tool call id before an answer came. */
export const SUPERSEDED_SPAN_EVENT = "soev.superseded";

/** The longest short form of an input's payload on a run span, in characters. */
export const PAYLOAD_CHARACTERS = 200;

/** The attribute keys of OtelObserver's spans and span events. */
export const SPAN_ATTRIBUTES = {
  threadId: "soev.thread_id",
  agent: "soev.agent",
  model: "soev.model",
  payload: "soev.input.payload",
  stream: "soev.stream",
  node: "soev.node",
  callKind: "soev.call.kind",
  callName: "soev.call.name",
  callId: "soev.call_id",
  promptTokens: "soev.usage.prompt_tokens",
  completionTokens: "soev.usage.completion_tokens",
  finishReason: "soev.finish_reason",
  promptCharacters: "soev.prompt_characters",
  requestHash: "soev.request_hash",
  toolCalls: "soev.tool_calls",
  error: "soev.error",
  retryable: "soev.retryable",
  seq: "soev.seq",
  actor: "soev.actor",
  origin: "soev.origin",
} as const;

/**
 * The OpenTelemetry GenAI semantic conventions' attributes that a model call span carries besides the soev ones,
 * so GenAI-aware backends read a call's model and usage.
 */
export const GEN_AI_ATTRIBUTES = {
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cachedInputTokens: "gen_ai.usage.cache_read.input_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
} as const;

/** The name of the span of one call: "soev.model <model>" or "soev.tool <tool>". */
export function callSpanName(kind: CallKind, name: string): string {
  return `soev.${kind} ${name}`;
}

/** The attributes of a run span: the thread, the agent, and the opening input's model and payload. */
export function runAttributes(threadId: string, agent: string | null, opening: Input | null): Attributes {
  return present({
    [SPAN_ATTRIBUTES.threadId]: threadId,
    [SPAN_ATTRIBUTES.agent]: agent,
    [SPAN_ATTRIBUTES.model]: opening?.model,
    [SPAN_ATTRIBUTES.payload]: opening ? shortPayload(opening.payload) : null,
  });
}

/** The attributes of a call span: where the call is made and which call it is. */
export function callAttributes(
  threadId: string,
  stream: string,
  node: string | null,
  kind: CallKind,
  name: string,
  callId: string | null,
): Attributes {
  return present({
    [SPAN_ATTRIBUTES.threadId]: threadId,
    [SPAN_ATTRIBUTES.stream]: stream,
    [SPAN_ATTRIBUTES.node]: node,
    [SPAN_ATTRIBUTES.callKind]: kind,
    [SPAN_ATTRIBUTES.callName]: name,
    [SPAN_ATTRIBUTES.callId]: callId,
  });
}

/** The facts of a model call that its output records: usage, finish reason, prompt size and request hash. */
export function outputAttributes(output: ModelOutput): Attributes {
  return present({
    [SPAN_ATTRIBUTES.model]: output.model,
    [SPAN_ATTRIBUTES.promptTokens]: output.usage?.promptTokens,
    [SPAN_ATTRIBUTES.completionTokens]: output.usage?.completionTokens,
    [SPAN_ATTRIBUTES.finishReason]: output.finishReason,
    [SPAN_ATTRIBUTES.promptCharacters]: output.promptCharacters,
    [SPAN_ATTRIBUTES.requestHash]: output.requestHash,
    [SPAN_ATTRIBUTES.toolCalls]: output.toolCalls.length,
    [GEN_AI_ATTRIBUTES.responseModel]: output.model,
    [GEN_AI_ATTRIBUTES.inputTokens]: output.usage?.promptTokens,
    [GEN_AI_ATTRIBUTES.outputTokens]: output.usage?.completionTokens,
    [GEN_AI_ATTRIBUTES.cachedInputTokens]: output.usage?.cachedTokens,
    [GEN_AI_ATTRIBUTES.reasoningTokens]: output.usage?.reasoningTokens,
    [GEN_AI_ATTRIBUTES.finishReasons]: output.finishReason === null ? null : [output.finishReason],
  });
}

/** The attributes of a Failure: the error's class name and whether running again may succeed. */
export function failureAttributes(failure: Failure): Attributes {
  return { [SPAN_ATTRIBUTES.error]: failure.error, [SPAN_ATTRIBUTES.retryable]: failure.retryable };
}

/** The attributes of a span event for a recorded event: its place and who made it. */
export function eventAttributes(event: Event): Attributes {
  return present({
    [SPAN_ATTRIBUTES.stream]: event.stream,
    [SPAN_ATTRIBUTES.seq]: event.seq,
    [SPAN_ATTRIBUTES.actor]: event.actor,
    [SPAN_ATTRIBUTES.origin]: event.origin,
  });
}

/** A payload in at most PAYLOAD_CHARACTERS characters: a string as it is, anything else as JSON. */
function shortPayload(payload: unknown): string {
  const text = typeof payload === "string" ? payload : (JSON.stringify(payload) ?? String(payload));
  return text.length <= PAYLOAD_CHARACTERS ? text : `${text.slice(0, PAYLOAD_CHARACTERS - 1)}…`;
}

// OpenTelemetry attributes take no null: a fact the call or event does not have is left out.
function present(values: Record<string, string | number | boolean | string[] | null | undefined>): Attributes {
  return Object.fromEntries(
    Object.entries(values).filter(([, value]) => value !== null && value !== undefined),
  ) as Attributes;
}
