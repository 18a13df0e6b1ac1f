/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="dom.asynciterable" />
/**
 * The playground's script, run in the browser: it talks only to the app's routes. The recorded turns come
 * from GET /threads/{id}, fetched again after each event of the stream; the model's text while it writes
 * comes from the stream's fragments and gives way to the recorded answer once its output is recorded.
 */
import type {
  AnswerInput,
  ModelCall as CallView,
  PendingRequest,
  PendingRequests,
  Thread as ThreadView,
  Turn,
  TurnCitation as Citation,
  TurnRequest,
  TurnToolCall as ToolCall,
} from "../api-types.js";
import { make } from "./dom.js";
import { requestsPanel } from "./requests-panel.js";
import { rerunView } from "./rerun-view.js";
import { whatIfPanel } from "./what-if-panel.js";

/** The text of one model call while it is written (its latest attempt). */
interface LiveText {
  attempt: number;
  text: string;
  reasoning: string;
  /** The page joined after the call had begun: its start is not shown until the output is recorded. */
  missed: boolean;
}

const KEY_STORAGE = "soev-playground-key";

const state = {
  key: localStorage.getItem(KEY_STORAGE) ?? "",
  thread: null as ThreadView | null,
  live: new Map<string, LiveText>(),
  /** The calls whose outputs arrived: their live text goes once the thread is fetched again. */
  recorded: new Set<string>(),
  running: false,
  /** How the last turn followed here ended, when not completed. */
  ending: null as { status: string; failure?: { error: string; message: string } } | null,
  /** The Temporal UI page of the turn started from this page. */
  turnLink: null as string | null,
  follow: null as AbortController | null,
  /** How many requests the running turn waits on, as last listed. */
  waiting: 0,
  /** The catalog's agents. */
  agents: [] as string[],
  /** The view the page last opened, as its hash (`thread=…`, `rerun=…`): a hash change to it opens nothing. */
  shown: "",
};

/** The questions and approvals the running turn waits on, each with its form. */
const panel = requestsPanel(byId("requests"), byId("request-list"), { send: answerRequest });

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

function setStatus(text: string, bad = false): void {
  const status = byId("status");
  status.textContent = text;
  status.classList.toggle("bad", bad);
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${state.key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => null)) as {
      title?: string;
      detail?: string;
      field?: string;
    } | null;
    // The field a refused answer names (`payload.date`): the requests panel marks it.
    throw Object.assign(new Error(problem?.detail ?? `${method} ${path} answered ${response.status}.`), {
      field: problem?.field ?? null,
    });
  }
  return (await response.json()) as T;
}

const get = <T>(path: string): Promise<T> => api<T>("GET", path);

const threadPath = (threadId: string) => `/threads/${encodeURIComponent(threadId)}`;

