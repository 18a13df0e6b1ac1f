// A chat page built with the AI SDK's React useChat (test/fixtures/app/chat-page, bundled by esbuild and served
// from the app's origin) in Debian's chromium, against the real app, worker and Temporal dev server on the
// scripted streaming model: the page streams a turn through the UI message stream opened by a browser token
// alone, and shows the answer as it is written, the tool call and the cited source. In the same browser an
// EventSource follows the thread with the token; a token of another thread and an expired one are refused.
// Screenshots go to test-results/use-chat/.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANSWER, StreamingModel } from "../fixtures/app/streaming.js";
import { addChatPage } from "../fixtures/app/chat-page/serve.js";
import { launchBrowser } from "./browser.js";
import { startAppStack, type AppStack } from "./stack.js";

const QUESTION = "How often is bulky waste picked up?";
const SHOTS = join("test-results", "use-chat");
/** How far the app's clock is ahead of the machine's: the expiry test moves it past a token's lifetime. */
const skew = { ms: 0 };

let stack: AppStack;
let browser: Browser | null = null;

beforeAll(async () => {
  stack = await startAppStack({
    model: new StreamingModel({ pause: 40 }),
    app: { tokenSecret: "the-secret-of-the-use-chat-test-32-bytes", clock: { now: () => Date.now() + skew.ms } },
  });
  await addChatPage(stack.app.hono);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** What the page recorded: each text of the assistant's answer while it grew, and what the CSP blocked. */
interface Seen {
  states: string[];
  violations: string[];
}

/** Open the chat page with alice's key, ask QUESTION, and wait for the answer with its source; screenshots. */
async function askOnPage(shots: string): Promise<{ page: Page; streams: string[] }> {
  browser ??= await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  await context.addInitScript(() => {
    const seen = { states: [] as string[], violations: [] as string[] };
    (window as unknown as { seen: typeof seen }).seen = seen;
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.violations.push(`${event.effectiveDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`),
    );
    const record = () => {
      const text = document.querySelector(".message.assistant .text")?.textContent ?? "";
      if (text !== "" && seen.states.at(-1) !== text) seen.states.push(text);
    };
    document.addEventListener("DOMContentLoaded", () =>
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true }),
    );
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  // The UI message streams the page opened, with the Authorization header each sent (none: the token opens it).
  const streams: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/ui-stream"))
      streams.push(`${request.url()} authorization=${request.headers().authorization ?? "none"}`);
  });
  await page.goto(`${stack.served.url}/chat?key=alice-key`);
  await page.fill("#input", QUESTION);
  await page.press("#input", "Enter");
  await page.waitForFunction(() => (window as unknown as { seen: Seen }).seen.states.length >= 2);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${shots}-streaming.png`) });
  await page.waitForSelector("#status:text-is('ready')");
  await page.screenshot({ path: join(SHOTS, `${shots}-answered.png`), fullPage: true });
  expect(errors).toEqual([]);
  return { page, streams };
}

/** Open an EventSource on `url` in the page: the trace events' ids and types and the end, or how it failed. */
function followInPage(page: Page, url: string) {
  return page.evaluate(
    (source) =>
      new Promise<{ ids: number[]; types: string[]; end: unknown; failed: string | null }>((resolve) => {
        const events = new EventSource(source);
        const seen = {
          ids: [] as number[],
          types: [] as string[],
          end: null as unknown,
          failed: null as string | null,
        };
        events.addEventListener("event", (event) => {
          seen.ids.push(Number((event as MessageEvent).lastEventId));
          seen.types.push((JSON.parse((event as MessageEvent).data) as { type: string }).type);
        });
        events.addEventListener("end", (event) => {
          seen.end = JSON.parse((event as MessageEvent).data);
          events.close();
          resolve(seen);
        });
        events.onerror = () => {
          // A refusal (a status other than 200) closes the EventSource for good: read the problem's detail.
          if (events.readyState !== EventSource.CLOSED) return;
          void fetch(source)
            .then(async (response) => `${response.status} ${((await response.json()) as { detail: string }).detail}`)
            .then((failed) => resolve({ ...seen, failed }));
        };
      }),
    url,
  );
}

async function storedPositions(threadId: string): Promise<number[]> {
  const positions: number[] = [];
  for await (const entry of stack.store.store.read(threadId)) positions.push(entry.position);
  return positions;
}

describe("a useChat page on the app", () => {
  it("streams a turn with its text and sources, and an EventSource follows the thread with the token", async () => {
    const { page, streams } = await askOnPage("use-chat");
    const answer = page.locator(".message.assistant");
    expect(await answer.locator(".text").allTextContents()).toEqual([ANSWER]);
    expect(await answer.locator(".tool").textContent()).toMatch(
      /^search\(\{"query":"bulky waste"\}\): output-available/,
    );
    const sources = await answer.locator(".source").allTextContents();
    expect(sources).toHaveLength(1);
    expect(sources[0]).toMatch(/^\[2\] \S/);
    const seen = await page.evaluate(() => (window as unknown as { seen: Seen }).seen);
    expect(seen.violations).toEqual([]);
    // The answer grew on the page while the model wrote it: the first text seen is a strict beginning of it.
    expect(seen.states.length).toBeGreaterThan(2);
    expect(ANSWER.startsWith(seen.states[0]!) && seen.states[0]!.length < ANSWER.length).toBe(true);
    expect(streams).toHaveLength(1);
    expect(streams[0]).toMatch(/\/ui-stream\?token=[^&]+&after=0 authorization=none$/);

    const events = await page.evaluate(() => document.body.dataset.events!);
    const threadId = decodeURIComponent(new URL(events).pathname.split("/")[2]!);
    const followed = await followInPage(page, events);
    expect(followed.failed).toBeNull();
    expect(followed.ids).toEqual(await storedPositions(threadId));
    expect(followed.types).toEqual(expect.arrayContaining(["input", "model_output", "tool_output"]));
    expect(followed.end).toMatchObject({ status: "completed" });

    const elsewhere = events.replace(`/threads/${encodeURIComponent(threadId)}/`, "/threads/another-thread/");
    const refused = await followInPage(page, elsewhere);
    expect(refused.failed).toMatch(new RegExp(`^401 The token opens thread "${threadId}", not this one\\.`));
    expect(refused.ids).toEqual([]);
    await page.context().close();
  });

  it("refuses the page's token once it expired, saying to ask for a new one", async () => {
    const { page } = await askOnPage("use-chat-expiry");
    const events = await page.evaluate(() => document.body.dataset.events!);
    skew.ms = 5 * 60_000;
    try {
      const refused = await followInPage(page, events);
      expect(refused.failed).toMatch(/^401 The token expired at .* POST \/threads\/\{threadId\}\/token/);
    } finally {
      skew.ms = 0;
    }
    expect((await followInPage(page, events)).end).toMatchObject({ status: "completed" });
    await page.context().close();
  });
});
