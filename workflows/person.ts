/**
 * A turn that waits for a person: the `answer` Update (validated in the workflow, recorded by an
 * activity, exactly once), the `status` Query, and the wait itself: a condition on the workflow's state,
 * so no activity runs and no worker is busy while it waits, and a deadline is a durable timer.
 */
import {
  ApplicationFailure,
  ActivityFailure,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  getExternalWorkflowHandle,
  setCurrentDetails,
  setHandler,
} from "@temporalio/workflow";
import {
  ANSWER_UPDATE,
  STATUS_QUERY,
  TASK_ANSWERED_SIGNAL,
  TASK_WAITING_SIGNAL,
  taskWorkflowIdOf,
  workflowIdOf,
  type TaskWaiting,
  markdownCode,
  markdownEscaped,
  shortened,
  type AnswerArgument,
  type AnswerResult,
  type PendingRequest,
  type TurnScope,
  type TurnStatus,
  type WorkUnit,
} from "../src/temporal/contract.js";
import { schemaProblems } from "./answer-check.js";
import type { TurnCalls } from "./turn-calls.js";

/** The Update that answers a waiting request. */
export const answerUpdate = defineUpdate<AnswerResult, [AnswerArgument]>(ANSWER_UPDATE);
/** The Query that tells where the turn stands. */
export const statusQuery = defineQuery<TurnStatus>(STATUS_QUERY);
/** A task tells its turn what it waits on. */
export const taskWaitingSignal = defineSignal<[TaskWaiting]>(TASK_WAITING_SIGNAL);
/** The turn tells a task that it recorded the answer to one of its requests. */
export const taskAnsweredSignal = defineSignal<[string]>(TASK_ANSWERED_SIGNAL);

// An approval's answer, whatever the request's schema says (the runtime's APPROVAL_SCHEMA).
const APPROVAL = {
  type: "object",
  properties: { approved: { type: "boolean" }, reason: { type: "string" } },
  required: ["approved"],
  additionalProperties: false,
};

/**
 * What the Temporal UI's current details say while a turn waits: the agent, what the first request asks
 * and its id. Text of the request's (the question, the call's arguments) is escaped, so it shows as
 * written; in idsOnly mode it is left out and the details name the kind, the tool and the ids only.
 */
export function waitingDetails(agent: string, waiting: readonly PendingRequest[], idsOnly: boolean): string {
  const first = waiting[0]!;
  const tool = first.tool === null ? "" : ` of ${markdownCode(first.tool)}`;
  const what = idsOnly
    ? first.kind === "approval"
      ? `approval of a call${tool}`
      : `an answer to a question${tool}`
    : first.kind === "approval"
      ? `approval of ${markdownEscaped(shortened(first.text.replace(/^Approve the call /, "").replace(/\?$/, ""), 160))}`
      : `an answer to "${markdownEscaped(shortened(first.text, 160))}"`;
  const more = waiting.length > 1 ? ` (and ${waiting.length - 1} more)` : "";
  return `**${markdownEscaped(agent)}** waits for a person: ${what}${more}. Request ${markdownCode(first.requestId)}: answer with the Update \`${ANSWER_UPDATE}\`.`;
}

/**
 * Where a turn stands, as the workflow knows it: the node and units running, the requests it waits on,
 * and the answers taken, its delegated tasks' requests too. The turn workflow installs its handlers; a
 * task's workflow installs the task's (its requests are answered through its turn).
 */
export class TurnWatch {
  state: TurnStatus["state"] = "opening";
  node: string | null = null;
  running: WorkUnit[] = [];
  /** The requests the turn waits on. */
  waiting: PendingRequest[] = [];
  /** The ids of requests whose answer an Update took (being recorded or recorded). */
  private readonly taken = new Set<string>();
  /** The ids of requests whose Response is recorded. */
  private readonly recorded = new Set<string>();
  /** A task's requests by its stream, as its workflow signalled them: the turn's status and answer take them. */
  private readonly tasks = new Map<string, PendingRequest[]>();
  private scope: TurnScope | null = null;
  /** A task's watch: it tells its turn's workflow what it waits on, and hears of the answers the turn recorded. */
  private task = false;

  constructor(
    readonly threadId: string,
    readonly agent: string,
  ) {}

  /** Install the `answer` Update and the `status` Query; answers are recorded under `scope` once the turn opened. */
  install(calls: TurnCalls): void {
    setHandler(statusQuery, () => this.status());
    setHandler(answerUpdate, (argument) => this.answer(calls, argument), {
      validator: (argument) => this.validate(argument),
    });
    setHandler(taskWaitingSignal, ({ stream, requests }) => {
      if (requests.length > 0) this.tasks.set(stream, requests);
      else this.tasks.delete(stream);
    });
  }

  /** A task's watch: the answers to its requests come from its turn's workflow, which records them. */
  installTask(): void {
    this.task = true;
    setHandler(taskAnsweredSignal, (requestId) => {
      this.recorded.add(requestId);
    });
  }

  /** The task on `stream` ended: none of its requests waits any more. */
  taskEnded(stream: string): void {
    this.tasks.delete(stream);
  }

  /** The turn opened: its scope (with the lease) records the answers. */
  opened(scope: TurnScope): void {
    this.scope = scope;
  }

  /** The node's units start running: the trace says no request waits. */
  runs(node: string, units: WorkUnit[]): void {
    this.state = "running";
    this.node = node;
    this.running = units;
    this.waiting = [];
  }

  /** The node's units ended. */
  ran(): void {
    this.running = [];
  }

