/**
 * handOff and handBack: the two recorded parts of a "task" unit (a ToolDelegation call), each its own
 * activity through the runtime's task protocol, exactly once in the trace. Between them, the task's
 * stream runs as a child workflow (soevTask). Each says what comes next: the hand-off on the task's
 * stream, the hand-back on the parent's.
 */
import { Context } from "@temporalio/activity";
import { handBack, handOff } from "../src/runtime/runner/task.js";
import type { HandedOff, WorkArgument, WorkDone } from "../src/temporal/contract.js";
import { closedTurn } from "./call-unit.js";
import { reported } from "./failures.js";
import { contextOf, graphOf, plannedWork, recorderOf, renewIfDue, traceOf, type TurnAccess } from "./turn-access.js";

/** Record the TaskInput of the task unit, unless an earlier attempt did; return the task's stream and its first work. */
export async function handOffTask(access: TurnAccess, argument: WorkArgument): Promise<HandedOff> {
  return reported(async () => {
    const renewedAt = await renewIfDue(access, argument.lease);
    const graph = await graphOf(access, argument, await traceOf(access, argument));
    const context = { ...contextOf(access, argument), node: argument.node };
    const { task, skipped } = await handOff(
      recorderOf(access, argument),
      graph.step(argument.node),
      context,
      argument.unit.key,
    );
    const after = await traceOf(access, argument);
    const next = await plannedWork(access, { ...argument, stream: task.stream }, after);
    return { stream: task.stream, seq: task.seq ?? 0, skipped, next, renewedAt };
  }, Context.current().cancellationSignal);
}

/** Record the task's result on the parent's stream, unless an earlier attempt did; then what comes next there. */
export async function handBackTask(access: TurnAccess, argument: WorkArgument): Promise<WorkDone> {
  return reported(async () => {
    const renewedAt = await renewIfDue(access, argument.lease);
    const graph = await graphOf(access, argument, await traceOf(access, argument));
    const context = { ...contextOf(access, argument), node: argument.node };
    const result = await handBack(recorderOf(access, argument), graph.step(argument.node), context, argument.unit.key);
    const after = await traceOf(access, argument);
    const next = await plannedWork(access, argument, after);
    return {
      skipped: result.skipped,
      seqs: result.recorded.map((event) => event.seq ?? -1),
      toolCalls: 0,
      next,
      renewedAt,
      result: await closedTurn(access, argument, next, after),
    };
  }, Context.current().cancellationSignal);
}
