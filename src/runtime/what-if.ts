/**
 * whatIf: what a changed agent would have sent at each recorded model call of a thread, with no model call.
 * Both sides are rebuilt from the same trace, one with the catalog that ran the thread and one with a
 * candidate catalog (another prompt, context policy, tool set, limits or citation style under the same
 * agent names), and compared message by message, tool by tool and result form by result form.
 */
import { canonicalJson } from "../domain/json.js";
import type { ModelOutput } from "../domain/events.js";
import type { ChatRequest } from "../ports/request.js";
import type { ToolDef } from "../ports/messages.js";
import type { AgentCatalog } from "./catalog.js";
import type { ExplainedForm } from "./contracts.js";
import { rebuildCalls, type ReplayedCall } from "./replay.js";

/** How the form of one result differs between the two requests: STUBBED (0), COMPRESSED (1) or FULL (2). */
export interface FormChange {
  /** The result's handle, such as "r1". */
  result: string;
  /** Its form in the recorded request (FULL when the recorded builder shrank nothing). */
  recorded: number;
  /** Its form in the candidate's request (FULL when the candidate's builder shrank nothing). */
  candidate: number;
  /** What gave the candidate's form, as its builder names it; null when nothing shrank the result. */
  by: string | null;
}

/** What differs between a recorded call's request and the candidate's. */
export interface RequestDifference {
  /** The places (0-based) of the messages that differ, or that only one of the two requests has. */
  messages: number[];
  /** The names of the tools only the candidate offers. */
  toolsAdded: string[];
  /** The names of the tools only the recorded request offered. */
  toolsRemoved: string[];
  /** The names of the tools both offer with another description or schema. */
  toolsChanged: string[];
  /** The characters each request sends (ChatRequest.characters): the token estimates follow them. */
  characters: { recorded: number; candidate: number };
  /** The results whose form differs, in result order. */
  forms: FormChange[];
}

/** One recorded model call, rebuilt with the recorded agent and with the candidate. */
export interface WhatIfCall {
  /** The call's place among the thread's model calls, from 1, as `soev-agents whatif --call` names it. */
  call: number;
  /** The recorded output of the call. */
  output: ModelOutput;
  /** The request as the recorded agent rebuilds it; null when its node builds no requests. */
  recorded: ChatRequest | null;
  /** Whether the recorded agent's rebuild has the hash the output recorded (replay's `matches`). */
  matches: boolean;
  /** The request the candidate would have sent at that point of the trace; null when it builds none. */
  candidate: ChatRequest | null;
  /** True when the two requests are equal (the same hash). */
  same: boolean;
  /** What differs; null when both requests are equal or one side built none. */
  difference: RequestDifference | null;
}

/**
 * Rebuild each recorded model call of a thread under the recorded catalog and under a candidate, calling
 * no model. The candidate must have the thread's agent under the same name and read the same store.
 *
 * @example
 * ```ts
 * import { whatIf, type AgentCatalog } from "soev-agents/runtime";
 *
 * declare const recorded: AgentCatalog;
 * declare const candidate: AgentCatalog; // the same agents with a changed context policy
 * for (const call of await whatIf(recorded, candidate, "thread-1"))
 *   console.log(call.call, call.same ? "same" : call.difference);
 * ```
 * @throws UnknownThreadError when either catalog finds no thread of that id of its agents.
 */
export async function whatIf(recorded: AgentCatalog, candidate: AgentCatalog, threadId: string): Promise<WhatIfCall[]> {
  const [before, after] = await Promise.all([
    rebuildCalls(recorded, threadId, { explain: true }),
    rebuildCalls(candidate, threadId, { explain: true }),
  ]);
  return before.map((call, index) => compared(index + 1, call, after[index]!));
}

/**
 * Rebuild each recorded model call of a thread under the agent that recorded it and under another agent of
 * the same catalog (a candidate shipped next to it, as a re-run batch's), calling no model.
 *
 * @example
 * ```ts
 * import { whatIfAgent, type AgentCatalog } from "soev-agents/runtime";
 *
 * declare const catalog: AgentCatalog; // has "assistant" (which recorded the thread) and "candidate"
 * const [first] = await whatIfAgent(catalog, "thread-1", "candidate");
 * console.log(first?.same ? "same" : first?.difference);
 * ```
 * @throws UnknownThreadError when the catalog finds no thread of that id of its agents.
 */
