/// <reference lib="dom" />
/**
 * The playground's re-run report (`#rerun=<batchId>`): the totals of a batch's comparison, and a row per
 * recorded turn (answer changed, sources lost and added, tool calls dropped and added) with links to both
 * threads in the playground and in the Temporal UI. Every text goes in as text (make).
 */
import type { RerunReportView, RerunTurn } from "../api-types.js";
import { make } from "./dom.js";

/** Reads a JSON route of the app with the page's API key. */
export type GetJson = <T>(path: string) => Promise<T>;

/** The totals as the report shows them: a label, and the value of each side. */
const TOTALS: [keyof RerunReportView["report"]["totals"] | "rerun", string][] = [
  ["rerun", "Turns re-run"],
  ["answersChanged", "Answers changed"],
  ["sourcesLost", "Sources lost"],
  ["sourcesAdded", "Sources added"],
  ["citationsNamingNothing", "Citations naming nothing"],
  ["toolCallsDropped", "Tool calls dropped"],
  ["toolCallsAdded", "Tool calls added"],
  ["failuresCandidate", "Candidate failures"],
  ["tokensCandidate", "Tokens (recorded → candidate)"],
];

/** Fetch a batch's report and draw it: a heading, the totals and the turns. */
export async function rerunView(batchId: string, get: GetJson): Promise<HTMLElement[]> {
  const view = await get<RerunReportView>(`/reruns/${encodeURIComponent(batchId)}`);
  const head = make(
    "p",
    { class: "rerun-head" },
    `${view.agent} → ${view.candidate} · batch `,
    make("span", { class: "badge", id: "rerun-status" }, view.status),
  );
  if (view.temporalUi)
    head.append(
      " · ",
      make("a", { href: view.temporalUi, target: "_blank", rel: "noopener" }, "The batch in the Temporal UI"),
    );
  return [head, totalsTable(view.report.totals), make("h3", {}, "Turns"), turnsTable(view)];
}

function totalsTable(totals: RerunReportView["report"]["totals"]): HTMLElement {
  const value = (key: (typeof TOTALS)[number][0]): string => {
    if (key === "rerun") return `${totals.turns - totals.notRerun} of ${totals.turns}`;
    if (key === "answersChanged") return `${totals.answersChanged} (${totals.sameMeaning} the same in meaning)`;
    if (key === "failuresCandidate") return `${totals.failuresOriginal} → ${totals.failuresCandidate}`;
    if (key === "tokensCandidate") return `${totals.tokensOriginal} → ${totals.tokensCandidate}`;
    return String(totals[key]);
  };
  const rows = TOTALS.map(([key, label]) =>
    make("tr", { "data-total": key }, make("th", { scope: "row" }, label), make("td", {}, value(key))),
  );
  return make("table", { id: "rerun-totals", class: "totals" }, make("tbody", {}, ...rows));
}

function turnsTable(view: RerunReportView): HTMLElement {
  const links = new Map(view.threads.map((pair) => [pair.original, pair.temporalUi]));
  const header = ["Thread", "Turn", "Answer", "Sources lost", "Sources added", "Tool calls", "Open"];
  return make(
    "table",
    { id: "rerun-turns" },
    make("thead", {}, make("tr", {}, ...header.map((name) => make("th", { scope: "col" }, name)))),
    make("tbody", {}, ...view.report.turns.map((turn) => turnRow(turn, links.get(turn.thread)))),
  );
}

function turnRow(
  turn: RerunTurn,
  temporalUi: RerunReportView["threads"][number]["temporalUi"] | undefined,
): HTMLElement {
  const answer = turn.candidate === null ? "not re-run" : turn.answerChanged ? "changed" : "same";
  const row = make(
    "tr",
    {
      "data-thread": turn.thread,
      "data-turn": String(turn.turn),
      "data-answer": answer,
      class: `rerun-${answer.replace(" ", "-")}`,
    },
    make("td", {}, make("code", {}, turn.thread)),
    make("td", {}, String(turn.turn)),
    make("td", {}, answer, ...answers(turn)),
    make("td", { "data-sources": "lost" }, turn.sources.removed.join(", ") || "none"),
    make("td", { "data-sources": "added" }, turn.sources.added.join(", ") || "none"),
    make("td", {}, toolCallsText(turn)),
    make("td", { class: "open" }, ...threadLinks(turn, temporalUi)),
  );
  return row;
}

/** A changed answer as recorded and as the candidate gave it. */
function answers(turn: RerunTurn): HTMLElement[] {
  if (!turn.answerChanged || turn.candidate === null) return [];
  return [
    make("blockquote", { "data-side": "recorded", title: "Recorded" }, turn.original.answer),
    make("blockquote", { "data-side": "candidate", title: "Candidate" }, turn.candidate.answer),
  ];
}

function toolCallsText(turn: RerunTurn): string {
  const { added, removed, same } = turn.toolCalls;
  if (added.length === 0 && removed.length === 0) return `${same.length} same`;
  return [...removed.map((call) => `− ${call}`), ...added.map((call) => `+ ${call}`)].join("\n");
}

function threadLinks(turn: RerunTurn, temporalUi: { original: string | null; candidate: string | null } | undefined) {
  const playground = (threadId: string, label: string, name: string) =>
    make("a", { href: `#thread=${encodeURIComponent(threadId)}`, "data-link": name }, label);
  const temporal = (href: string | null | undefined, label: string) =>
    href ? make("a", { href, target: "_blank", rel: "noopener" }, label) : null;
  return [
    playground(turn.thread, "recorded", "recorded"),
    " · ",
    playground(turn.candidateThread, "candidate", "candidate"),
    make("br", {}),
    temporal(temporalUi?.original, "Temporal: recorded"),
    temporalUi?.original ? " · " : "",
    temporal(temporalUi?.candidate, "candidate"),
  ];
}
