/**
 * nextWork: where the turn stands, from the trace alone: the node with work now and its units (ids,
 * names, short summaries; never the conversation), or no node when the turn is over.
 */
import { Context } from "@temporalio/activity";
import { checkGraph } from "../src/runtime/check.js";
import { END } from "../src/runtime/graph.js";
import { pendingNode } from "../src/runtime/runner/pending.js";
import type { PlannedWork, TurnScope } from "../src/temporal/contract.js";
import { reported } from "./failures.js";
import { contextOf, graphOf, renewLease, traceOf, type TurnAccess } from "./turn-access.js";

/** The pending node of the turn and its work, as the local runner finds it. */
export async function nextWork(access: TurnAccess, scope: TurnScope): Promise<PlannedWork> {
  return reported(async () => {
    await renewLease(access, scope.lease);
    const trace = await traceOf(access, scope);
    const graph = await graphOf(access, scope, trace);
    checkGraph(graph);
    const context = { ...contextOf(access, scope), trace };
    const streamLength = trace.stream(scope.stream).length;
    const node = pendingNode(graph, context);
    if (node === END) return { node: null, work: [], streamLength };
    const work = graph.step(node).plan({ ...context, node });
    return { node, work: work.map(({ key, kind, name, summary }) => ({ key, kind, name, summary })), streamLength };
  }, Context.current().cancellationSignal);
}
