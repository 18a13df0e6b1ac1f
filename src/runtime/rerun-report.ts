/**
 * compareRerun: a re-run batch's candidate threads against the recorded ones, turn by turn: whether the
 * answer changed (exactly, and by a judge of your own), the cited sources kept, added and lost, the
 * citations that name nothing, the tool calls kept, added and dropped, the tokens and the failures.
 */
import { Failure, Input, MAIN, ModelOutput, TaskInput, type Event } from "../domain/events.js";
import { canonicalJson } from "../domain/json.js";
import type { AgentCatalog } from "./catalog.js";

/** Decides whether two answers say the same: a function, or a model call behind one. */
export type AnswerJudge = (original: string, candidate: string) => boolean | Promise<boolean>;

/** What compareRerun takes. */
export interface CompareRerunOptions {
  /** The catalog and agent that recorded the threads. */
  original: { catalog: AgentCatalog; agent: string };
  /** The catalog and agent of the candidate threads. */
  candidate: { catalog: AgentCatalog; agent: string };
  /** The recorded threads, each with its candidate thread (rerunThreadIdOf). */
  threads: readonly { original: string; candidate: string }[];
  /** Judges a changed answer: true when it says the same. Default: none (only exact equality). */
  judge?: AnswerJudge;
}

/** Kept, added and removed, by a key. */
export interface Changes {
  same: string[];
  added: string[];
  removed: string[];
}

/** One recorded turn and its re-run. */
export interface TurnComparison {
  thread: string;
  candidateThread: string;
  /** The turn's number in its thread, from 1. */
  turn: number;
  original: { answer: string; tokens: number; failed: boolean };
  /** Null when the batch did not re-run the turn. */
  candidate: { answer: string; tokens: number; failed: boolean } | null;
  answerChanged: boolean;
  /** The judge's verdict on a changed answer (true: it says the same), or null without a judge or change. */
  sameMeaning: boolean | null;
  /** The cited sources' ids. */
  sources: Changes;
  /** The candidate's citations whose number names nothing citable. */
  citationsNamingNothing: number;
  /** The tool calls, as name and arguments. */
  toolCalls: Changes;
}

/** The totals of a comparison. */
export interface RerunTotals {
  turns: number;
  notRerun: number;
  answersChanged: number;
  /** Changed answers the judge found to say the same. */
  sameMeaning: number;
  sourcesLost: number;
  sourcesAdded: number;
  citationsNamingNothing: number;
  toolCallsAdded: number;
  toolCallsDropped: number;
  failuresOriginal: number;
  failuresCandidate: number;
  tokensOriginal: number;
  tokensCandidate: number;
}

/** A comparison of a re-run: each turn, and the totals. */
export interface RerunReport {
  turns: TurnComparison[];
  totals: RerunTotals;
}

/** Compare each recorded thread's turns with its candidate thread's. */
export async function compareRerun(options: CompareRerunOptions): Promise<RerunReport> {
  const turns: TurnComparison[] = [];
  for (const pair of options.threads) {
    const recorded = turnsOf((await options.original.catalog.read(pair.original, options.original.agent)).events);
    // A thread the batch never reached reads as empty: its turns count as not re-run.
    const rerun = turnsOf((await options.candidate.catalog.read(pair.candidate, options.candidate.agent)).events);
    for (const [index, events] of recorded.entries())
      turns.push(await compareTurn(pair, index, events, rerun[index] ?? null, options.judge));
  }
  return { turns, totals: totalsOf(turns) };
}

/** The main stream's events, cut into turns at each Input. */
function turnsOf(events: readonly Event[]): Event[][] {
  const turns: Event[][] = [];
  for (const event of events) {
    if (event.stream !== MAIN) continue;
    if (Input.is(event) && !TaskInput.is(event)) turns.push([]);
    turns.at(-1)?.push(event);
  }
  return turns;
}

/** What a turn answered, cited, called and spent. */
function summaryOf(events: readonly Event[]) {
  const outputs = events.filter((event): event is ModelOutput => ModelOutput.is(event));
  const cited = (outputs.at(-1)?.markers ?? []).flatMap((marker) => marker.cited);
  return {
    answer: outputs.at(-1)?.content ?? "",
    tokens: outputs.reduce(
      (sum, output) => sum + (output.usage ? output.usage.promptTokens + output.usage.completionTokens : 0),
      0,
    ),
    failed: events.some((event) => Failure.is(event)),
    sources: [...new Set(cited.flatMap((number) => (number.source === null ? [] : [number.source])))],
    namingNothing: cited.filter((number) => number.source === null).length,
    toolCalls: outputs.flatMap((output) =>
      output.toolCalls.map((call) => `${call.name}(${canonicalJson(call.arguments)})`),
    ),
  };
}

