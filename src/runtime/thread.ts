/** Thread: one conversation of a catalog, run in-process by the local runner. */
import { randomUUID } from "node:crypto";
import { Input, MAIN } from "../domain/events.js";
import type { Trace } from "../domain/trace.js";
import type { Fragment } from "../ports/model.js";
import { END, checkGraph, type Graph } from "./graph.js";
import { runTurn } from "./runner/local.js";
import { pendingNode } from "./runner/pending.js";
import { append, observedRun } from "./runner/work.js";
import { recordAnswer, recordTurnFailure, streamOfRequest, threadRequests } from "./runner/requests.js";
import { CANCELLED } from "../domain/requests.js";
import type { JsonValue } from "../domain/json.js";
import type { Request } from "../domain/events.js";
import type { Lease, TraceStore } from "../ports/store.js";
import type { Clock } from "../ports/clock.js";
import type { Observer } from "../ports/observer.js";
import type { EventTypes } from "../domain/registry.js";
import type { Spending } from "./spending.js";

/** What a Thread needs of its catalog: AgentCatalog is one. The narrow view keeps thread.ts from importing it. */
export interface ThreadCatalog {
  readonly store: TraceStore;
  readonly version: string | null;
  readonly observer: Observer | undefined;
  readonly leaseSeconds: number;
  readonly clock: Clock;
  types(agent: string): EventTypes;
  read(threadId: string, agent: string): Promise<Trace>;
  admit(agent: string, input: Input, where: { threadId: string; trace: Trace }): Promise<Graph>;
  graphFor(threadId: string, agent: string, trace: Trace, stream?: string): Promise<Graph>;
  opening(agent: string, input: Input): Input;
  spendingOf(agent: string): Spending | null;
}

/** Options of a local run. */
export interface ResumeOptions {
  /** Receives the model's fragments while they arrive; the model call streams when it is set. */
  onFragment?: (fragment: Fragment) => void;
  signal?: AbortSignal;
}

/** One thread of a catalog: send it inputs, resume its turn, read its trace. */
export class Thread {
  constructor(
    private readonly catalog: ThreadCatalog,
    /** The thread's id. */
    readonly id: string,
    /** The name of the thread's agent. */
    readonly agent: string,
    // The graph that admitting the thread's last input built, for the run that trace ends at: the
    // agent's config runs once per local turn.
    private admitted: { graph: Graph; length: number } | null = null,
  ) {}

  /** The thread's trace, decoded. */
  async trace(): Promise<Trace> {
    return this.catalog.read(this.id, this.agent);
  }

  /**
   * Run the thread's turn until it ends or waits for a person (see `requests`), from wherever the trace
   * says it stands. Returns the trace.
   */
  async resume(options: ResumeOptions = {}): Promise<Trace> {
    return this.holding((lease) => this.run(lease, options));
  }

  /**
   * Record an input that starts a new turn, and run the turn. Returns the trace. The thread's lease is
   * taken first and the input appended with it and the stream's `expected` length, so a send while
   * another runner's turn holds the thread (a running Temporal turn) raises LeaseHeldError with nothing
   * written. The input is admitted before (AgentCatalog.admit): a refused input is never recorded.
   */
  async send(input: Input, options: ResumeOptions = {}): Promise<Trace> {
    return this.holding(async (lease) => {
      const trace = await this.trace();
      const graph = await this.catalog.admit(this.agent, input, { threadId: this.id, trace });
      await append(this.recorder(lease), [this.catalog.opening(this.agent, input)], trace, input.stream);
      this.admitted = { graph, length: trace.length + 1 };
      return this.run(lease, options);
    });
  }

  private async run(lease: Lease, options: ResumeOptions): Promise<Trace> {
    const { observer } = this.catalog;
    const trace = await this.trace();
    const admitted = this.admitted?.length === trace.length ? this.admitted.graph : null;
    this.admitted = null;
    const graph = admitted ?? (await this.catalog.graphFor(this.id, this.agent, trace));
    checkGraph(graph);
    const run = () =>
      runTurn(this.recorder(lease), graph, { agent: this.agent, observer, clock: this.catalog.clock, ...options });
    // The observer is told of the input that opened the turn only while that turn is not over.
    const over = pendingNode(graph, { threadId: this.id, agent: this.agent, stream: MAIN, trace }) === END;
    const opening = over ? null : (trace.stream(MAIN).lastOf(Input) ?? null);
    return await observedRun(observer, { threadId: this.id, agent: this.agent, opening }, run);
  }

  /** The Requests the running turn waits on that a person may answer, oldest first: its own and its delegated tasks'. */
  async requests(): Promise<Request[]> {
    return threadRequests(await this.trace());
  }

  /**
   * Answer a waiting Request and run the turn on. Raises AnswerRefusedError, recording nothing, for an
   * id that no request of the running turn has, one answered already, or a payload that does not fit.
   */
  async answer(requestId: string, payload: JsonValue, options: ResumeOptions = {}): Promise<Trace> {
    const stream = streamOfRequest(await this.trace(), requestId);
    await this.holding((lease) => recordAnswer(this.recorder(lease), stream, requestId, payload));
    return this.resume(options);
  }

  /**
   * Cancel the thread's turn that waits for a person: records one CancelledError Failure, as Temporal's
   * cancel does, first on each delegated task that waits (its child workflow is cancelled first there).
   */
  async cancel(): Promise<Trace> {
    const tasks = new Set((await this.requests()).map((request) => request.stream).filter((stream) => stream !== MAIN));
    await this.holding(async (lease) => {
      for (const stream of [...tasks, MAIN]) await recordTurnFailure(this.recorder(lease), stream, CANCELLED);
    });
    return this.trace();
  }

  private recorder(lease: Lease) {
    return {
      store: this.catalog.store,
      types: this.catalog.types(this.agent),
      threadId: this.id,
      lease,
      version: this.catalog.version,
      spending: this.catalog.spendingOf(this.agent),
    };
  }

  // Run `body` holding the thread's lease, renewed while it runs, released after.
  private async holding<T>(body: (lease: Lease) => Promise<T>): Promise<T> {
    const { store, leaseSeconds } = this.catalog;
    const lease = await store.acquire(this.id, { owner: `local-${randomUUID()}`, ttl: leaseSeconds });
    const renewal = setInterval(
      () => void store.renew(lease, { ttl: leaseSeconds }).catch(() => undefined),
      (leaseSeconds * 1000) / 3,
    );
    renewal.unref();
    try {
      return await body(lease);
    } finally {
      clearInterval(renewal);
      await store.release(lease);
    }
  }
}
