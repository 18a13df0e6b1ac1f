// The playground page in a real browser (Debian's chromium through playwright-core) against the real app,
// worker and Temporal dev server, with scripted streaming models. Each test writes screenshots to
// test-results/playground/.
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ANSWER, StreamingModel } from "../fixtures/app/streaming.js";
import {
  BOOKINGS,
  bookingAnswer,
  FALSE_MARKER,
  LONG_LIBRARY,
  playgroundAgents,
  SLOW_REASONING,
  TOPICS,
  topicQuestion,
} from "../fixtures/app/playground.js";
import { gateFolder } from "../temporal/harness.js";
import { launchBrowser, screenshot } from "./browser.js";
import { readEvents } from "./sse.js";
import { startAppStack, type AppStack } from "./stack.js";
import type { schemaForm as SchemaFormOf } from "../../src/app/playground/schema-form.js";

const ALICE = { authorization: "Bearer alice-key" };
const QUESTION = "How often is bulky waste picked up?";
// The assistant's model hangs mid-answer while this file is missing (the cancel test removes it).
const hangFile = join(gateFolder(), "playground-hang");

let stack: AppStack;
let browser: Promise<Browser> | null = null;
let context: BrowserContext | null = null;

beforeAll(async () => {
  writeFileSync(hangFile, "no hang");
  const model = new StreamingModel({ pause: 60, hang: { after: 2, file: hangFile } });
  stack = await startAppStack({ model, more: playgroundAgents() });
});

afterEach(async () => {
  await context?.close();
  context = null;
});

afterAll(async () => {
  await (await browser?.catch(() => null))?.close();
  await stack?.close();
});

/** Every text the last turn's answer showed, in order, and the most answers the last turn ever held at once. */
interface Seen {
  states: string[];
  mostAnswers: number;
  /** What the app's Content-Security-Policy blocked: must stay empty, or the page lost a part. */
  violations: string[];
}

