/**
 * closeTurn: give the thread's lease up and summarise the turn for the workflow's result: the start of
 * the answer, its citations resolved to source ids, the turn's positions and counts.
 */
import { Context } from "@temporalio/activity";
import { ModelOutput, ToolOutput } from "../src/domain/events.js";
import { inserted } from "../src/domain/trace.js";
import { ValueError } from "../src/domain/errors.js";
import type { Trace } from "../src/domain/trace.js";
import { Source } from "../src/domain/elements.js";
import { THREAD_NUMBERING, type Numbering } from "../src/domain/numbering.js";
import {
  ANSWER_CHARACTERS,
  type CloseTurnArgument,
  type TurnCitedNumber,
  type TurnResult,
  type TurnUsage,
} from "../src/temporal/contract.js";
import { costOfEvents, PRICES, type PriceTable } from "../src/domain/prices.js";
import { usageOf } from "../src/domain/usage.js";
import { reported } from "./failures.js";
import { storeLease, traceOf, type TurnAccess } from "./turn-access.js";

/** Release the lease and summarise the turn whose Input has seq `inputSeq`. */
export async function closeTurn(access: TurnAccess, argument: CloseTurnArgument): Promise<TurnResult> {
  return reported(async () => {
    await access.catalog.store.release(storeLease(argument.lease));
    return turnSummary(argument, await traceOf(access, argument), access.catalog.prices);
  }, Context.current().cancellationSignal);
}

/** The workflow's result for the turn whose Input has seq `inputSeq`, from the trace: a short summary. */
export function turnSummary(
  argument: Omit<CloseTurnArgument, "lease">,
  trace: Trace,
  prices: PriceTable = PRICES,
): TurnResult {
  const entries = trace.stream(argument.stream).entries.slice(argument.inputSeq);
  if (entries.length === 0)
    throw new ValueError(
      `Thread "${argument.threadId}" has no input at seq ${argument.inputSeq} of stream "${argument.stream}".`,
    );
  const events = entries.map((entry) => entry.event);
  const outputs = events.filter((event): event is ModelOutput => ModelOutput.is(event));
  const answer = outputs.at(-1);
  const written = answer
    ? inserted(
        answer.content,
        answer.markers.map((marker) => [marker.at, marker.text] as const),
      )
    : "";
  // Numbers are the thread's and never change, so the whole thread's numbering names what each one cited:
  // the index the trace keeps and grows, not a numbering of every event per turn.
  const numbering = trace.thread.index(THREAD_NUMBERING);
  const citations = (answer?.markers ?? []).map((marker) => ({
    marker: marker.text,
    sources: marker.cited.map((number) => number.source),
    numbers: marker.cited.map(({ written }) => citedNumber(numbering, written)),
  }));
  const sources = [
    ...new Set(citations.flatMap((citation) => citation.sources.filter((source): source is string => source !== null))),
  ];
  // idsOnly: the result carries ids, positions and counts; the answer's text stays in the trace store.
  const idsOnly = argument.idsOnly === true;
  return {
    threadId: argument.threadId,
    agent: argument.agent,
    answer: idsOnly ? "" : written.slice(0, ANSWER_CHARACTERS),
    truncated: idsOnly ? written.length > 0 : written.length > ANSWER_CHARACTERS,
    citations: idsOnly ? [] : citations,
    sources,
    positions: { first: entries[0]!.position, last: entries.at(-1)!.position },
    events: events.length,
    modelCalls: outputs.length,
    toolCalls: events.filter((event) => ToolOutput.is(event)).length,
    usage: turnUsage(trace, entries[0]!.position, prices),
    threadTokens: usageOf(trace.thread.events).totalTokens,
  };
}

/** The usage and cost of the turn from its input at `first` on, its delegated tasks' calls included. */
function turnUsage(trace: Trace, first: number, prices: PriceTable): TurnUsage {
  const events = trace.thread.entries.filter((entry) => entry.position >= first).map((entry) => entry.event);
  const { dollars, unpricedCalls } = costOfEvents(events, prices);
  return { ...usageOf(events), cost: dollars, unpricedCalls, prices: prices.version };
}

/** What a cited number named: a Source, a Reference, or nothing. */
function citedNumber(numbering: Numbering, written: number): TurnCitedNumber {
  const element = numbering.element(written);
  if (element === undefined) return { number: written, element: null, kind: null };
  return { number: written, element: element.id, kind: Source.is(element) ? "source" : "reference" };
}
