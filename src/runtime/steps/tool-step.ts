/** ToolStep: runs the calls of the latest model output, one ToolOutput per call, each its own unit of work. */
import {
  Failure,
  ModelOutput,
  Request,
  TaskInput,
  ToolOutput,
  type Event,
  type ToolCall,
} from "../../domain/events.js";
import { ValueError } from "../../domain/errors.js";
import { type GrowingIndex, type Trace, streamTrace } from "../../domain/trace.js";
import type { Budget } from "../budget.js";
import type { StepContext, Tool, Work } from "../contracts.js";
import type { Delegation, TaskStep } from "../tools/delegation.js";
import { isDelegation } from "../tools/delegation.js";
import { executeCall } from "../tools/execute.js";
import { AnswerPending } from "../tools/asking.js";

/** The default result of a call past the budget's cap. */
export const FINISH_DIRECTIVE =
  "This call did not run: the tool calls of this turn are used up. Do not call tools again; answer now with what you have.";

/** The settings of a ToolStep. */
export interface ToolStepOptions {
  /** The tools the model may call, by name. */
  tools: readonly Tool[];
  /** The turn's budget: calls past its cap get `directive` as their result and do not run. */
  budget?: Budget | null;
  /** Whether a call identical to an earlier successful call runs again, for tools that do not say. Default false. */
  repeats?: boolean;
  /** The result of each call past the cap. */
  directive?: string;
}

/**
 * A step that runs the tool calls of the stream's latest model output. Each call is one unit of work
 * (on Temporal, one activity), so siblings run in parallel and are retried on their own. A call of a
 * Delegation that starts a task is a "task" unit, which the runner runs with the task protocol; a
 * delegation call that starts none (arguments that do not fit, past the budget's cap) runs here.
 */
export class ToolStep implements TaskStep {
  readonly tools: ReadonlyMap<string, Tool>;
  readonly budget: Budget | null;
  readonly repeats: boolean;
  readonly directive: string;

  constructor(options: ToolStepOptions) {
    const tools = new Map<string, Tool>();
    for (const tool of options.tools) {
      if (tools.has(tool.name)) throw new ValueError(`Two tools are named "${tool.name}"; tool names must be unique.`);
      tools.set(tool.name, tool);
    }
    this.tools = tools;
    this.budget = options.budget ?? null;
    this.repeats = options.repeats ?? false;
    this.directive = options.directive ?? FINISH_DIRECTIVE;
  }

  /** One unit per call of the latest output that has no result yet, in call order. */
  plan(context: StepContext): Work[] {
    const turn = streamTrace(context).turn;
    const output = latestOutput(turn);
    if (!output) return [];
    // The latest output's calls are answered after it, in the running turn: its events alone are read.
    const answered = answeredCalls(turn);
    return output.toolCalls
      .filter((call) => !answered.has(call.id))
      .map((call) => ({
        key: call.id,
        kind: this.taskOf(streamTrace(context), output, call) ? "task" : "tool",
        name: call.name,
        summary: summary(call),
      }));
  }

  /** The delegation whose task the call `key` starts, or null when the call starts no task. */
  delegation(context: StepContext, key: string): Delegation | null {
    const trace = streamTrace(context);
    const output = latestOutput(trace.turn);
    const call = output?.toolCalls.find((candidate) => candidate.id === key);
    return output && call ? this.taskOf(trace, output, call) : null;
  }

  /** Whether the stream holds a result of call `key` (the thread's index of answered calls, kept as it grows). */
  done(context: StepContext, key: string): boolean {
    return context.trace.thread.index(ANSWERED).get(context.stream)?.has(key) ?? false;
  }