/** Open the page at `path` in a fresh browser context with the API key given, and record the answer's states. */
async function openPage(path = "/", viewport = { width: 1280, height: 800 }): Promise<Page> {
  // Launched by the first test, so that without chromium each test fails saying so (none is skipped).
  const opened = await (browser ??= launchBrowser()).then((launched) => launched.newContext({ viewport }));
  context = opened;
  await opened.addInitScript(() => {
    const seen = { states: [] as string[], mostAnswers: 0, violations: [] as string[] };
    (window as unknown as { seen: Seen }).seen = seen;
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.violations.push(`${event.effectiveDirective} ${event.blockedURI}`),
    );
    const record = () => {
      const last = document.querySelector("#turns > li:last-child");
      const answers = last?.querySelectorAll(".answer") ?? [];
      seen.mostAnswers = Math.max(seen.mostAnswers, answers.length);
      const text = answers[0]?.querySelector(".text")?.textContent ?? "";
      if (text !== "" && seen.states.at(-1) !== text) seen.states.push(text);
    };
    document.addEventListener("DOMContentLoaded", () =>
      new MutationObserver(record).observe(document.getElementById("turns")!, {
        subtree: true,
        childList: true,
        characterData: true,
      }),
    );
  });
  const page = await opened.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${stack.served.url}${path}`);
  await page.fill("#api-key", "alice-key");
  await page.press("#api-key", "Enter");
  await page.waitForSelector("#agent option", { state: "attached" });
  expect(errors).toEqual([]);
  return page;
}

const seenOf = (page: Page) => page.evaluate(() => (window as unknown as { seen: Seen }).seen);
const threadIdOf = (page: Page) => page.evaluate(() => decodeURIComponent(location.hash.replace("#thread=", "")));

/** Wait for `partial` states of the answer, then for the turn to complete, with a screenshot of each; what was seen. */
async function streamedAnswer(page: Page, partial: number, names: [string, string]): Promise<Seen> {
  await page.waitForFunction((count) => (window as unknown as { seen: Seen }).seen.states.length >= count, partial);
  await screenshot(page, names[0]);
  await page.waitForSelector("#status:has-text('The turn completed.')");
  await screenshot(page, names[1]);
  const seen = await seenOf(page);
  expect(seen.violations).toEqual([]);
  return seen;
}

async function ask(page: Page, agent: string, question: string): Promise<void> {
  await page.selectOption("#agent", agent);
  await page.fill("#question", question);
  await page.press("#question", "Enter");
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(`${stack.served.url}${path}`, { headers: ALICE });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

interface ThreadJson {
  running: boolean;
  turns: {
    answer: { text: string; citations: { marker: string; passages: { sourceId: string; text: string }[] }[] } | null;
    calls: number[];
  }[];
}

/** Start a turn over HTTP and read its events to the end. */
async function turnOverHttp(agent: string, input: string, threadId: string | null): Promise<string> {
  const response = await fetch(`${stack.served.url}${threadId ? `/threads/${threadId}/turns` : "/threads"}`, {
    method: "POST",
    headers: { ...ALICE, "content-type": "application/json" },
    body: JSON.stringify(threadId ? { input } : { agent, input }),
  });
  expect(response.status, await response.clone().text()).toBe(202);
  const started = (await response.json()) as { threadId: string; events: string };
  const messages = await readEvents(started.events, ALICE);
  expect(messages.at(-1)!.data.status).toBe("completed");
  return started.threadId;
}

describe("the playground page", () => {
  it("streams the answer in partial states, shows the tool call, and ends with the recorded output", async () => {
    const page = await openPage();
    await ask(page, "assistant", QUESTION);
    const { states, mostAnswers } = await streamedAnswer(page, 3, ["01-answer-streaming", "02-answer-complete"]);
    // Every state is the start of the answer as written; at least two before the whole.
    for (const state of states) expect(ANSWER.startsWith(state), state).toBe(true);
    expect(states.filter((state) => state !== ANSWER).length).toBeGreaterThanOrEqual(2);
    expect(states.at(-1)).toBe(ANSWER);
    expect(mostAnswers).toBe(1);
    const thread = await getJson<ThreadJson>(`/threads/${await threadIdOf(page)}`);
    expect(await page.textContent("#turns > li:last-child .answer .text")).toBe(thread.turns.at(-1)!.answer!.text);
    expect(await page.textContent(".tool code")).toBe('search({"query":"bulky waste"})');
    expect(await page.textContent(".tool .result")).toMatch(/element/);
    expect(await page.isHidden("#cancel")).toBe(true);
  });

  it("shows the passage a citation chip names when it is clicked", async () => {
    const threadId = await turnOverHttp("assistant", QUESTION, null);
    const thread = await getJson<ThreadJson>(`/threads/${threadId}`);
    const citation = thread.turns[0]!.answer!.citations[0]!;
    const page = await openPage(`/#thread=${threadId}`);
    const chip = page.locator("#turns .chip").first();
    await chip.waitFor();
    expect(await chip.textContent()).toBe(citation.marker.trim());
    await chip.click();
    await page.waitForSelector("#passage:not([hidden])");
    await screenshot(page, "03-citation-passage");
    expect(await page.textContent("#passage-body .passage-text")).toBe(citation.passages[0]!.text);
    expect(await page.textContent("#passage-body")).toContain(citation.passages[0]!.sourceId);
    // The chip is reachable and opens from the keyboard too.
    await page.evaluate(() => document.getElementById("passage")!.setAttribute("hidden", ""));
    await chip.focus();
    await page.keyboard.press("Enter");
    await page.waitForSelector("#passage:not([hidden])");
  });

  it("shows a marker that names nothing as such", async () => {
    const threadId = await turnOverHttp("researcher", `${topicQuestion("tannery")} Take a guess.`, null);
    const thread = await getJson<ThreadJson>(`/threads/${threadId}`);
    const citation = thread.turns[0]!.answer!.citations.find((each) => each.marker.trim() === FALSE_MARKER)!;
    expect(citation.passages.map((passage) => passage.sourceId)).toEqual([null]);
    const page = await openPage(`/#thread=${threadId}`);
    const chips = page.locator("#turns .chip");
    await chips.first().waitFor();
    expect(await chips.evaluateAll((all) => all.map((chip) => [chip.textContent, chip.className]))).toEqual([
      [thread.turns[0]!.answer!.citations[0]!.marker.trim(), "chip"],
      [FALSE_MARKER, "chip unresolved"],
    ]);
    await chips.nth(1).click();
    await page.waitForSelector("#passage:not([hidden])");
    await screenshot(page, "03b-marker-naming-nothing");
    expect(await page.textContent("#passage-body")).toContain("names no passage");
    expect(await page.locator("#passage-body blockquote").count()).toBe(0);
  });

  it("shows, in a long thread on the default policy, a compressed result and a cited passage kept whole, as explain says", async () => {
    let threadId: string | null = null;
    for (const topic of TOPICS.slice(0, 7)) threadId = await turnOverHttp("researcher", topicQuestion(topic), threadId);
    const thread = await getJson<ThreadJson>(`/threads/${threadId}`);
    const n = thread.turns.at(-1)!.calls.at(-1)!;
    const call = await getJson<{
      explain: { result: string; form: string; by: string }[];
      kept: { result: string; id: string; form: string; text: string }[];
      window: { tokens: number; limit: number };
      request: { messages: { role: string; content: string }[] };
    }>(`/threads/${threadId}/calls/${n}`);
    const compressed = call.explain.filter((row) => row.form === "COMPRESSED").map((row) => row.result);
    expect(compressed.length).toBeGreaterThan(0);
    const kept = call.kept.find((element) => compressed.includes(element.result) && element.form === "FULL")!;
    expect(kept).toBeDefined();
    // The rebuilt request holds the kept passage whole, and not its result's other passages.
    const toolTexts = call.request.messages
      .filter((message) => message.role === "tool")
      .map((message) => message.content);
    expect(toolTexts.some((text) => text.includes(kept.text))).toBe(true);
    const others = LONG_LIBRARY.document(kept.id.split("#")[0]!).filter((section) => section.id !== kept.id);
    for (const other of others) expect(toolTexts.some((text) => text.includes(other.text))).toBe(false);

    const page = await openPage(`/#thread=${threadId}`);
    // Tokens and cost per turn and per call, as the API gives them (the scripted model reports none: estimated).
    const usageLine = (usage: { promptTokens: number; completionTokens: number; cost: number | null }) =>
      `${(usage.promptTokens + usage.completionTokens).toLocaleString("en")} tokens (estimated): ` +
      `${usage.promptTokens.toLocaleString("en")} in, ${usage.completionTokens.toLocaleString("en")} out · ` +
      (usage.cost === null ? "no price" : `$${usage.cost.toFixed(4)}`);
    const turnUsage = (thread.turns.at(-1) as unknown as { usage: Parameters<typeof usageLine>[0] }).usage;
    expect(turnUsage.cost).toBeGreaterThan(0);
    expect(await page.textContent('#turns > li:last-child [data-usage="turn"]')).toBe(usageLine(turnUsage));
    await page.locator(`#turns > li:last-child button[data-call="${n}"]`).click();
    await page.waitForSelector("#explain");
    const callUsage = (call as unknown as { usage: Parameters<typeof usageLine>[0] }).usage;
    expect(await page.textContent('[data-usage="call"]')).toBe(usageLine(callUsage));
    await screenshot(page, "04-what-the-model-saw");
    const rows = await page.$$eval("#explain tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)),
    );
    expect(rows).toEqual(call.explain.map((row) => [row.result, row.form, row.by]));
    const keptBox = page.locator(`.kept[data-element="${kept.id}"]`);
    expect(await keptBox.locator("blockquote").textContent()).toBe(kept.text);
    expect(await keptBox.textContent()).toContain("FULL");
    expect(await page.getAttribute("#window-meter", "value")).toBe(String(call.window.tokens));
    expect(await page.getAttribute("#window-meter", "max")).toBe(String(call.window.limit));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator("#saw-title").scrollIntoViewIfNeeded();
    await screenshot(page, "05-what-the-model-saw-phone");
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "06-thread-phone");
  });

  it("resumes the answer after a reload mid-turn without repeating text", async () => {
    const page = await openPage();
    await ask(page, "slow", QUESTION);
    await page.waitForFunction(() => (window as unknown as { seen: Seen }).seen.states.length >= 3);
    await screenshot(page, "07-before-reload");
    const before = await seenOf(page);
    expect(before.states.at(-1)).not.toBe(ANSWER);
    // The reasoning streamed before the text is there, folded away.
    const reasoning = page.locator("#turns > li:last-child details.reasoning");
    expect(await reasoning.getAttribute("open")).toBeNull();
    expect(await reasoning.locator("summary").textContent()).toBe("Reasoning");
    expect(await reasoning.locator("p").textContent()).toBe(SLOW_REASONING);
    await page.reload();
    const { states, mostAnswers } = await streamedAnswer(page, 2, [
      "08-after-reload-streaming",
      "09-after-reload-complete",
    ]);
    // After the reload: each state is a piece of the answer that only grows, never a repeat; then the whole.
    for (const state of states) expect(ANSWER.includes(state), state).toBe(true);
    for (const [index, state] of states.slice(1).entries())
      if (state !== ANSWER) expect(state.startsWith(states[index]!), state).toBe(true);
    expect(states.filter((state) => state !== ANSWER).length).toBeGreaterThanOrEqual(1);
    expect(states.at(-1)).toBe(ANSWER);
    expect(mostAnswers).toBe(1);
  });

  it("cancels the running turn from its button and shows that it was cancelled", async () => {
    rmSync(hangFile);
    try {
      const page = await openPage();
      await ask(page, "assistant", QUESTION);
      await page.waitForSelector("#cancel:not([hidden])");
      while (!existsSync(hangFile)) await sleep(50);
      await screenshot(page, "10-running-with-cancel");
      await page.click("#cancel");
      await page.waitForSelector("#status:has-text('The turn was cancelled.')");
      await screenshot(page, "11-cancelled");
      expect(await page.isHidden("#cancel")).toBe(true);
      expect(await page.textContent("#turns > li:last-child")).toMatch(/Cancel/);
      expect(await page.textContent("#turns > li:last-child .badge")).toBe("cancelled");
      const thread = await getJson<ThreadJson>(`/threads/${await threadIdOf(page)}`);
      expect(thread.running).toBe(false);
    } finally {
      writeFileSync(hangFile, "no hang");
    }
  });

  it("asks a person: approve one booking, deny one with a reason, answer the question, then the turn ends", async () => {
    const page = await openPage();
    await ask(page, "town", "Please book pickups for my old sofa and the fridge.");
    const approvals = page.locator("#requests article.request.approval");
    await page.waitForFunction(() => document.querySelectorAll("#requests article.approval").length === 2);
    expect(await page.isVisible("#requests")).toBe(true);
    expect(await page.textContent("#status")).toBe("The turn waits for you: 2 requests below.");
    // A page opened on the waiting thread (here, reloaded) lists them too: no event is needed to show them.
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll("#requests article.approval").length === 2);
    await screenshot(page, "12-two-approvals");
    // Each approval names its tool and shows its arguments, as text (the fridge's has markup in it).
    const sofa = page.locator('#requests article[data-request="sofa:approval"]');
    const fridge = page.locator('#requests article[data-request="fridge:approval"]');
    expect(await approvals.count()).toBe(2);
    expect(await sofa.locator("h3").textContent()).toBe("Approve book_pickup?");
    expect(JSON.parse((await sofa.locator("pre.arguments").textContent())!)).toEqual({ items: BOOKINGS.sofa });
    expect(JSON.parse((await fridge.locator("pre.arguments").textContent())!)).toEqual({ items: BOOKINGS.fridge });
    expect(await page.locator("#requests shelves").count()).toBe(0);
    // The calls in the thread say that they wait, not that they run.
    const waitingCalls = page.locator("#turns [data-tool-call]");
    // (The thread and its requests are fetched one after the other: poll until both show the second request.)
    await expect
      .poll(() => waitingCalls.allTextContents())
      .toEqual([
        `Tool book_pickup(${JSON.stringify({ items: BOOKINGS.sofa })})Waits for approval.`,
        `Tool book_pickup(${JSON.stringify({ items: BOOKINGS.fridge })})Waits for approval.`,
      ]);

    // Deny the fridge with a reason (markup too: it must stay text), then approve the sofa.
    const reason = "The fridge stays <img src=x onerror=alert(1)> for now.";
    await fridge.getByLabel("Reason").fill(reason);
    // Enter in the reason decides nothing: it takes a button.
    await fridge.getByLabel("Reason").press("Enter");
    await fridge.getByRole("button", { name: "Deny" }).click();
    await page.waitForSelector('#requests article[data-request="fridge:approval"]', { state: "detached" });
    await sofa.getByRole("button", { name: "Approve" }).click();

    // The approved booking runs and asks for its slot: a form from the question's schema.
    const question = page.locator('#requests article[data-request="sofa:ask:0"]');
    await question.waitFor();
    expect(await approvals.count()).toBe(0);
    expect(await question.locator("h3").textContent()).toBe("Question from book_pickup");
    expect(await question.locator(".request-text").textContent()).toBe(
      `When should the crew pick up ${BOOKINGS.sofa}?`,
    );
    const date = question.getByLabel("date");
    expect(await date.getAttribute("type")).toBe("text");
    expect(await date.getAttribute("required")).toBe("");
    expect(await question.locator("select option").allTextContents()).toEqual(["Choose…", "morning", "afternoon"]);
    const pieces = question.getByLabel("pieces");
    expect([
      await pieces.getAttribute("type"),
      await pieces.getAttribute("min"),
      await pieces.getAttribute("max"),
    ]).toEqual(["number", "1", "20"]);
    expect(await question.getByLabel("callAhead").getAttribute("type")).toBe("checkbox");
    expect(await question.locator('[data-field="date"] small').textContent()).toBe(
      "The day of the pickup, as YYYY-MM-DD.",
    );
    await screenshot(page, "13-question-form");
    await page.setViewportSize({ width: 390, height: 844 });
    await question.scrollIntoViewIfNeeded();
    await screenshot(page, "13b-question-form-phone");
    await page.setViewportSize({ width: 1280, height: 800 });

    // An answer the app refuses (the browser's own check turned off) names its field, and records nothing.
    await question.locator("form").evaluate((form: HTMLFormElement) => (form.noValidate = true));
    await date.fill("tomorrow");
    await question.getByLabel("time").selectOption("afternoon");
    await pieces.fill("3");
    await question.getByLabel("callAhead").check();
    await question.getByRole("button", { name: "Answer" }).click();
    await question.locator(".request-status.failure").waitFor();
    expect(await question.locator(".request-status").textContent()).toMatch(/date/);
    expect(await date.getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-invalid"))).toBe("true");
    await screenshot(page, "14-answer-refused");
    await date.fill("2026-12-01");
    await question.getByRole("button", { name: "Answer" }).click();
    await page.waitForSelector("#status:has-text('The turn completed.')");
    await screenshot(page, "15-decisions-in-the-thread");

    // The turn ended: nothing waits; each call shows what the person decided, the reason as text.
    expect(await page.isHidden("#requests")).toBe(true);
    const slot = { date: "2026-12-01", time: "afternoon", pieces: 3, callAhead: true };
    const sofaCall = page.locator('#turns [data-tool-call="sofa"]');
    const fridgeCall = page.locator('#turns [data-tool-call="fridge"]');
    expect(await sofaCall.locator('[data-request="sofa:approval"]').textContent()).toBe("approved");
    expect(await sofaCall.locator('[data-request="sofa:ask:0"] code').textContent()).toBe(JSON.stringify(slot));
    expect(await sofaCall.locator(".result").textContent()).toMatch(/^Booked the pickup of an old sofa on 2026-12-01/);
    expect(await fridgeCall.locator('[data-request="fridge:approval"]').textContent()).toBe(`denied ${reason}`);
    expect(await fridgeCall.locator(".result").textContent()).toContain(`denied this call of book_pickup: ${reason}`);
    expect(await page.locator("img").count()).toBe(0);

    // The trace holds each decision once, and the model read them: the denial's reason is in its answer.
    const threadId = await threadIdOf(page);
    // The store holds the reference's wire format: `request_id`, the answer under `payload`.
    const responses: unknown[] = [];
    for await (const entry of stack.store.store.read(threadId))
      if (entry.event.type === "response") responses.push(entry.event.payload);
    expect(responses).toEqual([
      { request_id: "fridge:approval", call_id: "fridge", payload: { approved: false, reason } },
      { request_id: "sofa:approval", call_id: "sofa", payload: { approved: true } },
      { request_id: "sofa:ask:0", call_id: "sofa", payload: slot },
    ]);
    const thread = await getJson<ThreadJson>(`/threads/${threadId}`);
    const answer = thread.turns.at(-1)!.answer!.text;
    expect(answer).toContain(reason);
    expect(answer, answer).toContain("Booked the pickup of an old sofa on 2026-12-01");
    expect(answer.startsWith(bookingAnswer([""]))).toBe(true);
    expect(await page.textContent("#turns > li:last-child .answer .text")).toBe(answer);
  });

  it("builds a question's form from its schema, falling back to JSON where it cannot draw a field", async () => {
    const page = await openPage();
    // The page's own module, run in the page: the payload each filled-in form gives, or the error it throws.
    // (A string, so that vitest leaves its import() alone.)
    await page.evaluate(
      "import('/playground/schema-form.js').then((module) => { window.schemaForm = module.schemaForm; })",
    );
    const results = await page.evaluate(() => {
      const { schemaForm } = window as unknown as { schemaForm: typeof SchemaFormOf };
      const fill = (schema: unknown, values: Record<string, string | boolean>) => {
        const form = schemaForm(schema, `t${Math.random().toString(36).slice(2)}`);
        const holder = document.createElement("form");
        holder.append(...form.elements);
        document.body.append(holder);
        const kinds = form.elements.map((element) => {
          const control = element.querySelector("input, select, textarea")!;
          return control.tagName === "INPUT" ? (control as HTMLInputElement).type : control.tagName.toLowerCase();
        });
        for (const element of form.elements) {
          const control = element.querySelector<HTMLInputElement>("input, select, textarea")!;
          const value = values[element.dataset.field ?? ""];
          if (typeof value === "boolean") control.checked = value;
          else if (value !== undefined) control.value = value;
        }
        try {
          return { kinds, payload: form.payload() as unknown };
        } catch (error) {
          return { kinds, error: (error as Error).message };
        } finally {
          holder.remove();
        }
      };
      return {
        anyJson: fill(null, { "": '{"a": [1, 2]}' }),
        anyText: fill(null, { "": "just words" }),
        bare: fill({ type: "boolean" }, { "": true }),
        numbers: fill({ enum: [1, 2, 3] }, { "": "2" }),
        mixed: fill(
          {
            type: "object",
            properties: {
              tags: { type: "array", items: { type: "string" } },
              note: { type: ["string", "null"] },
              size: { type: "number" },
              when: { type: "string", format: "date" },
            },
            required: ["tags"],
          },
          { tags: '["a", "b"]', note: "", size: "", when: "2026-12-01" },
        ),
        badJson: fill({ type: "object", properties: { tags: { type: "array" } } }, { tags: "[1," }),
      };
    });
    expect(results.anyJson).toEqual({ kinds: ["textarea"], payload: { a: [1, 2] } });
    expect(results.anyText).toEqual({ kinds: ["textarea"], payload: "just words" });
    expect(results.bare).toEqual({ kinds: ["checkbox"], payload: true });
    expect(results.numbers).toEqual({ kinds: ["select"], payload: 2 });
    // An array is JSON; an empty nullable field is null; an empty optional one is left out.
    expect(results.mixed).toEqual({
      kinds: ["textarea", "text", "number", "date"],
      payload: { tags: ["a", "b"], note: null, when: "2026-12-01" },
    });
    expect(results.badJson.error).toMatch(/^tags: /);
  });
});
