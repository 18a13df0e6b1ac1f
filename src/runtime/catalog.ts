/** AgentCatalog: the registry of agents by name, over one store, and the threads it runs locally. */
import { randomUUID } from "node:crypto";
import { ValueError } from "../domain/errors.js";
import { Input, TaskInput } from "../domain/events.js";
import { inputSizeProblem, MAX_INPUT_BYTES } from "../domain/input-size.js";
import { EventTypes } from "../domain/registry.js";
import { Trace } from "../domain/trace.js";
import { StreamMovedError } from "../ports/errors.js";
import { SYSTEM_CLOCK, type Clock } from "../ports/clock.js";
import { checkPriceTable, PRICES, type PriceTable } from "../domain/prices.js";
import { Spending, type SpendingLimits } from "./spending.js";
import type { Observer } from "../ports/observer.js";
import type { TraceStore } from "../ports/store.js";
import { accepted, type Agent } from "./agent.js";
import { InputTooLargeError, UnknownAgentError, UnknownThreadError } from "./errors.js";
import { checkGraph, END, type Graph } from "./graph.js";
import { pendingNode } from "./runner/pending.js";
import { CACHED_EVENTS, CACHED_THREADS, keepTraces, keptThreads, readTrace } from "./runner/work.js";
import { taskGraph } from "./runner/task.js";
import { Thread } from "./thread.js";

/** How long a runner holds a thread's lease between renewals, in seconds, unless the catalog says (leaseSeconds). */
export const LEASE_SECONDS = 60;

/**
 * What a catalog asks of an application for one thread: the thread's resources, such as its user's
 * library. `principal` is who opened the thread (its first input's principal), or null.
 */
export type ResourcesOf = (thread: { threadId: string; agent: string; principal: string | null }) => unknown;

/** The settings of an AgentCatalog. */
export interface CatalogOptions {
  /** The version of the code, recorded on each event. */
  version?: string | null;
  /** The observer of every run. */
  observer?: Observer;
  /** The resources of each thread; an agent's config function reads them. Default: none (undefined). */
  resources?: ResourcesOf;
  /**
   * The most bytes of an input's payload as JSON that the catalog records, on both runners: a larger one
   * is refused with InputTooLargeError before anything is recorded. Default MAX_INPUT_BYTES (256 KiB).
   */
  maxInputBytes?: number;
  /**
   * How long a runner's lease on a thread lives, in seconds; the runner renews it each third of that while
   * the turn runs (through a model or tool call longer than the lease too). A runner that died frees its
   * threads after this. Default LEASE_SECONDS (60).
   */
  leaseSeconds?: number;
  /**
   * How many threads' decoded traces the runners keep for the catalog's store, and how many events of them
   * together; the least recently read go first, and the thread read last stays however long it is. For the store,
   * not the catalog: catalogs over one store share its cache. Default CACHED_THREADS (256) threads and
   * CACHED_EVENTS (250,000) events: about 175 MB with short tool results, 1.3 GB with results of 20,000 characters.
   */
  keptTraces?: { threads?: number; events?: number };
  /**
   * Where the local runner reads the time to expire a waiting request; give the store the same clock, since a
   * request's deadline counts from its recorded time. Default SYSTEM_CLOCK; tests give a ManualClock.
   */
  clock?: Clock;
  /**
   * The budgets of each agent, by name: checked from the trace before each model call (the turn ends with a
   * BudgetExceededError Failure) and before an input is recorded (a thread over its budget refuses it).
   */
  spending?: Readonly<Record<string, SpendingLimits>>;
  /** The prices that costs are counted at, in usage and budgets. Default PRICES. */
  prices?: PriceTable;
}

/**
 * The registry of agents by name, with a store and a version string.
 *
 * @example
 * ```ts
 * import { InMemoryTraceStore } from "soev-agents";
 * import { Input, ModelOutput } from "soev-agents/domain";
 * import { AgentCatalog } from "soev-agents/runtime";
 * import type { ReActAgent } from "soev-agents/toolkit";
 *
 * declare const assistant: ReActAgent;
 * const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant }, { version: "2026-01" });
 * const [thread] = await agents.open("assistant", Input({ payload: "How much is a parking permit?", model: "gpt-4.1-mini" }));
 * const trace = await thread.resume();
 * console.log(trace.byType(ModelOutput).at(-1)?.content);
 * const followUp = Input({ payload: "And for a visitor?", model: "gpt-4.1-mini" });
 * await (await agents.thread(thread.id, { input: followUp })).send(followUp);
 * ```
 */
