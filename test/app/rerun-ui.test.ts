// The comparison in the app: a re-run batch's report (GET /reruns/{batchId} and the playground's report view)
// and the what-if view next to "what the model saw", against the real app, worker and Temporal dev server,
// with scripted models. Screenshots go to test-results/playground/.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRerun } from "../../src/temporal/rerun.js";
import { TOWN_MODEL } from "../fixtures/temporal/town.js";
import { changedByCandidate, rerunCatalog, rerunQuestion, searchOnlyAgent } from "../fixtures/rerun-catalog.js";
import { launchBrowser, screenshot } from "./browser.js";
import { startAppStack, type AppStack } from "./stack.js";

const ALICE = { authorization: "Bearer alice-key" };
const BOB = { authorization: "Bearer bob-key" };
const RECORDED = 3;

let stack: AppStack;
let browser: Browser | null = null;
let alices: string[] = [];
let bobs: string;
let batchId: string;

/** Record a thread of the assistant through the app for `headers`' principal, and wait for its turn to end. */
async function record(headers: Record<string, string>, index: number): Promise<string> {
  const response = await stack.app.hono.request("/threads", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ agent: "assistant", input: rerunQuestion(index), model: TOWN_MODEL }),
  });
  expect(response.status).toBe(202);
  const started = (await response.json()) as { threadId: string; workflowId: string; runId: string };
  await stack.temporal.client.workflow.getHandle(started.workflowId, started.runId).result();
  return started.threadId;
}

async function rerun(id: string, threadIds: string[]): Promise<void> {
  const { taskQueue } = stack.app.parts;
  const batch = await startRerun(stack.temporal.client, {
    batchId: id,
    threadIds,
    agent: "assistant",
    candidate: { agent: "candidate", taskQueue },
    taskQueue,
  });
  await batch.result();
}

