/** replay and explain: rebuild the model calls of a thread from its events, calling nothing. */
import { ValueError } from "../domain/errors.js";
import { Input, ModelOutput, TaskInput, type Event } from "../domain/events.js";
import { Trace } from "../domain/trace.js";
import type { PreparedRequest } from "../ports/model.js";
import type { ChatRequest } from "../ports/request.js";
import type { AgentCatalog } from "./catalog.js";
import { isModelStep, type ExplainedForm, type ModelStep, type StepContext } from "./contracts.js";
import type { Graph } from "./graph.js";
import { taskGraph } from "./runner/task.js";

/** One model call of a thread as replay rebuilt it. */
export interface ReplayedCall {
  /** The recorded output of the call. */
  output: ModelOutput;
  /** The request rebuilt from the events before it, or null when its node builds no requests. */
  request: ChatRequest | null;
  /** Whether the rebuilt request's hash equals the one the output recorded. */
  matches: boolean;
  /**
   * The rebuilt request as the model's adapter would send it (PreparesRequests.prepare), with its settings
   * and what the adapter changed; null when the adapter cannot prepare or nothing was rebuilt.
   */
  prepared: PreparedRequest | null;
  /** Why each shrunk result had its form at the call, as its builder explains it; present when asked for. */
  explained?: readonly ExplainedForm[];
}

/** The options of rebuildCalls. */
export interface RebuildOptions {
  /** Add each call's `explained` forms (the context builder's explain of the trace before it). Default false. */
  explain?: boolean;
  /** Rebuild under this agent of the catalog instead of the one that opened the thread (a candidate's what-if). */
  agent?: string;
}

/** Builds the graph of the turn that an input opened, as an agent's `build` does for its parsed input. */
export type BuildGraph = (input: Input) => Graph | Promise<Graph>;

/** The graph of the running turn of a stream, from the trace before a call on it. */
type GraphAt = (before: Trace, stream: string) => Promise<Graph>;

/** The model step of a recorded call's node, and the context the call ran in (the trace before it). */
export interface CallSite {
  step: ModelStep;
  context: StepContext;
}

// The thread and agent a rebuild names when the caller gives only events.
const NO_THREAD = { threadId: "", agent: null } as const;

/**
 * Rebuild the request of every model call of a thread, in order, and prepare each as the model's adapter
 * would send it. Nothing is called: the context builder is a pure function of the trace.
 *
 * With a catalog and a thread id, the catalog reads the thread and builds each turn's graph from its
 * input and the thread's resources, as a run does. With the thread's events and `buildGraph`, you build
 * the graph of the turn that an input opened; a task's stream gets the graph of the delegation that
 * handed it off, found in the graph of the stream that called it.
 *
 * @example
 * ```ts
 * import type { AgentCatalog } from "soev-agents/runtime";
 * import { replay } from "soev-agents/runtime";
 *
 * declare const catalog: AgentCatalog;
 * for (const call of await replay(catalog, "thread-1")) console.log(call.matches, call.prepared?.changes);
 * ```
 * @throws UnknownThreadError when the catalog's store has no thread of that id.
 */
export function replay(catalog: AgentCatalog, threadId: string): Promise<ReplayedCall[]>;
export function replay(events: readonly Event[], buildGraph: BuildGraph): Promise<ReplayedCall[]>;
export async function replay(
  source: AgentCatalog | readonly Event[],
  thread: string | BuildGraph,
): Promise<ReplayedCall[]> {
  if (Array.isArray(source)) {
    if (typeof thread !== "function")
      throw new ValueError(
        "replay(events, buildGraph) needs a function that builds the graph of a turn from its input.",
      );
    return replayTrace(Trace.of(source as readonly Event[]), graphsOf(thread as BuildGraph), NO_THREAD);
  }
  const catalog = source as AgentCatalog;
  if (typeof thread !== "string" || typeof catalog?.graphFor !== "function")
    throw new ValueError(
      "replay takes a catalog and a thread id, or the thread's events and a function that builds a turn's graph.",
    );
  return rebuildCalls(catalog, thread);
}

/**
 * Rebuild every model call of a thread of the catalog's store with the catalog's agents: the recorded calls
 * when the catalog is the one that ran them, what they would have been under a candidate catalog otherwise.
 * @throws UnknownThreadError when the catalog's store has no thread of that id.
 */
