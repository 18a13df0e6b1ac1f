/**
 * The core events: the recorded facts of a thread. Each is sealed (seq, ts) when the store appends it
 * and never changes.
 */
import { z } from "zod";
import type { Element } from "./elements.js";
import { Event, eventType, type EventHeader, type EventType } from "./event-types.js";
import type { JsonValue } from "./json.js";

export { MAIN, Event, defineEventType } from "./event-types.js";
export type { Actor, Stream, EventHeader, EventInit, EventType, StoredEvent, LogEntry } from "./event-types.js";

/** Any element in an event's fields: its own type's schema checks the rest. The stored format renames its fields one level. */
export const ELEMENT_SCHEMA = z.looseObject({ type: z.string(), id: z.string() }) as unknown as z.ZodType<Element>;
const element = ELEMENT_SCHEMA;

/** A tool call as the model made it: the id its result names, the tool's name and the arguments. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, JsonValue>;
}

/** One number that a marker cites: as written, and the real id of the Source it names, or null. */
export interface CitedNumber {
  written: number;
  source: string | null;
}

/** A citation marker cut out of a model output: where it stood, its text, the numbers it cites. */
export interface Marker {
  at: number;
  text: string;
  cited: CitedNumber[];
}

/** The tokens a model call used, as the service reported them (or estimated, and marked so, when it reported none). */
export interface Usage {
  /** All input tokens, cached ones included. */
  promptTokens: number;
  /** All output tokens, reasoning ones included. */
  completionTokens: number;
  /** The part of `promptTokens` read from the provider's prompt cache, when it reports it. */
  cachedTokens?: number;
  /** The part of `completionTokens` spent on reasoning, when the provider reports it. */
  reasoningTokens?: number;
  /** True when the provider reported no usage and the framework estimated it from characters. */
  estimated?: boolean;
}

const toolCall = z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.json()) });
const marker = z.object({
  at: z.number().int().nonnegative(),
  text: z.string(),
  cited: z.array(z.object({ written: z.number().int(), source: z.string().nullable() })),
});

/** The input that opens a turn: the user's payload, the model the turn runs on, and who sent it. */
export interface Input extends Event {
  payload: JsonValue;
  model: string | null;
  /** The principal that sent the input (an HTTP app's caller), or null; the thread's first input names its owner. */
  principal: string | null;
}
/** The input that opens a turn: the user's payload, the model the turn runs on, and who sent it. */
export const Input = eventType<Input, { payload: JsonValue; model?: string | null; principal?: string | null }>(
  "input",
  z.object({
    payload: z.json(),
    model: z.string().nullable().default(null),
    principal: z.string().nullable().default(null),
  }),
  Event,
  "user",
);

/** The input that a ToolDelegation hands off: one call of the parent's model, heading a task's stream. */
export interface TaskInput extends Input {
  callId: string;
  expects: Record<string, JsonValue> | null;
}
/** The input that a ToolDelegation hands off: one call of the parent's model, heading a task's stream. */
export const TaskInput = eventType<
  TaskInput,
  {
    payload: JsonValue;
    model?: string | null;
    principal?: string | null;
    callId: string;
    expects?: Record<string, JsonValue> | null;
  }
>(
  "task-input",
  Input.schema.extend({ callId: z.string(), expects: z.record(z.string(), z.json()).nullable().default(null) }),
  Input,
  "model",
);

/** One output of the model: text without markers, the markers, tool calls, reasoning and call facts. */
export interface ModelOutput extends Event {
  content: string;
  markers: Marker[];
  toolCalls: ToolCall[];
  reasoning: string | null;
  model: string | null;
  finishReason: string | null;
  usage: Usage | null;
  promptCharacters: number | null;
  requestHash: string | null;
  /**
   * What the provider asks to be sent back with this output in a later request, keyed by the adapter that wrote
   * it (OpenAI Responses: its reasoning items with their encrypted content, and its output items' ids). Another
   * adapter leaves it alone. Absent when the adapter keeps nothing.
   */
  providerData?: Record<string, JsonValue>;
}
/** One output of the model: text without markers, the markers, tool calls, reasoning and call facts. */
export const ModelOutput = eventType<ModelOutput, Partial<Omit<ModelOutput, keyof EventHeader>>>(
  "model-output",
  z.object({
    content: z.string().default(""),
    markers: z.array(marker).default([]),
    toolCalls: z.array(toolCall).default([]),
    reasoning: z.string().nullable().default(null),
    model: z.string().nullable().default(null),
    finishReason: z.string().nullable().default(null),
    usage: z
      .object({
        promptTokens: z.number(),
        completionTokens: z.number(),
        cachedTokens: z.number().optional(),
        reasoningTokens: z.number().optional(),
        estimated: z.boolean().optional(),
      })
      .nullable()
      .default(null),
    promptCharacters: z.number().int().nullable().default(null),
    requestHash: z.string().nullable().default(null),
    providerData: z.record(z.string(), z.json()).optional(),
  }),
  Event,
  "model",
);

/** The result of one tool call: text, data and elements, or an error the model reads. */
export interface ToolOutput extends Event {
  callId: string | null;
  text: string | null;
  data: JsonValue | null;
  elements: Element[];
  error: string | null;
}
/** The result of one tool call: text, data and elements, or an error the model reads. */
export const ToolOutput = eventType<ToolOutput, Partial<Omit<ToolOutput, keyof EventHeader>>>(
  "tool-output",
  z.object({
    callId: z.string().nullable().default(null),
    text: z.string().nullable().default(null),
    data: z.json().nullable().default(null),
    elements: z.array(element).default([]),
    error: z.string().nullable().default(null),
  }),
  Event,
  "tool",
);

