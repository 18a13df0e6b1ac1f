/** Thread: one conversation of a catalog, run in-process by the local runner. */
import { randomUUID } from "node:crypto";
import { Input, MAIN } from "../domain/events.js";
import type { Trace } from "../domain/trace.js";
import type { Fragment } from "../ports/model.js";
import { accepted } from "./agent.js";
import type { AgentCatalog } from "./catalog.js";
import { END, checkGraph } from "./graph.js";
import { runTurn } from "./runner/local.js";
import { pendingNode } from "./runner/pending.js";
import { observedRun } from "./runner/work.js";
import { openRequests, recordAnswer, recordTurnFailure } from "./runner/requests.js";
import { CANCELLED } from "../domain/requests.js";
import type { JsonValue } from "../domain/json.js";
import type { Request } from "../domain/events.js";
import type { Lease } from "../ports/store.js";

/** How long a local run holds the thread's lease between renewals, in seconds. */
const LEASE_SECONDS = 60;

/** Options of a local run. */
export interface ResumeOptions {
  /** Receives the model's fragments while they arrive; the model call streams when it is set. */
  onFragment?: (fragment: Fragment) => void;
  signal?: AbortSignal;
}

/** One thread of a catalog: send it inputs, resume its turn, read its trace. */
export class Thread {
  constructor(
    private readonly catalog: AgentCatalog,
    /** The thread's id. */
    readonly id: string,
    /** The name of the thread's agent. */
    readonly agent: string,
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
    const { observer } = this.catalog;
    return this.holding(async (lease) => {
      const trace = await this.trace();
      const graph = await this.catalog.graphFor(this.id, this.agent, trace);
      checkGraph(graph);
      const run = () => runTurn(this.recorder(lease), graph, { agent: this.agent, observer, ...options });
      // The observer is told of the input that opened the turn only while that turn is not over.
      const over = pendingNode(graph, { threadId: this.id, agent: this.agent, stream: MAIN, trace }) === END;
      const opening = over ? null : (trace.stream(MAIN).byType(Input).at(-1) ?? null);
      return await observedRun(observer, { threadId: this.id, agent: this.agent, opening }, run);
    });
  }

  /** The Requests the running turn waits on that a person may answer, oldest first. */
  async requests(): Promise<Request[]> {
    return openRequests(await this.trace(), MAIN);
  }

  /**
   * Answer a waiting Request and run the turn on. Raises AnswerRefusedError, recording nothing, for an
   * id that no request of the running turn has, one answered already, or a payload that does not fit.
   */
  async answer(requestId: string, payload: JsonValue, options: ResumeOptions = {}): Promise<Trace> {
    await this.holding((lease) => recordAnswer(this.recorder(lease), MAIN, requestId, payload));
    return this.resume(options);
  }

  /** Cancel the thread's turn that waits for a person: records one CancelledError Failure, as Temporal's cancel does. */
  async cancel(): Promise<Trace> {
    await this.holding((lease) => recordTurnFailure(this.recorder(lease), MAIN, CANCELLED));
    return this.trace();
  }

  private recorder(lease: Lease) {
    return {
      store: this.catalog.store,
      types: this.catalog.types(this.agent),
      threadId: this.id,
      lease,
      version: this.catalog.version,
    };
  }

  // Run `body` holding the thread's lease, renewed while it runs, released after.
  private async holding<T>(body: (lease: Lease) => Promise<T>): Promise<T> {
    const { store } = this.catalog;
    const lease = await store.acquire(this.id, { owner: `local-${randomUUID()}`, ttl: LEASE_SECONDS });
    const renewal = setInterval(
      () => void store.renew(lease, { ttl: LEASE_SECONDS }).catch(() => undefined),
      (LEASE_SECONDS * 1000) / 3,
    );
    renewal.unref();
    try {
      return await body(lease);
    } finally {
      clearInterval(renewal);
      await store.release(lease);
    }
  }

  /** Record an input that starts a new turn, and run the turn. Returns the trace. */
  async send(input: Input, options: ResumeOptions = {}): Promise<Trace> {
    accepted(this.catalog.agent(this.agent).input, input);
    await this.catalog.store.append(this.id, [
      this.catalog.types(this.agent).check(this.catalog.opening(this.agent, input)),
    ]);
    return this.resume(options);
  }
}