export async function rebuildCalls(
  catalog: AgentCatalog,
  threadId: string,
  options: RebuildOptions = {},
): Promise<ReplayedCall[]> {
  const agent = options.agent ?? (await catalog.agentOf(threadId));
  const graphAt: GraphAt = (before, stream) => catalog.graphFor(threadId, agent, before, stream);
  return replayTrace(await catalog.read(threadId, agent), graphAt, { threadId, agent }, options.explain ?? false);
}

/**
 * Why each shrunk result has its form at a recorded model call, as the context builder of the call's node
 * explains it; empty when the builder explains nothing (no limits, or a builder of your own).
 * @throws ValueError when `call` is not a ModelOutput of `trace`.
 */
export async function explainCall(
  trace: Trace,
  call: ModelOutput,
  buildGraph: BuildGraph,
): Promise<readonly ExplainedForm[]> {
  const site = await callSite(trace, indexOf(trace, call), graphsOf(buildGraph), NO_THREAD);
  return site?.step.explain?.(site.context) ?? [];
}

/**
 * The model step of the node that made the model call at `index` of `trace`, and its context: null when
 * the call has no node, the stream no input, or the node is not a model step.
 */
export async function callSite(
  trace: Trace,
  index: number,
  graphAt: (before: Trace, stream: string) => Promise<Graph>,
  ids: Pick<StepContext, "threadId" | "agent">,
): Promise<CallSite | null> {
  const output = trace.events[index];
  if (!ModelOutput.is(output) || output.origin === null) return null;
  const before = trace.before(index);
  if (!openingOf(before, output.stream)) return null;
  const graph = await graphAt(before, output.stream);
  const step = graph.has(output.origin) ? graph.step(output.origin) : undefined;
  if (!isModelStep(step)) return null;
  return { step, context: { ...ids, stream: output.stream, node: output.origin, trace: before } };
}

async function replayTrace(
  trace: Trace,
  graphAt: GraphAt,
  ids: Pick<StepContext, "threadId" | "agent">,
  explain = false,
): Promise<ReplayedCall[]> {
  // One graph per turn: each call of a turn is rebuilt on the graph its input opened.
  const graphs = new Map<Input, Promise<Graph>>();
  const cached: GraphAt = (before, stream) => {
    const opening = openingOf(before, stream)!;
    if (!graphs.has(opening)) graphs.set(opening, graphAt(before, stream));
    return graphs.get(opening)!;
  };
  const calls: ReplayedCall[] = [];
  for (const [index, output] of trace.events.entries()) {
    if (!ModelOutput.is(output)) continue;
    const site = await callSite(trace, index, cached, ids);
    const request = site ? site.step.rebuild(site.context).request : null;
    const prepared = request && site?.step.prepare ? await site.step.prepare(request) : null;
    const call: ReplayedCall = {
      output,
      request,
      matches: request !== null && request.hash === output.requestHash,
      prepared,
    };
    if (explain) call.explained = site?.step.explain?.(site.context) ?? [];
    calls.push(call);
  }
  return calls;
}

// The graph of each turn from buildGraph; a task's stream gets its delegation's graph.
function graphsOf(buildGraph: BuildGraph): GraphAt {
  const graphAt: GraphAt = async (before, stream) => {
    const opening = openingOf(before, stream)!;
    return TaskInput.is(opening)
      ? taskGraph(before, opening, (parent, earlier) => graphAt(earlier, parent), NO_THREAD)
      : buildGraph(opening);
  };
  return graphAt;
}

function openingOf(trace: Trace, stream: string): Input | undefined {
  return trace.stream(stream).events.findLast((event): event is Input => Input.is(event));
}

// The position of a recorded call in the trace: the same object, or the output at its stream and seq.
function indexOf(trace: Trace, call: ModelOutput): number {
  const events = trace.events;
  let index = events.indexOf(call);
  if (index < 0 && call?.seq !== null && call?.seq !== undefined) {
    index = events.findIndex(
      (event) => ModelOutput.is(event) && event.stream === call.stream && event.seq === call.seq,
    );
  }
  if (index < 0 || !ModelOutput.is(events[index]))
    throw new ValueError(
      "The call is not a model output of this trace: pass one of trace.byType(ModelOutput), read from the same thread.",
    );
  return index;
}
