/** Where a turn stands: the node that has work now, found from the trace alone (so a crash loses nothing). */
import { Input, type Event } from "../../domain/events.js";
import type { StepContext } from "../contracts.js";
import { GraphError } from "../errors.js";
import { END, type Graph } from "../graph.js";

/**
 * The node of the running turn that has work, or END when the turn is over. It starts at the node that
 * made the stream's last event (the graph's start after the input) and follows edges past nodes whose
 * work is done.
 */
export function pendingNode(graph: Graph, context: Omit<StepContext, "node">): string {
  const stream = context.trace.stream(context.stream);
  // The running turn starts with an input; a stream without one has no turn.
  const opening = stream.turn[0];
  if (opening === undefined || !Input.is(opening)) return END;
  const last: Event = stream.last!;
  let node = !Input.is(last) && last.origin !== null && graph.has(last.origin) ? last.origin : graph.start;
  const visited: string[] = [];
  while (node !== END) {
    if (graph.step(node).plan({ ...context, node }).length > 0) return node;
    if (visited.filter((name) => name === node).length > 1) {
      throw new GraphError(
        `The graph loops through nodes without work: ${visited.join(" -> ")}. Give one of them work or an edge to END.`,
      );
    }
    visited.push(node);
    node = graph.next(node, stream);
  }
  return END;
}