/** The result of the reopen tool: which elements and whole results to show again. It copies no content. */
export interface Reopened extends ToolOutput {
  /** The real ids of the elements to show again. */
  reopenedElements: string[];
  /** The call ids of the results to show again whole. */
  reopenedResults: string[];
}
/** The result of the reopen tool: which elements and whole results to show again. It copies no content. */
export const Reopened = eventType<Reopened, Partial<Omit<Reopened, keyof EventHeader>>>(
  "reopened",
  ToolOutput.schema.extend({
    reopenedElements: z.array(z.string()).default([]),
    reopenedResults: z.array(z.string()).default([]),
  }),
  ToolOutput,
  "tool",
);

/** A summary that replaces the earlier events of a stream, from `keptFrom` on they show again. */
export interface Compaction extends Event {
  summary: string;
  /** The index, in the stream's events, of the first event the summary keeps. */
  keptFrom: number;
}
/** A summary that replaces the earlier events of a stream, from `keptFrom` on they show again. */
export const Compaction = eventType<Compaction, { summary: string; keptFrom: number }>(
  "compaction",
  z.object({ summary: z.string(), keptFrom: z.number().int().nonnegative() }),
  Event,
  "model",
);

/** A step that failed: the error's class name and message; the turn stops there. */
export interface Failure extends Event {
  error: string;
  message: string;
  retryable: boolean;
  /** The tool call that failed, or null for a model call or a step. */
  callId: string | null;
}
/** A step that failed: the error's class name and message; the turn stops there. */
export const Failure = eventType<
  Failure,
  { error: string; message: string; retryable?: boolean; callId?: string | null }
>(
  "failure",
  z.object({
    error: z.string(),
    message: z.string(),
    retryable: z.boolean().default(false),
    callId: z.string().nullable().default(null),
  }),
  Event,
  "system",
);

/** A tool as a model call offers it: its name, description and the JSON schema of its arguments. */
export interface ListedTool {
  name: string;
  description: string;
  /** The JSON schema of its arguments. */
  parameters: Record<string, JsonValue>;
  /** Each argument that holds element ids, with the element type names it accepts. */
  elements: Record<string, string[]>;
  /** The arguments that hold handles of results. */
  results: string[];
}

/**
 * The tools the next model calls offer, recorded when an agent offers tools that a server lists (an MCP
 * server's) and the list changed since the last record: replay rebuilds the requests from it.
 */
export interface ToolsListed extends Event {
  tools: ListedTool[];
}
/** The tools the next model calls offer, recorded when a server's list of them changed. */
export const ToolsListed = eventType<ToolsListed, { tools: ListedTool[] }>(
  "tools-listed",
  z.object({
    tools: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        parameters: z.record(z.string(), z.json()),
        elements: z.record(z.string(), z.array(z.string())).default({}),
        results: z.array(z.string()).default([]),
      }),
    ),
  }),
  Event,
  "system",
);

/** What a Request asks: an answer to a question, or an approval of a tool call before it runs. */
export type RequestKind = "question" | "approval";

/** A question the agent asks a person mid-turn; the turn waits for its Response. */
export interface Request extends Event {
  /** Stable: the same request of a retried attempt has the same id, such as `call_7:approval`. */
  requestId: string;
  kind: RequestKind;
  text: string;
  /** The JSON schema an answer must fit, or null for any JSON. */
  schema: Record<string, JsonValue> | null;
  /** The tool call that asks, or null for a request of a step of one's own. */
  callId: string | null;
  /** The name of the tool that asks or waits for approval, or null. */
  tool: string | null;
  /** The arguments of the call that waits for approval, or null. */
  arguments: Record<string, JsonValue> | null;
  /** How long the turn waits for an answer, from the Request's ts; null waits for ever. */
  deadlineSeconds: number | null;
  /** The answer recorded when the deadline passes, or null to end the turn with a Failure then. */
  defaultAnswer: { payload: JsonValue } | null;
}
/** A question the agent asks a person mid-turn; the turn waits for its Response. */
export const Request = eventType<
  Request,
  {
    requestId: string;
    text: string;
    kind?: RequestKind;
    schema?: Record<string, JsonValue> | null;
    callId?: string | null;
    tool?: string | null;
    arguments?: Record<string, JsonValue> | null;
    deadlineSeconds?: number | null;
    defaultAnswer?: { payload: JsonValue } | null;
  }
>(
  "request",
  z.object({
    requestId: z.string(),
    kind: z.enum(["question", "approval"]).default("question"),
    text: z.string(),
    schema: z.record(z.string(), z.json()).nullable().default(null),
    callId: z.string().nullable().default(null),
    tool: z.string().nullable().default(null),
    arguments: z.record(z.string(), z.json()).nullable().default(null),
    deadlineSeconds: z.number().positive().nullable().default(null),
    defaultAnswer: z.object({ payload: z.json() }).nullable().default(null),
  }),
  Event,
  "model",
);

/** A person's answer to a Request (or the Request's default answer when its deadline passed). */
export interface Response extends Event {
  requestId: string;
  payload: JsonValue;
  /** The tool call whose Request this answers, or null. */
  callId: string | null;
}
/** A person's answer to a Request (or the Request's default answer when its deadline passed). */
export const Response = eventType<Response, { requestId: string; payload: JsonValue; callId?: string | null }>(
  "response",
  z.object({ requestId: z.string(), payload: z.json(), callId: z.string().nullable().default(null) }),
  Event,
  "user",
);

/** The event types every registry knows. */
export const CORE_EVENT_TYPES: readonly EventType<any, any>[] = [
  Input,
  TaskInput,
  ModelOutput,
  ToolOutput,
  Reopened,
  Compaction,
  Failure,
  Request,
  Response,
  ToolsListed,
];