export class AgentCatalog {
  readonly store: TraceStore;
  readonly version: string | null;
  readonly observer: Observer | undefined;
  /** The most bytes of an input's payload as JSON that the catalog records. */
  readonly maxInputBytes: number;
  /** How long a runner's lease on a thread lives between renewals, in seconds. */
  readonly leaseSeconds: number;
  /** Where the local runner reads the time. */
  readonly clock: Clock;
  /** The prices costs are counted at. */
  readonly prices: PriceTable;
  private readonly spending: ReadonlyMap<string, Spending>;
  private readonly agents: ReadonlyMap<string, Agent>;
  private readonly registries = new Map<string, EventTypes>();
  private readonly resourcesOf: ResourcesOf;

  constructor(store: TraceStore, agents: Record<string, Agent>, options: CatalogOptions = {}) {
    this.store = store;
    this.agents = new Map(Object.entries(agents));
    this.version = options.version ?? null;
    this.observer = options.observer;
    this.resourcesOf = options.resources ?? (() => undefined);
    this.maxInputBytes = options.maxInputBytes ?? MAX_INPUT_BYTES;
    this.leaseSeconds = options.leaseSeconds ?? LEASE_SECONDS;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.prices = checkPriceTable(options.prices ?? PRICES, "prices");
    this.spending = spendingByAgent(options.spending ?? {}, this.prices, (name) => this.agents.has(name));
    if (!Number.isInteger(this.maxInputBytes) || this.maxInputBytes <= 0)
      throw new ValueError(`maxInputBytes must be a positive integer, not ${String(options.maxInputBytes)}.`);
    if (!(this.leaseSeconds > 0) || !Number.isFinite(this.leaseSeconds))
      throw new ValueError(`leaseSeconds must be a positive number of seconds, not ${String(options.leaseSeconds)}.`);
    if (options.keptTraces !== undefined)
      keepTraces(
        store,
        keptThreads(options.keptTraces, { threads: CACHED_THREADS, events: CACHED_EVENTS }, "keptTraces"),
      );
    for (const [name, agent] of this.agents) {
      this.registries.set(name, new EventTypes({ events: agent.eventTypes, elements: agent.elementTypes }));
    }
  }

  /** The names of the agents. */
  get names(): string[] {
    return [...this.agents.keys()];
  }

  /** The agent of a name. */
  agent(name: string): Agent {
    const agent = this.agents.get(name);
    if (!agent)
      throw new UnknownAgentError(
        `No agent "${name}" in this catalog (version ${this.version ?? "unnamed"}); it has: ${this.names.join(", ")}.`,
        { details: { agent: name, version: this.version } },
      );
    return agent;
  }

  /** The registry that decodes an agent's threads. */
  types(agent: string): EventTypes {
    this.agent(agent);
    return this.registries.get(agent)!;
  }

  /**
   * Open a new thread with its first input; the turn runs on `thread.resume()`. The input is admitted
   * first (see `admit`); a thread id that has events already is refused with a ValueError. Either way
   * nothing is recorded.
   */
  async open(agent: string, input: Input, options: { threadId?: string } = {}): Promise<[Thread, Input]> {
    const threadId = options.threadId ?? randomUUID();
    const trace = await readTrace(this.store, this.types(agent), threadId);
    const existing = () =>
      new ValueError(
        `Thread "${threadId}" has events already: open starts a new thread. Continue this one with (await catalog.thread("${threadId}")).send(input).`,
        { details: { threadId } },
      );
    if (trace.length > 0) throw existing();
    const graph = await this.admit(agent, input, { threadId, trace });
    try {
      const [stored] = await this.store.append(threadId, [this.types(agent).check(this.opening(agent, input))], {
        expected: { [input.stream]: 0 },
      });
      return [new Thread(this, threadId, agent, { graph, length: 1 }), this.types(agent).decode(stored!) as Input];
    } catch (error) {
      // Another writer opened the same id between the read and the append.
      if (StreamMovedError.isInstance(error)) throw existing();
      throw error;
    }
  }