export async function whatIfAgent(catalog: AgentCatalog, threadId: string, candidate: string): Promise<WhatIfCall[]> {
  const [before, after] = await Promise.all([
    rebuildCalls(catalog, threadId, { explain: true }),
    rebuildCalls(catalog, threadId, { explain: true, agent: candidate }),
  ]);
  return before.map((call, index) => compared(index + 1, call, after[index]!));
}

function compared(call: number, recorded: ReplayedCall, candidate: ReplayedCall): WhatIfCall {
  const before = recorded.request;
  const after = candidate.request;
  const same = before !== null && after !== null && before.hash === after.hash;
  return {
    call,
    output: recorded.output,
    recorded: before,
    matches: recorded.matches,
    candidate: after,
    same,
    difference:
      same || before === null || after === null
        ? null
        : differenceOf(before, after, recorded.explained ?? [], candidate.explained ?? []),
  };
}

/** What differs between two requests of the same call, and between the forms their builders explain. */
export function differenceOf(
  recorded: ChatRequest,
  candidate: ChatRequest,
  recordedForms: readonly ExplainedForm[] = [],
  candidateForms: readonly ExplainedForm[] = [],
): RequestDifference {
  const longest = Math.max(recorded.messages.length, candidate.messages.length);
  const messages: number[] = [];
  for (let place = 0; place < longest; place++) {
    const [one, other] = [recorded.messages[place], candidate.messages[place]];
    if (one === undefined || other === undefined || canonicalJson(one) !== canonicalJson(other)) messages.push(place);
  }
  return {
    messages,
    ...toolChanges(recorded.tools, candidate.tools),
    characters: { recorded: recorded.characters, candidate: candidate.characters },
    forms: formChanges(recordedForms, candidateForms),
  };
}

function toolChanges(recorded: readonly ToolDef[], candidate: readonly ToolDef[]) {
  const before = new Map(recorded.map((tool) => [tool.name, canonicalJson(tool)]));
  const after = new Map(candidate.map((tool) => [tool.name, canonicalJson(tool)]));
  return {
    toolsAdded: [...after.keys()].filter((name) => !before.has(name)),
    toolsRemoved: [...before.keys()].filter((name) => !after.has(name)),
    toolsChanged: [...after.keys()].filter((name) => before.has(name) && before.get(name) !== after.get(name)),
  };
}

// A result a builder does not explain has its full form.
const FULL_FORM = 2;

function formChanges(recorded: readonly ExplainedForm[], candidate: readonly ExplainedForm[]): FormChange[] {
  const before = new Map(recorded.map((form) => [form.result, form]));
  const after = new Map(candidate.map((form) => [form.result, form]));
  const results = [...new Set([...before.keys(), ...after.keys()])].sort(byHandle);
  return results.flatMap((result) => {
    const [one, other] = [before.get(result), after.get(result)];
    const change = { result, recorded: one?.form ?? FULL_FORM, candidate: other?.form ?? FULL_FORM };
    return change.recorded === change.candidate ? [] : [{ ...change, by: other ? String(other.by) : null }];
  });
}

// Handles in result order: r2 before r10.
function byHandle(one: string, other: string): number {
  return Number(one.slice(1)) - Number(other.slice(1)) || one.localeCompare(other);
}

/** How many recorded calls of a set of threads a candidate would change, and by how much. */
export interface WhatIfSummary {
  /** The threads compared. */
  threads: number;
  /** The model calls compared (those both sides rebuilt). */
  calls: number;
  /** The calls whose request would differ. */
  changed: number;
  /** The characters all recorded requests sent, and what the candidate's would send. */
  characters: { recorded: number; candidate: number };
  /** The changed calls, by thread: the call numbers. */
  changedCalls: Record<string, number[]>;
}

/** Compare a candidate against the recorded catalog over the given threads (e.g. those of `store.threads`). */
export async function whatIfThreads(
  recorded: AgentCatalog,
  candidate: AgentCatalog,
  threadIds: readonly string[],
): Promise<WhatIfSummary> {
  const summary: WhatIfSummary = {
    threads: 0,
    calls: 0,
    changed: 0,
    characters: { recorded: 0, candidate: 0 },
    changedCalls: {},
  };
  for (const threadId of threadIds) {
    summary.threads += 1;
    for (const call of await whatIf(recorded, candidate, threadId)) {
      if (call.recorded === null || call.candidate === null) continue;
      summary.calls += 1;
      summary.characters.recorded += call.recorded.characters;
      summary.characters.candidate += call.candidate.characters;
      if (call.same) continue;
      summary.changed += 1;
      (summary.changedCalls[threadId] ??= []).push(call.call);
    }
  }
  return summary;
}
