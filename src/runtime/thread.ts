/** Thread: one conversation of a catalog, run in-process by the local runner. */
import { randomUUID } from "node:crypto";
import { Input, MAIN } from "../domain/events.js";
import { encode } from "../domain/registry.js";
import type { Trace } from "../domain/trace.js";
import type { Fragment } from "../ports/model.js";
import { accepted } from "./agent.js";
import type { AgentCatalog } from "./catalog.js";
import { END, checkGraph } from "./graph.js";
import { runTurn } from "./runner/local.js";
import { pendingNode } from "./runner/pending.js";
import { observedRun } from "./runner/work.js";

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

  /** Run the thread's turn until it ends, from wherever the trace says it stands. Returns the trace. */
  async resume(options: ResumeOptions = {}): Promise<Trace> {
    const { store, observer } = this.catalog;
    const lease = await store.acquire(this.id, { owner: `local-${randomUUID()}`, ttl: LEASE_SECONDS });
    const renewal = setInterval(
      () => void store.renew(lease, { ttl: LEASE_SECONDS }).catch(() => undefined),
      (LEASE_SECONDS * 1000) / 3,
    );
    renewal.unref();
    try {
      const trace = await this.trace();
      const graph = await this.catalog.graphFor(this.id, this.agent, trace);
      checkGraph(graph);
      const recorder = {
        store,
        types: this.catalog.types(this.agent),
        threadId: this.id,
        lease,
        version: this.catalog.version,
      };
      const run = () => runTurn(recorder, graph, { agent: this.agent, observer, ...options });
      // The observer is told of the input that opened the turn only while that turn is not over.
      const over = pendingNode(graph, { threadId: this.id, agent: this.agent, stream: MAIN, trace }) === END;
      const opening = over ? null : (trace.stream(MAIN).byType(Input).at(-1) ?? null);
      return await observedRun(observer, { threadId: this.id, agent: this.agent, opening }, run);
    } finally {
      clearInterval(renewal);
      await store.release(lease);
    }
  }

  /** Record an input that starts a new turn, and run the turn. Returns the trace. */
  async send(input: Input, options: ResumeOptions = {}): Promise<Trace> {
    accepted(this.catalog.agent(this.agent).input, input);
    await this.catalog.store.append(this.id, [encode(this.catalog.opening(this.agent, input))]);
    return this.resume(options);
  }
}
