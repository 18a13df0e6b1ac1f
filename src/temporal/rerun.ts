/** startRerun: start a batch that re-runs recorded threads against a candidate agent (the soevRerun workflow). */
import { randomUUID } from "node:crypto";
import type { Client, WorkflowHandle } from "@temporalio/client";
import { ValueError } from "../domain/errors.js";
import {
  DEFAULT_TASK_QUEUE,
  RERUN_WORKFLOW,
  rerunThreadIdOf,
  type RerunArgument,
  type RerunResult,
} from "./contract.js";

/** What startRerun takes: the batch's argument (its id optional) and the task queue of the workers that run the batch. */
export interface StartRerunOptions extends Omit<RerunArgument, "batchId"> {
  /** The batch's id; default a new UUID. */
  batchId?: string;
  /** The task queue of the workers that run the batch workflow and read the recorded threads. Default "soev-agents". */
  taskQueue?: string;
}

/** A started batch: its id, its workflow, the candidate thread of each recorded one, and its result. */
export interface RerunHandle {
  batchId: string;
  workflow: WorkflowHandle;
  /** The candidate thread of each recorded thread, by the recorded thread's id. */
  candidateThreads: Record<string, string>;
  /** Wait for the batch: its counts, or the workflow's failure. */
  result(): Promise<RerunResult>;
}

/** The workflow id of a batch. */
export function rerunWorkflowIdOf(batchId: string): string {
  return `soev-rerun-${batchId}`;
}

/**
 * Start a re-run batch. The recorded threads are only read; each gets a candidate thread of its own.
 * @throws ValueError when no thread is given or a thread is named twice.
 */
export async function startRerun(client: Client, options: StartRerunOptions): Promise<RerunHandle> {
  const { taskQueue, batchId = randomUUID(), ...rest } = options;
  if (rest.threadIds.length === 0) throw new ValueError("startRerun needs at least one recorded thread.");
  if (new Set(rest.threadIds).size !== rest.threadIds.length)
    throw new ValueError("startRerun was given a thread twice: name each recorded thread once.");
  const argument: RerunArgument = { ...rest, batchId };
  const workflow = await client.workflow.start(RERUN_WORKFLOW, {
    args: [argument],
    taskQueue: taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId: rerunWorkflowIdOf(batchId),
  });
  return {
    batchId,
    workflow,
    candidateThreads: Object.fromEntries(rest.threadIds.map((id) => [id, rerunThreadIdOf(batchId, id)])),
    result: () => workflow.result() as Promise<RerunResult>,
  };
}
