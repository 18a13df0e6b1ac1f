/** replay: rebuild each model request of a thread from its events, calling nothing. */
import { Input, ModelOutput, TaskInput, type Event } from "../domain/events.js";
import { Trace } from "../domain/trace.js";
import type { ChatRequest } from "../ports/request.js";
import type { ModelContext, Step, StepContext } from "./contracts.js";
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
}

/** A step that can rebuild the context of its next model call (an LlmStep, or a step that wraps one). */
interface Rebuilds extends Step {
  rebuild(context: StepContext): ModelContext;
}

/**
 * Rebuild the request of every model call of a thread from its events, in order. `buildGraph` builds the
 * graph of the turn that an input opened; a task's stream gets the graph of the delegation that handed it
 * off, found in the graph of the stream that called it. Nothing is called: the context builder is a pure function.
 */
export async function replay(
  events: readonly Event[],
  buildGraph: (input: Input) => Graph | Promise<Graph>,
): Promise<ReplayedCall[]> {
  const trace = Trace.of(events);
  const graphOf = async (stream: string, before: Trace): Promise<Graph> => {
    const opening = before.stream(stream).events.findLast((candidate): candidate is Input => Input.is(candidate))!;
    return TaskInput.is(opening)
      ? taskGraph(before, opening, graphOf, { threadId: "", agent: null })
      : buildGraph(opening);
  };
  const graphs = new Map<Input, Graph>();
  const calls: ReplayedCall[] = [];
  for (const [index, event] of events.entries()) {
    if (!ModelOutput.is(event)) continue;
    const before = trace.before(index);
    const opening = before.stream(event.stream).events.findLast((candidate): candidate is Input => Input.is(candidate));
    if (!opening || event.origin === null) {
      calls.push({ output: event, request: null, matches: false });
      continue;
    }
    if (!graphs.has(opening)) graphs.set(opening, await graphOf(event.stream, before));
    const graph = graphs.get(opening)!;
    const step = graph.has(event.origin) ? graph.step(event.origin) : undefined;
    const request =
      step && rebuilds(step)
        ? step.rebuild({ threadId: "", agent: null, stream: event.stream, node: event.origin, trace: before }).request
        : null;
    calls.push({ output: event, request, matches: request !== null && request.hash === event.requestHash });
  }
  return calls;
}

function rebuilds(step: Step): step is Rebuilds {
  return typeof (step as Partial<Rebuilds>).rebuild === "function";
}
