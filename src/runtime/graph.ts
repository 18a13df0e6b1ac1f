/**
 * Graph: the nodes (steps) of a turn and the edges between them. Routing is a function of the trace.
 * A turn's graph is checked before anything runs (checkGraph).
 */
import { ValueError } from "../domain/errors.js";
import type { Trace } from "../domain/trace.js";
import type { Step, Tool } from "./contracts.js";
import { checkBound } from "./tools/execute.js";

/** The node name that ends a turn. */
export const END = "__end__";

/** Where a node goes next: a node name, END, or a function of the stream's trace that returns one. */
export type Route = string | ((trace: Trace) => string);

/** The graph of one turn: named steps, edges, and the node a turn starts at. */
export class Graph {
  private readonly nodes = new Map<string, Step>();
  private readonly edges = new Map<string, Route>();
  private first: string | undefined;

  /** Add a node. The first node added is where a turn starts, unless `start` names another. */
  addNode(name: string, step: Step): this {
    if (name === END) throw new ValueError(`"${END}" is reserved for the end of a turn; name the node otherwise.`);
    if (this.nodes.has(name)) throw new ValueError(`The graph has a node "${name}" already.`);
    this.nodes.set(name, step);
    this.first ??= name;
    return this;
  }

  /** Add the edge out of `from`. A node without an edge ends the turn after it. */
  addEdge(from: string, to: Route): this {
    if (!this.nodes.has(from)) throw new ValueError(`No node "${from}" to add an edge from; add the node first.`);
    if (typeof to === "string" && to !== END && !this.nodes.has(to))
      throw new ValueError(`No node "${to}" to add an edge to.`);
    this.edges.set(from, to);
    return this;
  }

  /** Start turns at `name`. */
  startAt(name: string): this {
    if (!this.nodes.has(name)) throw new ValueError(`No node "${name}" to start at.`);
    this.first = name;
    return this;
  }

  /** The node a turn starts at. */
  get start(): string {
    if (this.first === undefined) throw new ValueError("The graph has no nodes.");
    return this.first;
  }

  /** The node names, in the order they were added. */
  get names(): string[] {
    return [...this.nodes.keys()];
  }

  /** Whether the graph has a node of this name. */
  has(name: string): boolean {
    return this.nodes.has(name);
  }

  /** The step of a node. */
  step(name: string): Step {
    const step = this.nodes.get(name);
    if (!step) throw new ValueError(`The graph has no node "${name}".`);
    return step;
  }

  /** The node after `node`, given the stream's trace: END when it has no edge. */
  next(node: string, trace: Trace): string {
    const route = this.edges.get(node);
    const target = route === undefined ? END : typeof route === "string" ? route : route(trace);
    if (target !== END && !this.nodes.has(target))
      throw new ValueError(`The edge out of "${node}" went to "${target}", which is no node.`);
    return target;
  }
}

/**
 * Refuse a graph whose tool steps hold a tool with unbound values (UnboundToolError): the runners call it
 * when a turn starts, before the model runs, so the model is never offered a tool that cannot run.
 */
export function checkGraph(graph: Graph): void {
  for (const name of graph.names) {
    const tools = (graph.step(name) as { tools?: ReadonlyMap<string, Tool> }).tools;
    if (tools) checkBound([...tools.values()]);
  }
}
