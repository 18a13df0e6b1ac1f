/**
 * What the app shows of a thread, from its trace: its turns (inputs, answers with each citation resolved
 * to its passage, tool calls, failures), and what one model call received, rebuilt from the events.
 */
import { Failure, Input, ModelOutput, ToolOutput, type Event } from "../domain/events.js";
import { inserted, type Trace } from "../domain/trace.js";
import type { JsonValue } from "../domain/json.js";
import type { AgentCatalog } from "../runtime/catalog.js";
import { callSite } from "../runtime/replay.js";
import { ProblemError } from "./problems.js";

/** How many characters of a tool result the thread view shows. */
const RESULT_CHARACTERS = 300;

/** A cited passage: the source's id, its type and text; null where the number named nothing citable. */
export interface CitedPassage {
  number: number;
  sourceId: string | null;
  type: string | null;
  text: string | null;
}

/** One turn as the thread view shows it. */
export interface TurnView {
  /** The position of the turn's input in the thread's log. */
  position: number;
  input: JsonValue;
  model: string | null;
  principal: string | null;
  /** The model's last output of the turn with its markers in place, and each marker's passages. */
  answer: {
    text: string;
    content: string;
    citations: { marker: string; at: number; passages: CitedPassage[] }[];
  } | null;
  toolCalls: { id: string; name: string; arguments: JsonValue; result: string | null; error: string | null }[];
  failures: { error: string; message: string }[];
  /** The numbers of the turn's model calls, as GET /threads/{threadId}/calls/{n} takes them. */
  calls: number[];
}

/** The turns of a thread's main stream, in order. */
export function turnsOf(trace: Trace): TurnView[] {
  const sources = sourcesOf(trace.events);
  const callNumbers = new Map(trace.byType(ModelOutput).map((output, index) => [output, index + 1]));
  const turns: TurnView[] = [];
  for (const entry of trace.stream("main").entries) {
    const event = entry.event;
    if (Input.is(event)) {
      turns.push({
        position: entry.position,
        input: event.payload,
        model: event.model,
        principal: event.principal,
        answer: null,
        toolCalls: [],
        failures: [],
        calls: [],
      });
      continue;
    }
    const turn = turns.at(-1);
    if (!turn) continue;
    if (ModelOutput.is(event)) {
      turn.calls.push(callNumbers.get(event) ?? 0);
      for (const call of event.toolCalls)
        turn.toolCalls.push({ id: call.id, name: call.name, arguments: call.arguments, result: null, error: null });
      if (event.toolCalls.length === 0 || event.content !== "") turn.answer = answerOf(event, sources);
    } else if (ToolOutput.is(event)) {
      const call = turn.toolCalls.find((candidate) => candidate.id === event.callId);
      if (call) {
        call.result = event.text !== null ? shortText(event.text) : elementsText(event);
        call.error = event.error;
      }
    } else if (Failure.is(event)) {
      turn.failures.push({ error: event.error, message: event.message });
    }
  }
  return turns;
}

function answerOf(output: ModelOutput, sources: Map<string, { type: string; text: string }>): TurnView["answer"] {
  return {
    text: inserted(
      output.content,
      output.markers.map((marker) => [marker.at, marker.text] as const),
    ),
    content: output.content,
    citations: output.markers.map((marker) => ({
      marker: marker.text,
      at: marker.at,
      passages: marker.cited.map((cited) => {
        const source = cited.source === null ? undefined : sources.get(cited.source);
        return {
          number: cited.written,
          sourceId: cited.source,
          type: source?.type ?? null,
          text: source?.text ?? null,
        };
      }),
    })),
  };
}

/** The sources the thread's tools recorded, by id: each element with a text. */
function sourcesOf(events: readonly Event[]): Map<string, { type: string; text: string }> {
  const sources = new Map<string, { type: string; text: string }>();
  for (const event of events) {
    if (!ToolOutput.is(event)) continue;
    for (const element of event.elements) {
      const text = (element as { text?: unknown }).text;
      if (typeof text === "string" && !sources.has(element.id)) sources.set(element.id, { type: element.type, text });
    }
  }
  return sources;
}

/** A result without text, told by its elements: how many, and their ids. */
function elementsText(output: ToolOutput): string | null {
  if (output.elements.length === 0) return output.data === null ? null : shortText(JSON.stringify(output.data));
  const ids = output.elements.map((element) => element.id).join(", ");
  return shortText(`${output.elements.length} element${output.elements.length === 1 ? "" : "s"}: ${ids}`);
}

function shortText(text: string): string {
  return text.length > RESULT_CHARACTERS ? `${text.slice(0, RESULT_CHARACTERS - 3)}...` : text;
}

/** Why one result has its form at a model call, as the context builder's `explain` tells it. */
export interface ExplainedResult {
  /** The result's handle, such as "r1". */
  result: string;
  form: "FULL" | "COMPRESSED" | "STUBBED";
  /** The shrink or floor that set the form. */
  by: string;
  /** The number of model calls before the call at which it did. */
  at: number;
}

/** What model call n received. */
export interface CallView {
  n: number;
  stream: string;
  node: string | null;
  model: string | null;
  /** The hash the output recorded, and whether the rebuilt request has it. */
  requestHash: string | null;
  matches: boolean;
  request: { messages: JsonValue; tools: { name: string; description: string; parameters: JsonValue }[] } | null;
  explain: ExplainedResult[];
}

const FORM_NAMES = ["STUBBED", "COMPRESSED", "FULL"] as const;

/** Model call n of the thread (from 1), rebuilt from the events before it, checked against its recorded hash. */
export async function callOf(
  catalog: AgentCatalog,
  threadId: string,
  agent: string,
  trace: Trace,
  n: number,
): Promise<CallView> {
  const outputs = trace.entries.flatMap((entry, index) =>
    ModelOutput.is(entry.event) ? [{ index, output: entry.event }] : [],
  );
  const found = outputs[n - 1];
  if (!found)
    throw new ProblemError(
      404,
      "Model call not found",
      `Thread "${threadId}" has ${outputs.length} model call${outputs.length === 1 ? "" : "s"}: ask for n from 1 to ${outputs.length}.`,
      { threadId, n, calls: outputs.length },
    );
  const { index, output } = found;
  const view: CallView = {
    n,
    stream: output.stream,
    node: output.origin,
    model: output.model,
    requestHash: output.requestHash,
    matches: false,
    request: null,
    explain: [],
  };
  const graphAt = (before: Trace, stream: string) => catalog.graphFor(threadId, agent, before, stream);
  const site = await callSite(trace, index, graphAt, { threadId, agent });
  if (!site) return view;
  const { step, context } = site;
  const { request } = step.rebuild(context);
  view.matches = request.hash === output.requestHash;
  view.request = {
    messages: JSON.parse(JSON.stringify(request.messages)) as JsonValue,
    tools: request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as JsonValue,
    })),
  };
  view.explain = (step.explain?.(context) ?? []).map((shrunk) => ({
    result: shrunk.result,
    form: FORM_NAMES[shrunk.form] ?? "FULL",
    by: String(shrunk.by),
    at: shrunk.at,
  }));
  return view;
}
