/** AgentCatalog: the registry of agents by name, over one store, and the threads it runs locally. */
import { randomUUID } from "node:crypto";
import { Input, TaskInput } from "../domain/events.js";
import { EventTypes } from "../domain/registry.js";
import type { Trace } from "../domain/trace.js";
import type { Observer } from "../ports/observer.js";
import type { TraceStore } from "../ports/store.js";
import { accepted, type Agent } from "./agent.js";
import { UnknownAgentError, UnknownThreadError } from "./errors.js";
import type { Graph } from "./graph.js";
import { readTrace } from "./runner/work.js";
import { taskGraph } from "./runner/task.js";
import { Thread } from "./thread.js";

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
}

/**
 * The registry of agents by name, with a store and a version string.
 *
 * @example
 * ```ts
 * import { InMemoryTraceStore } from "soev-agents/adapters";
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
  private readonly agents: ReadonlyMap<string, Agent>;
  private readonly registries = new Map<string, EventTypes>();
  private readonly resourcesOf: ResourcesOf;

  constructor(store: TraceStore, agents: Record<string, Agent>, options: CatalogOptions = {}) {
    this.store = store;
    this.agents = new Map(Object.entries(agents));
    this.version = options.version ?? null;
    this.observer = options.observer;
    this.resourcesOf = options.resources ?? (() => undefined);
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

  /** Open a new thread with its first input; the turn runs on `thread.resume()`. */
  async open(agent: string, input: Input, options: { threadId?: string } = {}): Promise<[Thread, Input]> {
    accepted(this.agent(agent).input, input);
    const threadId = options.threadId ?? randomUUID();
    const [stored] = await this.store.append(threadId, [this.types(agent).check(this.opening(agent, input))], {
      expected: { [input.stream]: 0 },
    });
    return [new Thread(this, threadId, agent), this.types(agent).decode(stored!) as Input];
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
    const opening = trace.stream(stream).events.findLast((event): event is Input => Input.is(event));
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
