/// <reference lib="dom" />
/**
 * The playground's panel of what a waiting turn asks a person: each approval shows its tool and
 * arguments with Approve and Deny (and a reason the model reads), each question its text and a form
 * built from its schema, with Answer. The panel keeps a request's form as the person left it while the
 * page draws the thread again; a form goes once its request no longer waits.
 */
import type { AnswerInput, PendingRequest } from "../api-types.js";
import { make } from "./dom.js";
import { schemaForm, type SchemaForm } from "./schema-form.js";

/** What the panel needs of the page. */
export interface RequestsPanelOptions {
  /**
   * Send an answer (POST /threads/{threadId}/requests/{requestId}). A refusal throws an Error whose
   * `field`, when the app names one, is where in the answer (`payload.date`).
   */
  send(request: PendingRequest, answer: AnswerInput): Promise<void>;
}

/** The panel of waiting requests. */
export interface RequestsPanel {
  /** Show these waiting requests (oldest first): a form for each new one; the forms of the others go. */
  show(requests: readonly PendingRequest[]): void;
}

/** The panel in `section` (hidden while nothing waits), its requests listed in `list`. */
export function requestsPanel(section: HTMLElement, list: HTMLElement, options: RequestsPanelOptions): RequestsPanel {
  const items = new Map<string, HTMLElement>();
  let made = 0;
  return {
    show(requests) {
      const waiting = new Set(requests.map((request) => request.requestId));
      for (const [requestId, item] of items)
        if (!waiting.has(requestId)) {
          item.remove();
          items.delete(requestId);
        }
      let first: HTMLElement | null = null;
      for (const request of requests) {
        if (items.has(request.requestId)) continue;
        const item = requestItem(request, `request-${++made}`, options);
        items.set(request.requestId, item);
        list.append(item);
        first ??= item;
      }
      section.hidden = items.size === 0;
      // A new request comes into view; where the person is typing stays as it is.
      first?.scrollIntoView({ block: "nearest" });
    },
  };
}

/** One waiting request: what it asks, and its form. */
function requestItem(request: PendingRequest, id: string, options: RequestsPanelOptions): HTMLElement {
  const approval = request.kind === "approval";
  const title = approval
    ? make("h3", { id: `${id}-title` }, "Approve ", make("code", {}, request.tool ?? "a call"), "?")
    : make(
        "h3",
        { id: `${id}-title` },
        "Question",
        request.tool ? " from " : "",
        request.tool ? make("code", {}, request.tool) : null,
      );
  const item = make("article", {
    class: `request ${request.kind}`,
    "data-request": request.requestId,
    "aria-labelledby": `${id}-title`,
  });
  item.append(title);
  if (approval) item.append(make("pre", { class: "arguments" }, JSON.stringify(request.arguments, null, 2)));
  else item.append(make("p", { class: "request-text" }, request.text));
  if (request.stream !== "main")
    item.append(make("p", { class: "hint" }, `Asked in the delegated task ${request.stream}.`));
  if (request.deadline !== null)
    item.append(
      make(
        "p",
        { class: "hint" },
        `Answer by ${new Date(request.deadline).toLocaleString()}`,
        request.hasDefault ? "; then a default answer is recorded." : "; then the turn ends.",
      ),
    );
  const status = make("p", { class: "request-status", role: "status" });
  const form = approval ? approvalForm(id) : questionForm(request, id);
  form.element.addEventListener("submit", (event) => {
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    void submit(request, form, submitter?.value ?? "", status, options);
  });
  item.append(form.element, status);
  return item;
}

/** A request's form: its element, the answer it holds for the button pressed, and where to mark a refusal. */
interface RequestForm {
  element: HTMLFormElement;
  /** Throws an Error for an answer that cannot be read (JSON that does not parse). */
  answer(button: string): AnswerInput;
  refuse(field: string): void;
}

function approvalForm(id: string): RequestForm {
  const reason = make("input", { id: `${id}-reason`, name: "reason", type: "text", autocomplete: "off" });
  // Enter in the reason sends nothing: which decision it is takes a button.
  reason.addEventListener("keydown", (event) => {
    if (event.key === "Enter") event.preventDefault();
  });
  const element = make(
    "form",
    { class: "request-form" },
    make(
      "fieldset",
      {},
      make(
        "div",
        { class: "field" },
        make("label", { for: reason.id }, "Reason ", make("span", { class: "hint" }, "(optional; the model reads it)")),
        reason,
      ),
      make(
        "div",
        { class: "actions" },
        make("button", { type: "submit", value: "approve", class: "approve" }, "Approve"),
        make("button", { type: "submit", value: "deny", class: "deny" }, "Deny"),
      ),
    ),
  );
  return {
    element,
    answer: (button) => {
      const why = reason.value.trim();
      return { approved: button === "approve", ...(why === "" ? {} : { reason: why }) };
    },
    refuse: () => reason.focus(),
  };
}

function questionForm(request: PendingRequest, id: string): RequestForm {
  const fields: SchemaForm = schemaForm(request.schema, id);
  const element = make(
    "form",
    { class: "request-form" },
    make(
      "fieldset",
      {},
      ...fields.elements,
      make("div", { class: "actions" }, make("button", { type: "submit", value: "answer" }, "Answer")),
    ),
  );
  return { element, answer: () => ({ payload: fields.payload() }), refuse: (field) => fields.refuse(field) };
}

/** Send the answer the form holds; the form stays disabled once the app took it (its request goes soon). */
async function submit(
  request: PendingRequest,
  form: RequestForm,
  button: string,
  status: HTMLElement,
  options: RequestsPanelOptions,
): Promise<void> {
  const fieldset = form.element.querySelector("fieldset")!;
  for (const invalid of form.element.querySelectorAll("[aria-invalid]")) invalid.removeAttribute("aria-invalid");
  status.classList.remove("failure");
  try {
    const answer = form.answer(button);
    fieldset.disabled = true;
    status.textContent = "Sending…";
    await options.send(request, answer);
    status.textContent = "Sent: the turn goes on.";
  } catch (error) {
    fieldset.disabled = false;
    status.classList.add("failure");
    status.textContent = error instanceof Error ? error.message : String(error);
    const field = (error as { field?: unknown }).field;
    if (typeof field === "string" && field.startsWith("payload")) form.refuse(field.replace(/^payload\.?/, ""));
    status.scrollIntoView({ block: "nearest" });
  }
}
