/** startRerun: start a batch that re-runs recorded threads against a candidate agent (the soevRerun workflow). */
import { randomUUID } from "node:crypto";
import type { Client, WorkflowHandle } from "@temporalio/client";
import { ValueError } from "../domain/errors.js";
import {
  DEFAULT_TASK_QUEUE,
  RERUN_WORKFLOW,
  rerunThreadIdOf,
  type RerunArgument,
  type RerunMemo,
  type RerunResult,
} from "./contract.js";

/** The memo key under which a batch's workflow records its RerunMemo. */
export const RERUN_MEMO = "soevRerun";

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
    memo: {
      [RERUN_MEMO]: {
        agent: rest.agent,
        candidate: rest.candidate.agent,
        threadIds: rest.threadIds,
      } satisfies RerunMemo,
    },
  });
  return {
    batchId,
    workflow,
    candidateThreads: Object.fromEntries(rest.threadIds.map((id) => [id, rerunThreadIdOf(batchId, id)])),
    result: () => workflow.result() as Promise<RerunResult>,
  };
}

/** A batch as its workflow describes it, with no worker: its status, its memo and, once completed, its result. */
export interface RerunDescription {
  /** The workflow's status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT or CONTINUED_AS_NEW. */
  status: string;
  /** What startRerun recorded; null for a batch started without it. */
  memo: RerunMemo | null;
  /** The batch's counts, when it completed. */
  result: RerunResult | null;
}

/**
 * Describe a batch from its workflow (no worker needed).
 * @throws WorkflowNotFoundError when there is no batch of that id.
 */
export async function describeRerun(client: Client, batchId: string): Promise<RerunDescription> {
  const handle = client.workflow.getHandle(rerunWorkflowIdOf(batchId));
  const description = await handle.describe();
  const status = description.status.name;
  const memo = (description.memo?.[RERUN_MEMO] ?? null) as RerunMemo | null;
  return { status, memo, result: status === "COMPLETED" ? ((await handle.result()) as RerunResult) : null };
}