function shown(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

// ---- threads and agents ----

async function loadAgents(): Promise<void> {
  const { agents } = await api<{ agents: string[] }>("GET", "/agents");
  state.agents = agents;
  const select = byId<HTMLSelectElement>("agent");
  select.replaceChildren(...agents.map((agent) => make("option", { value: agent }, agent)));
}

async function loadThreads(): Promise<void> {
  const { threads } = await api<{
    threads: { threadId: string; agent: string | null; startedAt: string | null; input: unknown }[];
  }>("GET", "/threads?limit=50");
  byId("threads").replaceChildren(
    ...threads.map((thread) => {
      const button = make(
        "button",
        { type: "button", "data-thread": thread.threadId },
        shown(thread.input).slice(0, 80),
        make(
          "small",
          {},
          `${thread.agent ?? "?"} · ${thread.startedAt ? new Date(thread.startedAt).toLocaleString() : ""}`,
        ),
      );
      button.setAttribute("aria-current", String(thread.threadId === state.thread?.threadId));
      button.addEventListener("click", () => void openThread(thread.threadId).catch(fail));
      return make("li", {}, button);
    }),
  );
}

/** Show a thread and follow it: a running turn goes on streaming here. */
async function openThread(threadId: string): Promise<void> {
  state.follow?.abort();
  state.live.clear();
  state.recorded.clear();
  state.ending = null;
  state.turnLink = null;
  closeRerun();
  state.shown = `thread=${encodeURIComponent(threadId)}`;
  location.hash = state.shown;
  const view = await api<ThreadView>("GET", threadPath(threadId));
  state.thread = view;
  state.running = view.running;
  byId<HTMLSelectElement>("agent").value = view.agent;
  render();
  setStatus(view.running ? "A turn is running: following it." : "");
  panel.show([]);
  state.waiting = 0;
  void loadThreads().catch(fail);
  if (view.running) {
    void follow(threadId, view.position);
    await loadRequests(threadId);
  }
}

function newThread(): void {
  state.follow?.abort();
  state.thread = null;
  state.live.clear();
  state.running = false;
  state.ending = null;
  state.turnLink = null;
  history.replaceState(null, "", location.pathname);
  closeRerun();
  state.shown = "";
  panel.show([]);
  state.waiting = 0;
  render();
  setStatus("");
  byId("question").focus();
  void loadThreads().catch(fail);
}

// ---- turns ----

async function send(text: string, model: string): Promise<void> {
  let input: unknown = text;
  if (text.trim().startsWith("{")) {
    try {
      input = JSON.parse(text);
    } catch {
      input = text;
    }
  }
  const body = { input, ...(model ? { model } : {}) };
  const thread = state.thread;
  setStatus("Starting the turn…");
  const started = await api<{ threadId: string; events: string; temporalUi: string | null }>(
    "POST",
    thread ? `${threadPath(thread.threadId)}/turns` : "/threads",
    thread ? body : { ...body, agent: byId<HTMLSelectElement>("agent").value },
  );
  byId<HTMLTextAreaElement>("question").value = "";
  state.live.clear();
  state.recorded.clear();
  state.ending = null;
  state.running = true;
  // Follow at once: fragments written before the stream opens are not sent again.
  const after = Number(new URL(started.events, location.href).searchParams.get("after") ?? 0);
  void follow(started.threadId, after);
  if (!thread) location.hash = state.shown = `thread=${encodeURIComponent(started.threadId)}`;
  const view = await api<ThreadView>("GET", threadPath(started.threadId));
  state.thread = { ...view, running: state.running };
  state.turnLink = started.temporalUi;
  render();
  if (state.running) setStatus("The model is working…");
  void loadThreads().catch(fail);
}

/** List what the running turn waits on, in the panel; nothing once no turn runs. */
async function loadRequests(threadId: string): Promise<void> {
  const listed = state.running
    ? await api<PendingRequests>("GET", `${threadPath(threadId)}/requests`)
    : { running: false, requests: [] };
  if (state.thread?.threadId !== threadId) return;
  const requests = state.running ? listed.requests : [];
  panel.show(requests);
  if (requests.length > 0 && requests.length !== state.waiting)
    setStatus(
      `The turn waits for you: ${requests.length === 1 ? "one request" : `${requests.length} requests`} below.`,
    );
  else if (requests.length === 0 && state.waiting > 0 && state.running) setStatus("The model is working…");
  state.waiting = requests.length;
}

/** Answer a waiting request; the Response comes back on the event stream. */
async function answerRequest(request: PendingRequest, answer: AnswerInput): Promise<void> {
  if (!state.thread) throw new Error("No thread is open.");
  await api("POST", `${threadPath(state.thread.threadId)}/requests/${encodeURIComponent(request.requestId)}`, answer);
}

async function cancel(): Promise<void> {
  if (!state.thread) return;
  setStatus("Cancelling the turn…");
  await api("POST", `${threadPath(state.thread.threadId)}/cancel`);
}

// ---- the event stream ----

/** Follow the thread's events after `after` until the turn ends; a dropped connection resumes where it was. */
async function follow(threadId: string, after: number): Promise<void> {
  state.follow?.abort();
  const controller = new AbortController();
  state.follow = controller;
  let last = after;
  for (let tries = 0; tries < 5 && !controller.signal.aborted; tries++) {
    try {
      const response = await fetch(`${threadPath(threadId)}/events?after=${last}`, {
        headers: { authorization: `Bearer ${state.key}` },
        signal: controller.signal,
      });
      if (!response.ok || !response.body) throw new Error(`The event stream answered ${response.status}.`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const message = parseMessage(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (!message) continue;
          if (message.id !== null) last = Number(message.id);
          if (handle(message.event, message.data)) return;
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      setStatus(`The event stream broke (${String(error)}); resuming…`, true);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

function parseMessage(block: string): { event: string; id: string | null; data: Record<string, unknown> } | null {
  let event = "message";
  let id: string | null = null;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "id") id = value;
    else if (field === "data") data.push(value);
  }
  return data.length === 0 ? null : { event, id, data: JSON.parse(data.join("\n")) as Record<string, unknown> };
}

/** Take one message of the stream; true once the turn ended. */
function handle(event: string, data: Record<string, unknown>): boolean {
  if (event === "fragment") {
    const key = String(data.key);
    const attempt = Number(data.attempt);
    let live = state.live.get(key);
    if (live !== undefined && attempt < live.attempt) return false;
    if (live === undefined || attempt > live.attempt) {
      // A retried call writes its text again: its earlier attempt's text goes.
      live = { attempt, text: "", reasoning: "", missed: Number(data.index) > 0 };
      state.live.set(key, live);
    }
    if (data.kind === "reasoning") live.reasoning += String(data.text);
    else live.text += String(data.text);
    renderLive();
    return false;
  }
  if (event === "event") {
    if (data.type === "model_output") state.recorded.add(String(data.seq));
    void refresh();
    return false;
  }
  if (event === "end") {
    state.running = false;
    state.ending = data as typeof state.ending;
    const status = String(data.status);
    const failure = data.failure as { error: string; message: string } | undefined;
    if (status === "completed") setStatus("The turn completed.");
    else if (status === "cancelled") setStatus("The turn was cancelled.");
    else setStatus(`The turn ${status}${failure ? `: ${failure.error}: ${failure.message}` : "."}`, status !== "idle");
    void refresh();
    return true;
  }
  return false;
}

let refreshing: Promise<void> | null = null;
let again = false;

/** Fetch the thread again (one fetch at a time; events during one ask for one more). */
async function refresh(): Promise<void> {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      again = false;
      const threadId = state.thread?.threadId;
      if (!threadId) return;
      const recorded = [...state.recorded];
      const view = await api<ThreadView>("GET", threadPath(threadId));
      if (state.thread?.threadId !== threadId) return;
      state.thread = { ...view, running: state.running };
      for (const key of recorded) state.live.delete(key);
      render();
      await loadRequests(threadId);
    } while (again);
  })()
    .catch(fail)
    .finally(() => (refreshing = null));
  return refreshing;
}

// ---- rendering ----

function render(): void {
  const thread = state.thread;
  byId("chat-title").textContent = thread ? `Thread ${thread.threadId.slice(0, 8)} · ${thread.agent}` : "New thread";
  const links = byId("links");
  links.replaceChildren();
  const link = state.turnLink ?? thread?.temporalUi ?? null;
  if (link)
    links.append(
      make(
        "a",
        { href: link, target: "_blank", rel: "noopener", id: "temporal-link" },
        state.turnLink ? "This turn in the Temporal UI" : "The thread's turns in the Temporal UI",
      ),
    );
  byId("turns").replaceChildren(
    ...(thread?.turns ?? []).map((turn, index, all) => turnItem(turn, index === all.length - 1)),
  );
  byId("cancel").hidden = !state.running;
  byId<HTMLButtonElement>("send").disabled = state.running;
  for (const button of document.querySelectorAll<HTMLButtonElement>("#threads button"))
    button.setAttribute("aria-current", String(button.dataset.thread === thread?.threadId));
}

function turnItem(turn: Turn, latest: boolean): HTMLLIElement {
  const item = make("li", { class: "turn", "data-position": String(turn.position) });
  item.append(make("p", { class: "user" }, shown(turn.input)));
  for (const call of turn.toolCalls) item.append(toolItem(call, latest && state.running));
  if (turn.answer && turn.answer.text !== "") item.append(answerItem(turn.answer));
  if (latest) item.append(...liveItems());
  for (const failure of turn.failures)
    item.append(make("p", { class: "failure", role: "alert" }, `${failure.error}: ${failure.message}`));
  if (latest && state.ending && state.ending.status !== "completed" && state.ending.status !== "idle")
    item.append(
      make(
        "p",
        { class: "failure" },
        make("span", { class: "badge" }, state.ending.status),
        " The turn did not complete.",
      ),
    );
  if (turn.calls.length > 0) {
    const calls = make("p", { class: "calls" }, "What the model saw:");
    for (const n of turn.calls) {
      const button = make(
        "button",
        { type: "button", "data-call": String(n), "aria-label": `What the model saw in call ${n}` },
        `call ${n}`,
      );
      button.addEventListener("click", () => void showCall(n).catch(fail));
      calls.append(button);
    }
    item.append(calls);
    item.append(make("p", { class: "usage", "data-usage": "turn" }, usageText(turn.usage)));
  }
  return item;
}

/** Tokens and cost as a line: "1,234 tokens (1,000 in, 234 out) · $0.0012", an estimate said so. */
function usageText(usage: {
  promptTokens: number;
  completionTokens: number;
  cost: number | null;
  estimated?: boolean;
  estimatedCalls?: number;
}): string {
  const total = usage.promptTokens + usage.completionTokens;
  const estimated = usage.estimated === true || (usage.estimatedCalls ?? 0) > 0 ? " (estimated)" : "";
  const cost = usage.cost === null ? "no price" : `$${usage.cost.toFixed(4)}`;
  return `${total.toLocaleString("en")} tokens${estimated}: ${usage.promptTokens.toLocaleString("en")} in, ${usage.completionTokens.toLocaleString("en")} out · ${cost}`;
}

function toolItem(call: ToolCall, running: boolean): HTMLElement {
  const box = make("div", { class: "tool", "data-tool-call": call.id });
  box.append(make("div", {}, "Tool ", make("code", {}, `${call.name}(${JSON.stringify(call.arguments)})`)));
  if (call.error !== null) box.append(make("p", { class: "result failure" }, `Error: ${call.error}`));
  else if (call.result !== null) box.append(make("p", { class: "result" }, call.result));
  // A call that waits for a person says so below, not that it runs.
  else if (!call.requests.some((request) => request.answer === null))
    box.append(make("p", { class: "result muted" }, running ? "running…" : "no result"));
  for (const request of call.requests) box.append(decisionItem(request, running));
  return box;
}

/** What a person decided for a call: approved or denied (and why), or the answer to its question. */
function decisionItem(request: TurnRequest, running: boolean): HTMLElement {
  const attributes = { "data-request": request.requestId };
  const answer = request.answer?.payload;
  if (request.kind === "approval") {
    if (request.answer === null)
      return make("p", { ...attributes, class: "decision muted" }, running ? "Waits for approval." : "Not approved.");
    const { approved, reason } = answer as { approved: boolean; reason?: string };
    return make(
      "p",
      { ...attributes, class: `decision ${approved ? "approved" : "denied"}` },
      make("span", { class: "badge" }, approved ? "approved" : "denied"),
      reason ? ` ${reason}` : "",
    );
  }
  return make(
    "p",
    { ...attributes, class: "decision question" },
    make("span", { class: "badge" }, "asked"),
    ` ${request.text} `,
    request.answer === null
      ? make("span", { class: "muted" }, running ? "(waits for an answer)" : "(not answered)")
      : make("code", {}, shown(answer)),
  );
}

/** The answer as recorded: its text with each marker a chip that shows the passage it names. */
function answerItem(answer: NonNullable<Turn["answer"]>): HTMLElement {
  const text = make("span", { class: "text" });
  const citations = [...answer.citations].sort((a, b) => a.at - b.at);
  let from = 0;
  for (const citation of citations) {
    text.append(answer.content.slice(from, citation.at));
    from = citation.at;
    // A marker's text can start with the space before it: the space stays text, the chip is the marker.
    const marker = citation.marker.trim();
    text.append(citation.marker.slice(0, citation.marker.indexOf(marker)));
    const named = citation.passages.filter((passage) => passage.sourceId !== null);
    const chip = make(
      "button",
      {
        type: "button",
        class: named.length > 0 ? "chip" : "chip unresolved",
        "aria-label": named.length > 0 ? `Citation ${marker}: show the passage` : `Citation ${marker} names no passage`,
      },
      marker,
    );
    chip.addEventListener("click", () => showPassage(citation));
    text.append(chip);
  }
  text.append(answer.content.slice(from));
  return make("p", { class: "answer" }, text);
}

/** The calls whose reasoning the reader opened. */
const openReasoning = new Set<string>();

/** The text of the calls still being written: reasoning folded, then the text. */
function liveItems(): HTMLElement[] {
  const items: HTMLElement[] = [];
  for (const [key, live] of state.live) {
    if (live.reasoning !== "") {
      const details = make(
        "details",
        { class: "reasoning" },
        make("summary", {}, "Reasoning"),
        make("p", {}, live.reasoning),
      );
      // Each fragment draws the live text again: a reasoning the reader opened stays open.
      details.open = openReasoning.has(key);
      details.addEventListener("toggle", () => (details.open ? openReasoning.add(key) : openReasoning.delete(key)));
      items.push(details);
    }
    if (live.text !== "")
      items.push(
        make(
          "p",
          { class: "answer live", "data-live": key, "aria-busy": String(state.running) },
          live.missed ? make("span", { class: "missed", title: "written before this page joined" }, "… ") : null,
          make("span", { class: "text" }, live.text),
          state.running ? null : make("span", { class: "stopped" }, " (stopped: this text was not recorded)"),
        ),
      );
  }
  return items;
}

function renderLive(): void {
  const last = byId("turns").lastElementChild;
  if (!last || !state.thread) return;
  for (const old of last.querySelectorAll(".live, .reasoning")) old.remove();
  const failure = last.querySelector(".failure, .calls");
  for (const item of liveItems()) last.insertBefore(item, failure);
}

function showPassage(citation: Citation): void {
  const section = byId("passage");
  section.hidden = false;
  const marker = citation.marker.trim();
  byId("passage-title").textContent = `Citation ${marker}`;
  const body = byId("passage-body");
  body.replaceChildren();
  for (const passage of citation.passages) {
    if (passage.sourceId === null) {
      body.append(
        make(
          "p",
          { class: "failure" },
          `${marker}: the number ${passage.number} names no passage the model was shown.`,
        ),
      );
      continue;
    }
    body.append(
      make(
        "p",
        {},
        `[${passage.number}] `,
        make("strong", {}, passage.sourceId),
        passage.type ? ` (${passage.type})` : "",
      ),
      make("blockquote", { class: "passage-text" }, passage.text ?? "(no text recorded)"),
    );
  }
  if (citation.passages.length === 0) body.append(make("p", { class: "failure" }, `${marker} names nothing.`));
  section.scrollIntoView({ block: "nearest" });
  byId("passage-title").setAttribute("tabindex", "-1");
  byId("passage-title").focus();
}

// ---- what the model saw ----

async function showCall(n: number): Promise<void> {
  if (!state.thread) return;
  const call = await api<CallView>("GET", `${threadPath(state.thread.threadId)}/calls/${n}`);
  const body = byId("saw-body");
  body.replaceChildren();
  byId("saw-title").textContent = `What the model saw in call ${n}`;
  body.append(
    make(
      "p",
      {},
      `Node ${call.node ?? "?"} · model ${call.model ?? "?"} · `,
      call.matches
        ? "rebuilt by replay; it matches the recorded request."
        : make("strong", { class: "failure" }, "the rebuilt request differs from the recorded one."),
    ),
  );
  body.append(make("p", { class: "usage", "data-usage": "call" }, usageText(call.usage)));
  body.append(whatIfPanel(threadPath(state.thread.threadId), n, state.agents, get));
  if (call.window) {
    const { tokens, limit, outputReserve, startAt } = call.window;
    const percent = Math.round((tokens / limit) * 100);
    body.append(
      make("h3", {}, "Window"),
      make(
        "meter",
        {
          id: "window-meter",
          min: "0",
          max: String(limit),
          value: String(tokens),
          low: String(startAt),
          high: String(limit - outputReserve),
          optimum: "0",
          "aria-label": "Estimated window use",
        },
        `${percent}%`,
      ),
      make(
        "p",
        { class: "window-text" },
        `About ${tokens.toLocaleString("en")} of ${limit.toLocaleString("en")} tokens (${percent}%); results shrink above ${startAt.toLocaleString("en")}, ${outputReserve.toLocaleString("en")} are kept for the answer.`,
      ),
    );
  }
  body.append(make("h3", {}, "Tool results' forms (explain)"));
  if (call.explain.length === 0)
    body.append(make("p", { class: "muted" }, "Every result is shown as recorded (FULL)."));
  else {
    const rows = call.explain.map((row) =>
      make(
        "tr",
        { "data-result": row.result },
        make("td", {}, row.result),
        make("td", { class: `form-${row.form}` }, row.form),
        make("td", {}, make("code", {}, row.by)),
        make("td", {}, `call ${row.at + 1}`),
      ),
    );
    body.append(
      make(
        "table",
        { id: "explain" },
        make(
          "thead",
          {},
          make(
            "tr",
            {},
            make("th", {}, "Result"),
            make("th", {}, "Form"),
            make("th", {}, "Why"),
            make("th", {}, "Since"),
          ),
        ),
        make("tbody", {}, ...rows),
      ),
    );
  }
  body.append(make("h3", {}, "Cited passages kept by floors"));
  if (call.kept.length === 0)
    body.append(make("p", { class: "muted" }, "None: no shrunk result holds a kept passage."));
  for (const kept of call.kept)
    body.append(
      make(
        "div",
        { class: "kept", "data-element": kept.id },
        make(
          "p",
          {},
          `${kept.result} · `,
          make("strong", {}, kept.id),
          ` (${kept.type}) kept `,
          make("span", { class: `form-${kept.form}` }, kept.form),
        ),
        make("blockquote", {}, kept.text ?? "(no text)"),
      ),
    );
  if (call.compactions.length > 0) {
    body.append(make("h3", {}, "Compaction summaries"));
    for (const compaction of call.compactions)
      body.append(
        make("p", {}, `At event ${compaction.position}, replacing the stream's first ${compaction.keptFrom} events:`),
        make("blockquote", { class: "summary" }, compaction.summary),
      );
  }
  if (call.reopens.length > 0) {
    body.append(make("h3", {}, "Reopen calls"));
    const list = make("ul", {});
    for (const reopen of call.reopens)
      list.append(
        make(
          "li",
          {},
          `At event ${reopen.position}: elements ${reopen.elements.join(", ") || "none"}; results ${reopen.results.join(", ") || "none"}`,
        ),
      );
    body.append(list);
  }
  if (call.request) {
    body.append(make("h3", {}, "Tools offered"));
    const tools = make("ul", { id: "tools-offered" });
    for (const tool of call.request.tools)
      tools.append(make("li", {}, make("strong", {}, tool.name), `: ${tool.description}`));
    if (call.request.tools.length === 0) tools.append(make("li", { class: "muted" }, "none"));
    body.append(tools);
    const messages = Array.isArray(call.request.messages) ? (call.request.messages as Record<string, unknown>[]) : [];
    body.append(make("h3", {}, `Messages (${messages.length})`));
    const list = make("ol", { class: "messages", id: "messages" });
    for (const message of messages) {
      const content = messageText(message);
      list.append(
        make(
          "li",
          {},
          make(
            "details",
            {},
            make("summary", {}, `${String(message.role)}: ${content.slice(0, 70)}`),
            make("pre", {}, content),
          ),
        ),
      );
    }
    body.append(list);
  } else {
    body.append(
      make(
        "p",
        { class: "muted" },
        "The request could not be rebuilt: the call's step does not rebuild from the trace.",
      ),
    );
  }
  byId("saw").scrollIntoView({ block: "nearest" });
}

function messageText(message: Record<string, unknown>): string {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? "");
  const calls = Array.isArray(message.toolCalls) ? (message.toolCalls as { name: string; arguments: unknown }[]) : [];
  return [content, ...calls.map((call) => `→ ${call.name}(${JSON.stringify(call.arguments)})`)]
    .filter(Boolean)
    .join("\n");
}

