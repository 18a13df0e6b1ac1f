/**
 * What the app shows of a thread, from its trace: its turns (inputs, answers with each citation resolved
 * to its passage, tool calls, failures), and what one model call received, rebuilt from the events.
 */
import type { Element } from "../domain/elements.js";
import {
  Compaction,
  Failure,
  Input,
  ModelOutput,
  Reopened,
  Request,
  Response,
  ToolOutput,
  type Event,
  type Usage,
} from "../domain/events.js";
import { inserted, type Trace } from "../domain/trace.js";
import type { JsonValue } from "../domain/json.js";
import { costOf, costOfEvents, priceOf, type PriceTable } from "../domain/prices.js";
import { eventsByTurn, usageOf, usageOfCall, type UsageTotals } from "../domain/usage.js";
import type { AgentCatalog } from "../runtime/catalog.js";
import type { ModelStep } from "../runtime/contracts.js";
import { callSite } from "../runtime/replay.js";
import { resultHandles } from "../runtime/tools/ids.js";
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
  toolCalls: ToolCallView[];
  failures: { error: string; message: string }[];
  /** The numbers of the turn's model calls, as GET /threads/{threadId}/calls/{n} takes them. */
  calls: number[];
  /** What the turn's model calls used and cost, its delegated tasks' included. */
  usage: UsageView;
}

/** One tool call of a turn: its arguments, result or error, and what it asked a person (approvals, questions). */
export interface ToolCallView {
  id: string;
  name: string;
  arguments: JsonValue;
  result: string | null;
  error: string | null;
  /** The call's requests in the order it made them, each with its answer once recorded. */
  requests: RequestDecision[];
}

/** A request of a tool call and its recorded answer: an approval's `{ approved, reason? }`, a question's payload. */
export interface RequestDecision {
  requestId: string;
  kind: "question" | "approval";
  text: string;
  /** The recorded answer, or null while the request waits (or its turn ended without one). */
  answer: { payload: JsonValue } | null;
}

/** Usage with its cost in US dollars: `cost` counts the calls whose model the price table prices. */
export interface UsageView extends UsageTotals {
  cost: number;
  unpricedCalls: number;
}

/** The usage and cost of some events' model calls. */
export function usageView(events: readonly Event[], prices: PriceTable): UsageView {
  const { dollars, unpricedCalls } = costOfEvents(events, prices);
  return { ...usageOf(events), cost: dollars, unpricedCalls };
}

/** The turns of a thread's main stream, in order. */
export function turnsOf(trace: Trace, prices: PriceTable): TurnView[] {
  const sources = sourcesOf(trace.events);
  const usage = eventsByTurn(trace.events).map((events) => usageView(events, prices));
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
        usage: usage[turns.length]!,
      });
      continue;
    }
    const turn = turns.at(-1);
    if (!turn) continue;
    if (ModelOutput.is(event)) {
      turn.calls.push(callNumbers.get(event) ?? 0);
      for (const call of event.toolCalls)
        turn.toolCalls.push({
          id: call.id,
          name: call.name,
          arguments: call.arguments,
          result: null,
          error: null,
          requests: [],
        });
      if (event.toolCalls.length === 0 || event.content !== "") turn.answer = answerOf(event, sources);
    } else if (ToolOutput.is(event)) {
      const call = turn.toolCalls.find((candidate) => candidate.id === event.callId);
      if (call) {
        call.result = event.text !== null ? shortText(event.text) : elementsText(event);
        call.error = event.error;
      }
    } else if (Failure.is(event)) {
      turn.failures.push({ error: event.error, message: event.message });
    } else if (Request.is(event) || Response.is(event)) {
      decided(turn, event);
    }
  }
  return turns;
}