  /**
   * Check that `input` may open the next turn of a thread whose trace is `trace`, before anything is
   * recorded: both runners call it (Thread.send, open, and the Temporal openTurn activity), so an input
   * is refused the same way on both and a refused input is never recorded, so no later turn shows it to
   * a model. Returns the graph of the turn it opens.
   * @throws UnknownAgentError for an agent the catalog lacks.
   * @throws InputTooLargeError for a payload over `maxInputBytes` as JSON, or one whose first model call
   *   would not fit the model's window with the input alone (that thread could never run a turn again).
   * @throws InputDeniedError when the payload does not fit the agent's input type, or its config refuses the turn.
   */
  async admit(agent: string, input: Input, where: { threadId: string; trace: Trace }): Promise<Graph> {
    this.agent(agent);
    const tooLarge = inputSizeProblem(input.payload, this.maxInputBytes);
    if (tooLarge !== null) throw new InputTooLargeError(tooLarge, { details: { limit: this.maxInputBytes } });
    accepted(this.agent(agent).input, input);
    const { threadId, trace } = where;
    const stream = input.stream;
    const event = { ...this.opening(agent, input), seq: trace.stream(stream).length };
    const graph = await this.graphFor(threadId, agent, trace.with([{ position: trace.position + 1, event }]), stream);
    checkGraph(graph);
    this.spendingOf(agent)?.checkInput(trace.events);
    this.checkInput(graph, {
      threadId,
      agent,
      stream,
      trace: new Trace([{ position: 1, event: { ...event, seq: 0 } }]),
    });
    return graph;
  }

  /** The budgets of an agent's turns, or null when it has none. */
  spendingOf(agent: string): Spending | null {
    return this.spending.get(agent) ?? null;
  }

  // The step that runs first on a trace of the input alone may refuse it: a model step whose call would
  // not fit the window even then (no shrink helps), so recording it would leave the thread unusable.
  private checkInput(graph: Graph, context: { threadId: string; agent: string; stream: string; trace: Trace }) {
    const node = pendingNode(graph, context);
    if (node !== END) graph.step(node).checkInput?.({ ...context, node });
  }

  /** A thread of the catalog. With `input`, the input is checked against the agent's input type first. */
  async thread(threadId: string, options: { input?: Input } = {}): Promise<Thread> {
    const agent = await this.agentOf(threadId);
    if (options.input) accepted(this.agent(agent).input, options.input);
    return new Thread(this, threadId, agent);
  }

  /** The name of the agent a thread was opened with: the origin of its first input. */
  async agentOf(threadId: string): Promise<string> {
    for await (const entry of this.store.read(threadId)) {
      if (entry.event.type === "input" && entry.event.origin && this.agents.has(entry.event.origin))
        return entry.event.origin;
    }
    throw new UnknownThreadError(`No thread "${threadId}" of this catalog's agents is in the store.`);
  }

  /** The trace of a thread, decoded with its agent's types. */
  async read(threadId: string, agent: string): Promise<Trace> {
    return readTrace(this.store, this.types(agent), threadId);
  }

  /**
   * The graph of the running turn of a stream: built from the turn's opening input and the thread's
   * resources. A task's stream (opened by a TaskInput) runs the graph of the delegation that handed it off.
   */
  async graphFor(threadId: string, agent: string, trace: Trace, stream = "main"): Promise<Graph> {
    const opening = trace.stream(stream).lastOf(Input);
    if (!opening) throw new UnknownThreadError(`Thread "${threadId}" has no input on stream "${stream}" to run.`);
    if (TaskInput.is(opening)) {
      return taskGraph(trace, opening, (parent, before) => this.graphFor(threadId, agent, before, parent), {
        threadId,
        agent,
      });
    }
    const [, turn] = accepted(this.agent(agent).input, opening);
    const principal = trace.stream("main").byType(Input)[0]?.principal ?? null;
    return this.agent(agent).build(await this.resourcesOf({ threadId, agent, principal }), turn, opening.model);
  }

  /** An input as the catalog records it: its origin names the agent, its version the code. */
  opening(agent: string, input: Input): Input {
    return { ...input, origin: agent, version: input.version ?? this.version };
  }
}

/** Each agent's Spending, checked: a budget for an agent the catalog does not have is a mistake worth naming. */
function spendingByAgent(
  limits: Readonly<Record<string, SpendingLimits>>,
  prices: PriceTable,
  has: (agent: string) => boolean,
): ReadonlyMap<string, Spending> {
  const unknown = Object.keys(limits).filter((agent) => !has(agent));
  if (unknown.length > 0)
    throw new ValueError(`spending names agents the catalog does not have: ${unknown.join(", ")}.`);
  return new Map(Object.entries(limits).map(([agent, each]) => [agent, new Spending(each, prices)]));
}