beforeAll(async () => {
  stack = await startAppStack({ catalog: (store) => rerunCatalog(store, { "search-only": searchOnlyAgent() }) });
  alices = [];
  for (let index = 0; index < RECORDED; index++) alices.push(await record(ALICE, index));
  bobs = await record(BOB, RECORDED);
  batchId = `ui-${Date.now()}`;
  await rerun(batchId, [...alices, bobs]);
  await rerun(`${batchId}-alice`, [alices[1]!]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const get = (path: string, headers: Record<string, string> = ALICE) => stack.app.hono.request(path, { headers });

it("reports a batch over the caller's own threads as JSON and markdown, and refuses the rest", async () => {
  const response = await get(`/reruns/${batchId}`);
  expect(response.status).toBe(200);
  const view = (await response.json()) as {
    status: string;
    result: { turns: number };
    threads: { original: string }[];
    report: { totals: Record<string, number>; turns: { thread: string; answerChanged: boolean }[] };
  };
  const changed = alices.filter((_, index) => changedByCandidate(index));
  expect(view.status).toBe("COMPLETED");
  expect(view.result.turns).toBe(RECORDED + 1);
  // Only alice's threads: bob's is in the batch but not in her report.
  expect(view.threads.map((pair) => pair.original)).toEqual(alices);
  expect(view.report.totals).toMatchObject({ turns: RECORDED, notRerun: 0, answersChanged: 1, sourcesLost: 1 });
  expect(view.report.turns.filter((turn) => turn.answerChanged).map((turn) => turn.thread)).toEqual(changed);

  const bobsView = (await (await get(`/reruns/${batchId}`, BOB)).json()) as { threads: { original: string }[] };
  expect(bobsView.threads.map((pair) => pair.original)).toEqual([bobs]);

  const markdown = await get(`/reruns/${batchId}?format=markdown`);
  expect(markdown.headers.get("content-type")).toMatch(/^text\/markdown/);
  expect(await markdown.text()).toContain("| Answers changed | 1 (0 the same in meaning) |");

  expect((await stack.app.hono.request(`/reruns/${batchId}`)).status).toBe(401);
  expect((await get("/reruns/no-such-batch")).status).toBe(404);
  // A batch none of whose threads is bob's is not there for him.
  expect((await get(`/reruns/${batchId}-alice`, BOB)).status).toBe(404);
  const paths = Object.keys(((await (await get("/openapi.json")).json()) as { paths: object }).paths);
  expect(paths).toEqual(expect.arrayContaining(["/reruns/{batchId}", "/threads/{threadId}/calls/{n}/whatif"]));
});

it("compares a call's request under another agent, and refuses an unknown agent, call or thread", async () => {
  const whatIf = async (candidate: string, n = 2, headers = ALICE) => {
    const response = await get(`/threads/${alices[1]}/calls/${n}/whatif?candidate=${candidate}`, headers);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  expect((await whatIf("assistant")).body).toMatchObject({ n: 2, agent: "assistant", same: true, difference: null });
  expect((await whatIf("search-only")).body).toMatchObject({
    same: false,
    difference: { toolsRemoved: ["read_document"], toolsAdded: [] },
  });
  expect((await whatIf("nobody")).status).toBe(404);
  expect((await whatIf("assistant", 9)).status).toBe(404);
  expect((await whatIf("assistant", 2, BOB)).status).toBe(404);
  expect((await get(`/threads/${alices[1]}/calls/1/whatif`)).status).toBe(422);
});

/** The playground with alice's key, at `hash`. */
async function openPage(hash: string): Promise<Page> {
  browser ??= await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${stack.served.url}/${hash}`);
  await page.fill("#api-key", "alice-key");
  await page.press("#api-key", "Enter");
  await page.waitForSelector("#agent option", { state: "attached" });
  expect(errors).toEqual([]);
  return page;
}

it("shows the report in the playground, with links that open both threads", async () => {
  const page = await openPage(`#rerun=${batchId}`);
  await page.waitForSelector("#rerun-totals");
  const total = (key: string) => page.textContent(`#rerun-totals [data-total="${key}"] td`);
  expect(await total("rerun")).toBe(`${RECORDED} of ${RECORDED}`);
  expect(await total("answersChanged")).toBe("1 (0 the same in meaning)");
  expect(await total("sourcesLost")).toBe("1");
  const rows = page.locator("#rerun-turns tbody tr");
  expect(await rows.count()).toBe(RECORDED);
  const changed = page.locator('#rerun-turns tr[data-answer="changed"]');
  expect(await changed.count()).toBe(1);
  expect(await changed.getAttribute("data-thread")).toBe(alices[0]);
  expect(await changed.locator('blockquote[data-side="candidate"]').textContent()).toBe("Ask the town office.");
  expect(await changed.locator('blockquote[data-side="recorded"]').textContent()).toMatch(/^You can have bulky waste/);
  expect(await changed.locator('[data-sources="lost"]').textContent()).not.toBe("none");
  expect(await page.locator('#rerun-turns tr[data-answer="same"] [data-sources="lost"]').allTextContents()).toEqual([
    "none",
    "none",
  ]);
  expect(await changed.locator("a[target=_blank]").count()).toBe(2);
  await screenshot(page, "rerun-report");

  await changed.locator('a[data-link="candidate"]').click();
  await page.waitForSelector("#chat-title:has-text('candidate')");
  expect(await page.locator("#turns .answer .text").last().textContent()).toBe("Ask the town office.");
  expect(await page.isHidden("#rerun")).toBe(true);
  await screenshot(page, "rerun-candidate-thread");
});

it("shows next to what the model saw whether another agent's request differs", async () => {
  const page = await openPage(`#thread=${alices[1]}`);
  await page.click('button[data-call="2"]');
  await page.waitForSelector("#whatif-form");
  await page.selectOption("#whatif-agent", "search-only");
  await page.click("#whatif-form button[type=submit]");
  await page.waitForSelector('#whatif-verdict[data-same="false"]');
  expect(await page.textContent('[data-difference="tools-removed"]')).toBe("Tools removed: read_document");
  expect(await page.textContent('[data-difference="characters"]')).toMatch(/^Characters: [\d,]+ → [\d,]+$/);
  await screenshot(page, "whatif-differs");
  await page.selectOption("#whatif-agent", "assistant");
  await page.click("#whatif-form button[type=submit]");
  await page.waitForSelector('#whatif-verdict[data-same="true"]');
  expect(await page.textContent("#whatif-verdict")).toBe("Same: assistant would have sent the recorded request.");
  await screenshot(page, "whatif-same");
});
