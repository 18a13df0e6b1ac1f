/** What the runtime knows of delegations: how to tell one from a plain tool, and where its tasks run. */
import { MAIN, type Stream } from "../../domain/events.js";
import type { Delegation, Step, TaskStep, Tool } from "../contracts.js";

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
