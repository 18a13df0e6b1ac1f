/**
 * What every activity of a turn shares: the catalog and observer it runs with, and how it reads the
 * thread and rebuilds the turn's graph, through the same runtime code the local runner uses.
 */
import { ValueError } from "../src/domain/errors.js";
import { MAIN, TaskInput } from "../src/domain/events.js";
import type { Trace } from "../src/domain/trace.js";
import type { LiveChannel } from "../src/ports/live.js";
import type { Observer } from "../src/ports/observer.js";
import type { Lease } from "../src/ports/store.js";
import type { AgentCatalog } from "../src/runtime/catalog.js";
import type { StepContext } from "../src/runtime/contracts.js";
import { type Graph, checkGraph, END } from "../src/runtime/graph.js";
import { pendingNode } from "../src/runtime/runner/pending.js";
import { readTrace, type Recorder } from "../src/runtime/runner/work.js";
import { taskGraph } from "../src/runtime/runner/task.js";
import type { Authorize } from "../src/temporal/authorize.js";
import { waitingRequests } from "../src/runtime/runner/requests.js";
import { pendingOf } from "./pending-request.js";
import type { PlannedWork, TurnLease, TurnScope } from "../src/temporal/contract.js";

/** What the activities run with. */
export interface TurnAccess {
  catalog: AgentCatalog;
  observer: Observer | undefined;
  /** Decides whether a turn may open; none allows every turn. */
  authorize?: Authorize;
  /** Where model calls publish their fragments while the model writes; none: the calls do not stream. */
  live?: LiveChannel;
}

/** The recorder of a turn's activity: the catalog's store and version, the agent's types, the turn's lease. */
export function recorderOf(access: TurnAccess, scope: Omit<TurnScope, "lease"> & { lease: Lease | null }): Recorder {
  const { catalog } = access;
  return {
    store: catalog.store,
    types: catalog.types(scope.agent),
    threadId: scope.threadId,
    lease: scope.lease && storeLease(scope.lease),
    version: catalog.version,
    spending: catalog.spendingOf(scope.agent),
  };
}

/** The thread's trace, decoded with its agent's types. */
export async function traceOf(access: TurnAccess, scope: Omit<TurnScope, "lease">): Promise<Trace> {
  return readTrace(access.catalog.store, access.catalog.types(scope.agent), scope.threadId);
}

/**
 * The graph of the stream's running turn, rebuilt from the trace as the local runner builds it: the
 * agent's graph on the main stream; on a task's stream, the graph of the delegation that handed it off.
 */
export async function graphOf(access: TurnAccess, scope: Omit<TurnScope, "lease">, trace: Trace): Promise<Graph> {
  const ofStream = async (stream: string, upTo: Trace): Promise<Graph> => {
    if (stream === MAIN) return access.catalog.graphFor(scope.threadId, scope.agent, upTo, stream);
    const task = upTo.stream(stream).byType(TaskInput).at(-1);
    if (!task)
      throw new ValueError(
        `Stream "${stream}" of thread "${scope.threadId}" has no TaskInput: it is no task's stream.`,
      );
    return taskGraph(upTo, task, ofStream, { threadId: scope.threadId, agent: scope.agent });
  };
  return ofStream(scope.stream, trace);
}

/** The step context of a turn, without the trace and the node. */
export function contextOf(access: TurnAccess, scope: Omit<TurnScope, "lease">): Omit<StepContext, "trace" | "node"> {
  return { threadId: scope.threadId, agent: scope.agent, stream: scope.stream, observer: access.observer };
}

/** Keep the turn's lease alive for the catalog's leaseSeconds: no other runner (a local one) takes the thread while the turn runs. */
export async function renewLease(access: TurnAccess, lease: Lease): Promise<void> {
  await access.catalog.store.renew(storeLease(lease), { ttl: access.catalog.leaseSeconds });
}

/** Whether a third of the lease's time has passed since `renewedAt` (epoch milliseconds): time to renew it. */
export function renewalDue(access: TurnAccess, renewedAt: number): boolean {
  return Date.now() - renewedAt >= (access.catalog.leaseSeconds * 1000) / 3;
}

/**
 * Renew the turn's lease when a third of its time has passed since the workflow last heard of a renewal;
 * returns when it renewed, else null. Most activities so write nothing for the lease.
 */
export async function renewIfDue(access: TurnAccess, lease: TurnLease): Promise<number | null> {
  if (!renewalDue(access, lease.renewedAt ?? 0)) return null;
  const now = Date.now();
  await renewLease(access, lease);
  return now;
}

/** The lease as the store takes it: the workflow's bookkeeping left out. */
export function storeLease(lease: Lease): Lease {
  return { threadId: lease.threadId, owner: lease.owner, counter: lease.counter };
}

/**
 * What comes next on the scope's stream, from the trace alone: the node with work now and its units (ids,
 * names, short summaries; never the conversation), or no node when the stream's graph ended.
 */
export async function plannedWork(
  access: TurnAccess,
  scope: Omit<TurnScope, "lease">,
  trace: Trace,
): Promise<PlannedWork> {
  const graph = await graphOf(access, scope, trace);
  checkGraph(graph);
  const context = { ...contextOf(access, scope), trace };
  const streamLength = trace.stream(scope.stream).length;
  // A stream that waits for a person runs no node until each of its requests is answered.
  const waiting = waitingRequests(trace, scope.stream);
  if (waiting.length > 0)
    return {
      node: null,
      work: [],
      streamLength,
      waiting: waiting.map((request) => pendingOf(request, scope.idsOnly === true)),
    };
  const node = pendingNode(graph, context);
  if (node === END) return { node: null, work: [], streamLength };
  const work = graph.step(node).plan({ ...context, node });
  // idsOnly: a summary names the kind and the tool or model, never its arguments.
  const summaryOf = (unit: { kind: string; name: string; summary: string }) =>
    scope.idsOnly === true ? `${unit.kind} ${unit.name}` : unit.summary;
  return {
    node,
    work: work.map((unit) => ({ key: unit.key, kind: unit.kind, name: unit.name, summary: summaryOf(unit) })),
    streamLength,
  };
}
