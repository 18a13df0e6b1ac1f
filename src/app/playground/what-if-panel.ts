/// <reference lib="dom" />
/**
 * The playground's what-if view, next to "what the model saw": choose an agent of the catalog and see
 * whether its request at this model call would differ from the recorded one (the messages that changed,
 * the tools added, removed or changed, the characters sent, the results' forms), with no model call.
 */
import type { WhatIfResult } from "../api-types.js";
import { make } from "./dom.js";
import type { GetJson } from "./rerun-view.js";

/** The what-if controls of call `n` of the thread at `threadPath`: a choice of candidate agent and its comparison. */
export function whatIfPanel(threadPath: string, n: number, agents: readonly string[], get: GetJson): HTMLElement {
  const select = make("select", { id: "whatif-agent", name: "whatif-agent" });
  select.append(...agents.map((agent) => make("option", { value: agent }, agent)));
  const result = make("div", { id: "whatif-result", "aria-live": "polite" });
  const form = make(
    "form",
    { id: "whatif-form", class: "inline" },
    make("label", { for: select.id }, "Candidate agent"),
    select,
    make("button", { type: "submit" }, "Compare"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    result.replaceChildren(make("p", { class: "muted" }, "Rebuilding…"));
    const path = `${threadPath}/calls/${n}/whatif?candidate=${encodeURIComponent(select.value)}`;
    get<WhatIfResult>(path).then(
      (view) => result.replaceChildren(...whatIfItems(view)),
      (error: unknown) =>
        result.replaceChildren(make("p", { class: "failure" }, error instanceof Error ? error.message : String(error))),
    );
  });
  return make(
    "section",
    { id: "whatif", "aria-labelledby": "whatif-title" },
    make("h3", { id: "whatif-title" }, "What if another agent had made this call?"),
    form,
    result,
  );
}

/** The comparison as lines: "same", or what differs. */
function whatIfItems(view: WhatIfResult): HTMLElement[] {
  const verdict = (text: string, kind: string) =>
    make("p", { id: "whatif-verdict", "data-same": String(view.same), class: kind }, text);
  if (view.same) return [verdict(`Same: ${view.candidate} would have sent the recorded request.`, "same")];
  const { difference } = view;
  if (difference === null)
    return [verdict(`${view.candidate} builds ${view.built.candidate ? "a" : "no"} request at this call.`, "differs")];
  const list = make("ul", { id: "whatif-differences" });
  const line = (name: string, text: string) => list.append(make("li", { "data-difference": name }, text));
  if (difference.messages.length > 0)
    line("messages", `Messages changed: ${difference.messages.map((place) => place + 1).join(", ")}`);
  if (difference.toolsAdded.length > 0) line("tools-added", `Tools added: ${difference.toolsAdded.join(", ")}`);
  if (difference.toolsRemoved.length > 0) line("tools-removed", `Tools removed: ${difference.toolsRemoved.join(", ")}`);
  if (difference.toolsChanged.length > 0) line("tools-changed", `Tools changed: ${difference.toolsChanged.join(", ")}`);
  const { recorded, candidate } = difference.characters;
  line("characters", `Characters: ${recorded.toLocaleString("en")} → ${candidate.toLocaleString("en")}`);
  for (const form of difference.forms)
    line("form", `Result ${form.result}: ${form.recorded} → ${form.candidate}${form.by ? ` (${form.by})` : ""}`);
  return [verdict(`Differs: ${view.candidate} would have sent another request.`, "differs"), list];
}