// ---- re-run report ----

/** Show a re-run batch's report in place of the conversation. */
async function openRerun(batchId: string): Promise<void> {
  state.follow?.abort();
  state.shown = `rerun=${encodeURIComponent(batchId)}`;
  location.hash = state.shown;
  byId("chat").classList.add("rerun-open");
  byId("rerun").hidden = false;
  byId<HTMLInputElement>("rerun-batch").value = batchId;
  byId("rerun-title").textContent = `Re-run report: batch ${batchId}`;
  byId("rerun-body").replaceChildren(make("p", { class: "muted" }, "Comparing the threads…"));
  byId("rerun-body").replaceChildren(...(await rerunView(batchId, get)));
  setStatus("");
}

function closeRerun(): void {
  byId("chat").classList.remove("rerun-open");
  byId("rerun").hidden = true;
}

/** Open what the hash names: a thread, a re-run report, or nothing. */
async function route(): Promise<void> {
  const hash = location.hash.replace(/^#/, "");
  const [, kind, id] = /^(thread|rerun)=([^&]+)/.exec(hash) ?? [];
  if (kind === "rerun") await openRerun(decodeURIComponent(id!));
  else if (kind === "thread") await openThread(decodeURIComponent(id!));
  else render();
}

// ---- start ----

function fail(error: unknown): void {
  setStatus(error instanceof Error ? error.message : String(error), true);
}

async function connect(): Promise<void> {
  if (!state.key) {
    setStatus("Enter your API key to start.");
    byId("api-key").focus();
    return;
  }
  await loadAgents();
  await loadThreads();
  await route();
}

function start(): void {
  byId<HTMLInputElement>("api-key").value = state.key;
  byId("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    state.key = byId<HTMLInputElement>("api-key").value.trim();
    localStorage.setItem(KEY_STORAGE, state.key);
    void connect().catch(fail);
  });
  byId("new-thread").addEventListener("click", newThread);
  byId("rerun-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const batchId = byId<HTMLInputElement>("rerun-batch").value.trim();
    if (batchId) void openRerun(batchId).catch(fail);
  });
  // A link of the report (#thread=…) opens its thread; the page's own hash changes open nothing again.
  window.addEventListener("hashchange", () => {
    if (state.key && location.hash.replace(/^#/, "") !== state.shown) void route().catch(fail);
  });
  const question = byId<HTMLTextAreaElement>("question");
  const ask = byId<HTMLFormElement>("ask");
  ask.addEventListener("submit", (event) => {
    event.preventDefault();
    if (state.running || question.value.trim() === "") return;
    void send(question.value, byId<HTMLInputElement>("model").value.trim()).catch(fail);
  });
  question.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      ask.requestSubmit();
    }
  });
  byId("cancel").addEventListener("click", () => void cancel().catch(fail));
  void connect().catch(fail);
}

start();
