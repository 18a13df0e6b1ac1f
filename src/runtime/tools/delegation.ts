/** What the runtime knows of delegations: how to tell one from a plain tool, and where its tasks run. */
import { MAIN, type Event, type Stream, type TaskInput } from "../../domain/events.js";
import type { Trace } from "../../domain/trace.js";
import type { Step, StepContext, Tool } from "../contracts.js";
import type { Graph } from "../graph.js";

/**
 * A tool that the model calls to hand off a task: each call runs as a task on a stream of its own, with
 * the graph that `graphFor` builds, and its result comes back as the call's ToolOutput. A ToolStep tells
 * it from a plain tool and plans its calls as "task" units; `invoke` is never called.
 */
export interface Delegation extends Tool {
  /** The graph of the task that `task` heads. */
  graphFor(task: TaskInput): Graph;
  /**
   * One event for each call of this delegation in the parent stream's latest model output, in call order:
   * a TaskInput on the task's stream, or a ToolOutput with an error for a call that starts no task.
   */
  handOffs(parent: Trace): Event[];
  /** The result of a task that ended, from its stream's trace: one ToolOutput linked by the call's id. */
  handBack(child: Trace): Event[];
}

/** A step whose work includes "task" units: it names the delegation of each. */
export interface TaskStep extends Step {
  /** The delegation whose task the unit `key` runs, or null when `key` is no task of this step. */
  delegation(context: StepContext, key: string): Delegation | null;
}

/** Whether a tool hands off tasks (a ToolDelegation) rather than running its calls itself. */
export function isDelegation(tool: Tool): tool is Delegation {
  const candidate = tool as Partial<Delegation>;
  return (
    typeof candidate.graphFor === "function" &&
    typeof candidate.handOffs === "function" &&
    typeof candidate.handBack === "function"
  );
}

/** Whether a step plans "task" units and names their delegations. */
export function isTaskStep(step: Step): step is TaskStep {
  return typeof (step as Partial<TaskStep>).delegation === "function";
}

/**
 * The stream of the task that call `callId` of `parent` hands off: "task-<callId>" for a call of the main
 * stream, "<parent>/task-<callId>" for a call made inside a task, so nested tasks never share a stream.
 */
export function taskStream(parent: Stream, callId: string): Stream {
  return parent === MAIN ? `task-${callId}` : `${parent}/task-${callId}`;
}