/** Note a Request on its tool call, or a Response on the request it answers. */
function decided(turn: TurnView, event: Request | Response): void {
  if (Request.is(event)) {
    const call = turn.toolCalls.find((candidate) => candidate.id === event.callId);
    call?.requests.push({ requestId: event.requestId, kind: event.kind, text: event.text, answer: null });
    return;
  }
  for (const call of turn.toolCalls)
    for (const request of call.requests)
      if (request.requestId === event.requestId) request.answer = { payload: event.payload };
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

/** The name of a result's form, as the view shows it. */
export type FormName = "FULL" | "COMPRESSED" | "STUBBED";

/** An element that a floor kept in a higher form than its shrunk result's, such as a cited passage kept whole. */
export interface KeptElement {
  /** The handle of its result. */
  result: string;
  /** The element's id (the source's id). */
  id: string;
  type: string;
  /** The form the floor kept it in. */
  form: FormName;
  /** Its text, when it has one. */
  text: string | null;
}

/** How full the model's window is at the call, as the context builder estimates it. */
export interface WindowUse {
  /** The estimated tokens of the rebuilt request. */
  tokens: number;
  /** The model's window, in tokens. */
  limit: number;
  /** The tokens the policy keeps free for the output. */
  outputReserve: number;
  /** The size above which the policy starts to shrink results, in tokens. */
  startAt: number;
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
  /** The elements of shrunk results that floors kept in a higher form. */
  kept: KeptElement[];
  /** The estimated window use, or null when the builder checks no size. */
  window: WindowUse | null;
  /** The summaries of the stream before the call: each replaced the events before `keptFrom`. */
  compactions: { position: number; summary: string; keptFrom: number }[];
  /** The reopen calls before the call: what each showed again (element ids, result call ids). */
  reopens: { position: number; callId: string | null; elements: string[]; results: string[] }[];
  /** What the call used (estimated, and marked so, when its provider reported nothing) and cost, or null unpriced. */
  usage: Usage & { cost: number | null };
}

/** A builder that can say how big a context is and which floors it keeps (a MessageBuilder). */
interface Measures {
  assess(trace: Trace): { tokens: number };
  limits: { window: { count: number } } | null;
  policy: {
    outputReserve: { count: number };
    thresholds(limits: unknown): { startAt: number };
    protect: readonly { form: number; applies(element: Element, tool: string | null, before: Trace): boolean }[];
  };
}

/** The builder of a model step (an LlmStep, or the LlmStep a CompactingStep wraps) when it measures, else null. */
function measuringBuilder(step: ModelStep): Measures | null {
  const holder = step as { builder?: unknown; step?: { builder?: unknown } };
  const builder = (holder.builder ?? holder.step?.builder) as Partial<Measures> | undefined;
  return typeof builder?.assess === "function" && builder.policy ? (builder as Measures) : null;
}

/** The forms by number: STUBBED (0), COMPRESSED (1), FULL (2). */
export const FORM_NAMES = ["STUBBED", "COMPRESSED", "FULL"] as const;

/** A call's usage and its cost at its model's price (null when the table does not price it). */
function callUsage(output: ModelOutput, prices: PriceTable): CallView["usage"] {
  const usage = usageOfCall(output);
  const price = priceOf(prices, output.model);
  return { ...usage, cost: price === null ? null : costOf(usage, price) };
}

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
    kept: [],
    window: null,
    compactions: [],
    reopens: [],
    usage: callUsage(output, catalog.prices),
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
  const stream = context.trace.stream(output.stream);
  for (const entry of stream.entries) {
    const event = entry.event;
    if (Compaction.is(event))
      view.compactions.push({ position: entry.position, summary: event.summary, keptFrom: event.keptFrom });
    if (Reopened.is(event))
      view.reopens.push({
        position: entry.position,
        callId: event.callId,
        elements: event.reopenedElements,
        results: event.reopenedResults,
      });
  }
  view.explain = (step.explain?.(context) ?? []).map((shrunk) => ({
    result: shrunk.result,
    form: FORM_NAMES[shrunk.form] ?? "FULL",
    by: String(shrunk.by),
    at: shrunk.at,
  }));
  const builder = measuringBuilder(step);
  if (builder === null) return view;
  view.kept = keptElements(stream, view.explain, builder.policy.protect);
  if (builder.limits)
    view.window = {
      tokens: builder.assess(stream).tokens,
      limit: builder.limits.window.count,
      outputReserve: builder.policy.outputReserve.count,
      startAt: builder.policy.thresholds(builder.limits).startAt,
    };
  return view;
}

/**
 * The elements that floors kept above their shrunk result's form: each floor asks about the trace before
 * the call at which the result shrank, as the builder did, so this tells what the model was shown.
 */
function keptElements(
  stream: Trace,
  explained: ExplainedResult[],
  floors: Measures["policy"]["protect"],
): KeptElement[] {
  const handles = resultHandles(stream.thread.events);
  const calls = stream.entries.flatMap((entry, index) => (ModelOutput.is(entry.event) ? [index] : []));
  const kept: KeptElement[] = [];
  for (const shrunk of explained) {
    const callId = handles.callIdOf(shrunk.result);
    const result = stream.events.find((event): event is ToolOutput => ToolOutput.is(event) && event.callId === callId);
    if (!result) continue;
    const tool =
      stream
        .byType(ModelOutput)
        .flatMap((output) => output.toolCalls)
        .find((call) => call.id === callId)?.name ?? null;
    const at = calls[shrunk.at];
    const seen = at === undefined ? stream : stream.before(at);
    const form = FORM_NAMES.indexOf(shrunk.form);
    for (const element of result.elements) {
      const lifted = Math.max(
        form,
        ...floors.filter((floor) => floor.applies(element, tool, seen)).map((floor) => floor.form),
      );
      if (lifted <= form) continue;
      const text = (element as { text?: unknown }).text;
      kept.push({
        result: shrunk.result,
        id: element.id,
        type: element.type,
        form: FORM_NAMES[lifted] ?? "FULL",
        text: typeof text === "string" ? text : null,
      });
    }
  }
  return kept;
}