  /**
   * Whether the result of call `key` may be recorded: every earlier plain tool call of the model output has
   * its result, its Request or a Failure recorded. So results land in the order the model made the calls,
   * whichever finished first, and a resumed turn reads what an uninterrupted one would. A delegation's
   * result lands when its task ends (its task may take long or fail on a stream of its own): no call waits
   * for it.
   */
  ready(context: StepContext, key: string): boolean {
    const trace = streamTrace(context);
    const events = trace.turn;
    const at = events.findLastIndex((event) => ModelOutput.is(event));
    const output = events[at] as ModelOutput | undefined;
    const index = output?.toolCalls.findIndex((call) => call.id === key) ?? -1;
    if (!output || index < 0) return true;
    const settled = new Set(
      events
        .slice(at + 1)
        .flatMap((event) =>
          (ToolOutput.is(event) || Failure.is(event) || Request.is(event)) && event.callId !== null
            ? [event.callId]
            : [],
        ),
    );
    return output.toolCalls
      .slice(0, index)
      .every((call) => settled.has(call.id) || this.taskOf(trace, output, call) !== null);
  }

  async run(context: StepContext, key: string): Promise<Event[]> {
    if (this.done(context, key)) return [];
    const trace = streamTrace(context);
    const output = latestOutput(trace.turn);
    const call = output?.toolCalls.find((candidate) => candidate.id === key);
    if (!output || !call) throw new ValueError(`The latest model output has no tool call "${key}".`);
    const header = { callId: call.id, stream: context.stream, origin: context.node };
    const tool = this.tools.get(call.name);
    if (!tool) {
      const names = [...this.tools.keys()].join(", ") || "none";
      return [ToolOutput({ ...header, error: `There is no tool named "${call.name}". The tools are: ${names}.` })];
    }
    if (this.budget?.pastCap(trace, output)) return [ToolOutput({ ...header, text: this.directive })];
    if (isDelegation(tool)) {
      if (this.taskOf(trace, output, call)) {
        throw new ValueError(
          `The call "${key}" of ${tool.name} starts a task: run it as a "task" unit (runTask), not with run.`,
        );
      }
      const refused = tool.handOffs(trace).find((event) => ToolOutput.is(event) && event.callId === call.id);
      return [
        ToolOutput({
          ...header,
          error: (refused as ToolOutput | undefined)?.error ?? `${tool.name} started no task for this call.`,
        }),
      ];
    }
    const turn = trace.turn;
    try {
      const result = await executeCall(tool, call, {
        trace: context.trace,
        turn,
        callId: call.id,
        signal: context.signal,
        heartbeat: context.heartbeat,
        repeats: tool.repeats ?? this.repeats,
      });
      return [{ ...result, ...header }];
    } catch (error) {
      if (!(error instanceof AnswerPending)) throw error;
      // The call waits for a person: record its Request once; the turn waits until a Response is recorded.
      const { requestId } = error.request;
      if (turn.some((event) => Request.is(event) && event.requestId === requestId)) return [];
      return [{ ...error.request, stream: context.stream, origin: context.node }];
    }
  }

  // A delegation call starts a task unless it is past the budget's cap or its arguments do not fit.
  private taskOf(trace: Trace, output: ModelOutput, call: ToolCall): Delegation | null {
    const tool = this.tools.get(call.name);
    if (tool === undefined || !isDelegation(tool) || this.budget?.pastCap(trace, output)) return null;
    return tool.handOffs(trace).some((event) => TaskInput.is(event) && event.callId === call.id) ? tool : null;
  }
}

/** The latest model output of the running turn (its events). */
function latestOutput(turn: readonly Event[]): ModelOutput | undefined {
  return turn.findLast((event): event is ModelOutput => ModelOutput.is(event));
}

function answeredCalls(events: readonly Event[]): Set<string> {
  return new Set(events.flatMap((event) => (ToolOutput.is(event) && event.callId !== null ? [event.callId] : [])));
}

/** The call ids that each stream's ToolOutputs answer. */
const ANSWERED: GrowingIndex<Map<string, Set<string>>> = {
  make: () => new Map(),
  append(answered, events) {
    for (const event of events) {
      if (!ToolOutput.is(event) || event.callId === null) continue;
      let calls = answered.get(event.stream);
      if (!calls) answered.set(event.stream, (calls = new Set()));
      calls.add(event.callId);
    }
  },
};

/** A short form of a call for logs and the Temporal UI, such as `search({"query":"bulky waste"})`. */
function summary(call: ToolCall): string {
  const args = JSON.stringify(call.arguments);
  return `${call.name}(${args.length > 80 ? `${args.slice(0, 77)}...` : args})`;
}