async function compareTurn(
  pair: { original: string; candidate: string },
  index: number,
  recorded: readonly Event[],
  rerun: readonly Event[] | null,
  judge: AnswerJudge | undefined,
): Promise<TurnComparison> {
  const before = summaryOf(recorded);
  const after = rerun === null ? null : summaryOf(rerun);
  const answerChanged = after !== null && after.answer !== before.answer;
  return {
    thread: pair.original,
    candidateThread: pair.candidate,
    turn: index + 1,
    original: { answer: before.answer, tokens: before.tokens, failed: before.failed },
    candidate: after && { answer: after.answer, tokens: after.tokens, failed: after.failed },
    answerChanged,
    sameMeaning: answerChanged && judge ? await judge(before.answer, after!.answer) : null,
    sources: changes(before.sources, after?.sources ?? before.sources),
    citationsNamingNothing: after?.namingNothing ?? 0,
    toolCalls: changes(before.toolCalls, after?.toolCalls ?? before.toolCalls),
  };
}

function changes(before: readonly string[], after: readonly string[]): Changes {
  return {
    same: before.filter((key) => after.includes(key)),
    added: after.filter((key) => !before.includes(key)),
    removed: before.filter((key) => !after.includes(key)),
  };
}

function totalsOf(turns: readonly TurnComparison[]): RerunTotals {
  const rerun = turns.filter((turn) => turn.candidate !== null);
  const sum = (count: (turn: TurnComparison) => number) => rerun.reduce((total, turn) => total + count(turn), 0);
  return {
    turns: turns.length,
    notRerun: turns.length - rerun.length,
    answersChanged: sum((turn) => Number(turn.answerChanged)),
    sameMeaning: sum((turn) => Number(turn.sameMeaning === true)),
    sourcesLost: sum((turn) => turn.sources.removed.length),
    sourcesAdded: sum((turn) => turn.sources.added.length),
    citationsNamingNothing: sum((turn) => turn.citationsNamingNothing),
    toolCallsAdded: sum((turn) => turn.toolCalls.added.length),
    toolCallsDropped: sum((turn) => turn.toolCalls.removed.length),
    failuresOriginal: sum((turn) => Number(turn.original.failed)),
    failuresCandidate: sum((turn) => Number(turn.candidate!.failed)),
    tokensOriginal: sum((turn) => turn.original.tokens),
    tokensCandidate: sum((turn) => turn.candidate!.tokens),
  };
}

/** The report as markdown, for a pull request: the totals, then each turn that changed. */
export function rerunMarkdown(report: RerunReport): string {
  const { totals } = report;
  const lines = [
    "| | |",
    "| --- | --- |",
    `| Turns re-run | ${totals.turns - totals.notRerun} of ${totals.turns} |`,
    `| Answers changed | ${totals.answersChanged} (${totals.sameMeaning} the same in meaning) |`,
    `| Sources lost / added | ${totals.sourcesLost} / ${totals.sourcesAdded} |`,
    `| Citations naming nothing | ${totals.citationsNamingNothing} |`,
    `| Tool calls dropped / added | ${totals.toolCallsDropped} / ${totals.toolCallsAdded} |`,
    `| Failures (recorded → candidate) | ${totals.failuresOriginal} → ${totals.failuresCandidate} |`,
    `| Tokens (recorded → candidate) | ${totals.tokensOriginal} → ${totals.tokensCandidate} |`,
  ];
  const changed = report.turns.filter((turn) => turn.answerChanged || turn.sources.removed.length > 0);
  if (changed.length > 0) lines.push("", "| Thread | Turn | Answer | Sources lost |", "| --- | --- | --- | --- |");
  for (const turn of changed)
    lines.push(
      `| \`${turn.thread}\` | ${turn.turn} | ${turn.answerChanged ? "changed" : "same"} | ${turn.sources.removed.map((id) => `\`${id}\``).join(", ") || "none"} |`,
    );
  return lines.join("\n") + "\n";
}
