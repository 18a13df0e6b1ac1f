/** Checks a turn's graph before anything runs: a tool with a value nothing binds is refused before the model runs. */
import { checkBound } from "./tools/execute.js";
import type { Graph } from "./graph.js";
import type { Tool } from "./contracts.js";

/** Refuse a graph whose tool steps hold a tool with unbound values. */
export function checkGraph(graph: Graph): void {
  for (const name of graph.names) {
    const tools = (graph.step(name) as { tools?: ReadonlyMap<string, Tool> }).tools;
    if (tools) checkBound([...tools.values()]);
  }
}
