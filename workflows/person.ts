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
  defineUpdate,
  setCurrentDetails,
  setHandler,
} from "@temporalio/workflow";
import {
  ANSWER_UPDATE,
  STATUS_QUERY,
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
import type { TurnCalls } from "./loop.js";

/** The Update that answers a waiting request. */
export const answerUpdate = defineUpdate<AnswerResult, [AnswerArgument]>(ANSWER_UPDATE);
/** The Query that tells where the turn stands. */
export const statusQuery = defineQuery<TurnStatus>(STATUS_QUERY);

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
 * and the answers taken. The turn workflow installs its handlers; a task's run keeps one without them.
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
  private scope: TurnScope | null = null;
  private answerable = false;

  constructor(
    readonly threadId: string,
    readonly agent: string,
  ) {}

  /** Install the `answer` Update and the `status` Query; answers are recorded under `scope` once the turn opened. */
  install(calls: TurnCalls): void {
    this.answerable = true;
    setHandler(statusQuery, () => this.status());
    setHandler(answerUpdate, (argument) => this.answer(calls, argument), {
      validator: (argument) => this.validate(argument),
    });
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
    return {
      threadId: this.threadId,
      agent: this.agent,
      state: this.state,
      node: this.node,
      running: [...this.running],
      requests: this.waiting.filter((request) => !this.taken.has(request.requestId)),
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
    if (!this.answerable) {
      throw ApplicationFailure.create({
        type: "ValueError",
        message: `A tool of the task on stream "${scope.stream}" asked a person (request "${waiting[0]!.requestId}"): tasks of a ToolDelegation cannot wait for answers yet. Ask in the parent's tools.`,
        nonRetryable: true,
      });
    }
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
      if (await condition(answered, Math.max(1, nearest))) return this.resumed();
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
    this.resumed();
  }

  // An answer may come for a request that still waits while the turn runs on: it stays answerable until
  // the next plan says what waits.
  private resumed(): void {
    this.state = "running";
    this.waiting = this.waiting.filter((request) => !this.recorded.has(request.requestId));
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
    const request = this.waiting.find((candidate) => candidate.requestId === requestId);
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
    this.taken.add(requestId);
    try {
      const result = await calls.activities.recordAnswer.executeWithOptions(
        { ...calls.control, summary: `answer ${requestId}` },
        [{ ...this.scope!, requestId, payload: argument.payload }],
      );
      this.recorded.add(requestId);
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
