/**
 * startTurn: start one turn of a thread as a Temporal workflow, from a service that has only a Temporal
 * client. The workflow id derives from the thread id, so Temporal refuses a second turn while one runs.
 */
import { randomUUID } from "node:crypto";
import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from "@temporalio/client";
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from "@temporalio/common";
import { ValueError } from "../domain/errors.js";
import { InputTooLargeError } from "../runtime/errors.js";
import {
  DEFAULT_TASK_QUEUE,
  MAX_INPUT_BYTES,
  TURN_WORKFLOW,
  inputSizeProblem,
  markdownCode,
  markdownEscaped,
  shortened,
  workflowIdOf,
  type TurnArgument,
  type TurnInput,
  type TurnResult,
  type TurnSettings,
} from "./contract.js";
import { TurnRunningError } from "./errors.js";
import { turnSearchAttributes } from "./search-attributes.js";

/** What startTurn needs: the agent, the thread (none for a new one), the input and the task queue. */
export interface StartTurnOptions {
  /** The agent's name in the worker's catalog. */
  agent: string;
  /** The thread to continue; leave it out for a new thread (startTurn picks its id). */
  threadId?: string | null;
  /** The input: its payload (the agent's input type parses it) and the model the turn runs on. */
  input: TurnInput;
  /** The task queue the worker polls. Default "soev-agents". */
  taskQueue?: string;
  /** Timeouts and retries of the turn's activities, and `idsOnly` to keep user text out of the UI's summaries. */
  settings?: TurnSettings;
  /** Who starts the turn, as your service authenticated them: the worker's `authorize` hook reads it. */
  principal?: string | null;
}

/** A started turn: its thread and workflow, and its result. */
export interface TurnHandle {
  threadId: string;
  workflowId: string;
  /** The run of the workflow that runs this turn. */
  runId: string;
  /** The Temporal handle of the workflow, to follow, query or cancel it. */
  workflow: WorkflowHandle;
  /** Wait for the turn: its short summary, or the workflow's failure (the error's name and message). */
  result(): Promise<TurnResult>;
}

/**
 * Start one turn. A second start while a turn of the thread runs raises TurnRunningError. An input whose
 * payload is over `settings.maxInputBytes` as JSON (default MAX_INPUT_BYTES, 256 KiB) raises
 * InputTooLargeError before any workflow starts; the worker checks its catalog's limit and the agent's
 * input type again before it records anything.
 *
 * @example
 * ```ts
 * import { Client, Connection } from "@temporalio/client";
 * import { startTurn } from "soev-agents/temporal";
 *
 * const client = new Client({ connection: await Connection.connect({ address: "localhost:7233" }) });
 * const turn = await startTurn(client, {
 *   agent: "assistant",
 *   input: { payload: "How much is a parking permit?", model: "gpt-4.1-mini" },
 * });
 * const { answer, citations } = await turn.result();
 * // The next turn of the thread:
 * await startTurn(client, { agent: "assistant", threadId: turn.threadId, input: { payload: "Thanks!", model: "gpt-4.1-mini" } });
 * ```
 */
export async function startTurn(client: Client, options: StartTurnOptions): Promise<TurnHandle> {
  if (!options.agent) throw new ValueError("startTurn needs the agent's name.");
  const limit = options.settings?.maxInputBytes ?? MAX_INPUT_BYTES;
  const tooLarge = inputSizeProblem(options.input.payload, limit);
  if (tooLarge !== null) throw new InputTooLargeError(tooLarge, { details: { limit } });
  const threadId = options.threadId ?? randomUUID();
  const workflowId = workflowIdOf(threadId);
  const argument: TurnArgument = {
    agent: options.agent,
    threadId,
    input: options.input,
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.principal != null ? { principal: options.principal } : {}),
  };
  const idsOnly = options.settings?.idsOnly === true;
  const text =
    typeof options.input.payload === "string" ? options.input.payload : JSON.stringify(options.input.payload);
  let workflow: WorkflowHandleWithFirstExecutionRunId;
  try {
    workflow = await client.workflow.start(TURN_WORKFLOW, {
      args: [argument],
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      workflowId,
      // A finished turn lets the next one start under the same id; a running one refuses it.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      staticSummary: idsOnly ? markdownEscaped(options.agent) : markdownEscaped(`${options.agent}: ${shortened(text)}`),
      staticDetails: details(options, threadId, idsOnly ? null : text),
      typedSearchAttributes: turnSearchAttributes({ threadId, agent: options.agent }),
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      throw new TurnRunningError(
        `A turn of thread "${threadId}" is running: workflow "${workflowId}". Wait for it to finish (its result), then start the next turn.`,
        { workflowId, cause: error },
      );
    }
    throw error;
  }
  return {
    threadId,
    workflowId,
    runId: workflow.firstExecutionRunId,
    workflow,
    result: () => workflow.result() as Promise<TurnResult>,
  };
}

/** The static details the Temporal UI shows on the turn's page (Temporal markdown, user text escaped). */
function details(options: StartTurnOptions, threadId: string, text: string | null): string {
  return [
    `**Agent:** ${markdownEscaped(options.agent)}`,
    `**Thread:** ${markdownCode(threadId)}`,
    `**Model:** ${markdownEscaped(options.input.model ?? "(the agent's default)")}`,
    ...(text === null ? [] : [`**Input:** ${markdownEscaped(shortened(text, 400))}`]),
  ].join("\n\n");
}