  /** The status the Query returns. */
  status(): TurnStatus {
    const open = (request: PendingRequest) =>
      !this.taken.has(request.requestId) && !this.recorded.has(request.requestId);
    const tasks = [...this.tasks.values()].flat().filter(open);
    return {
      threadId: this.threadId,
      agent: this.agent,
      // A turn whose delegated task waits for a person waits too.
      state: this.state === "running" && tasks.length > 0 ? "waiting" : this.state,
      node: this.node,
      running: [...this.running],
      requests: [...this.waiting.filter((request) => !this.taken.has(request.requestId)), ...tasks],
    };
  }

  /**
   * Wait until one of `waiting` is answered, or the nearest deadline passes: then each request due ends
   * its wait (its default answer, or the Failure that ends the turn, which this throws as `failed`).
   */
  async waitFor(
    calls: TurnCalls,
    waiting: PendingRequest[],
    failed: (failure: NonNullable<Awaited<ReturnType<TurnCalls["activities"]["expireRequest"]>>["failure"]>) => Error,
  ): Promise<void> {
    const scope = this.scope!;
    // A task's requests are answered through its turn: tell the turn's workflow what waits.
    if (this.task) await this.tellTurn(waiting);
    this.state = "waiting";
    this.running = [];
    this.waiting = waiting;
    setCurrentDetails(waitingDetails(this.agent, waiting, scope.idsOnly === true));
    const answered = () => waiting.some((request) => this.recorded.has(request.requestId));
    const deadlines = waiting.flatMap((request) => (request.deadlineMs === null ? [] : [request.deadlineMs]));
    if (deadlines.length === 0) {
      await condition(answered);
    } else {
      const nearest = Math.min(...deadlines);
      if (await condition(answered, Math.max(1, nearest))) return await this.resumed();
      for (const request of waiting.filter((candidate) => candidate.deadlineMs === nearest)) {
        // An answer taken but not yet recorded is refused from here on: the deadline decides.
        this.taken.add(request.requestId);
        const expired = await calls.activities.expireRequest.executeWithOptions(
          { ...calls.control, summary: `deadline of ${request.requestId}` },
          [{ ...scope, requestId: request.requestId }],
        );
        if (expired.failure !== null) throw failed(expired.failure);
      }
    }
    await this.resumed();
  }

  // An answer may come for a request that still waits while the turn runs on: it stays answerable until
  // the next plan says what waits.
  private async resumed(): Promise<void> {
    this.state = "running";
    this.waiting = this.waiting.filter((request) => !this.recorded.has(request.requestId));
    if (this.task) await this.tellTurn(this.waiting);
  }

  private async tellTurn(requests: PendingRequest[]): Promise<void> {
    const scope = this.scope!;
    await getExternalWorkflowHandle(workflowIdOf(scope.threadId)).signal(taskWaitingSignal, {
      stream: scope.stream,
      requests,
    });
  }

  /** The request of the id that waits, here or in a task, and the stream it waits on. */
  private waitingRequest(requestId: string): { request: PendingRequest; stream: string } | undefined {
    const own = this.waiting.find((candidate) => candidate.requestId === requestId);
    if (own !== undefined) return { request: own, stream: this.scope!.stream };
    for (const [stream, requests] of this.tasks) {
      const request = requests.find((candidate) => candidate.requestId === requestId);
      if (request !== undefined) return { request, stream };
    }
    return undefined;
  }

  private validate(argument: AnswerArgument): void {
    const refuse = (message: string): never => {
      throw ApplicationFailure.create({ type: "AnswerRefusedError", message, nonRetryable: true });
    };
    if (argument === null || typeof argument !== "object" || typeof argument.requestId !== "string")
      refuse(`Send the answer as { "requestId": "...", "payload": ... }.`);
    const { requestId } = argument;
    if (this.taken.has(requestId) || this.recorded.has(requestId))
      refuse(`Request "${requestId}" is answered already; an answer is recorded once.`);
    const request = this.waitingRequest(requestId)?.request;
    if (request === undefined) {
      const open = this.status().requests.map((candidate) => candidate.requestId);
      refuse(`No request "${requestId}" waits for an answer in this turn; waiting: ${open.join(", ") || "none"}.`);
    }
    if (!("payload" in argument) || argument.payload === undefined)
      refuse(`The answer to request "${requestId}" has no payload.`);
    const schema = request!.kind === "approval" ? APPROVAL : request!.schema;
    const problems = schema === null ? [] : schemaProblems(schema, argument.payload);
    if (problems.length > 0)
      refuse(`The answer to request "${requestId}" does not fit its schema (${problems.join("; ")}).`);
  }

  private async answer(calls: TurnCalls, argument: AnswerArgument): Promise<AnswerResult> {
    const { requestId } = argument;
    const stream = this.waitingRequest(requestId)?.stream ?? this.scope!.stream;
    this.taken.add(requestId);
    try {
      const result = await calls.activities.recordAnswer.executeWithOptions(
        { ...calls.control, summary: `answer ${requestId}` },
        [{ ...this.scope!, stream, requestId, payload: argument.payload }],
      );
      this.recorded.add(requestId);
      // A task's request: its workflow waits for word that the answer is recorded.
      if (stream !== this.scope!.stream)
        await getExternalWorkflowHandle(taskWorkflowIdOf(this.threadId, stream)).signal(taskAnsweredSignal, requestId);
      return result;
    } catch (error) {
      this.taken.delete(requestId);
      // The caller reads the refusal itself, not the activity's wrapper around it.
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
        throw ApplicationFailure.create({
          type: error.cause.type ?? "AnswerRefusedError",
          message: error.cause.message,
          nonRetryable: true,
        });
      }
      throw error;
    }
  }
}
