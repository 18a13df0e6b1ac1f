// GET /docs: the OpenAPI document in Swagger UI, served by the app (no CDN), under the app's content security
// policy: in Chromium the page lists every route of the document and logs no CSP violation.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { serveApp, type ServedApp } from "../../src/app/serve.js";
import { memoryApp } from "../fixtures/app/memory-app.js";
import { launchBrowser, screenshot } from "./browser.js";

let browser: Browser;
let served: ServedApp;

beforeAll(async () => {
  const { app } = await memoryApp();
  served = await serveApp(app, { port: 0, signals: false });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await served?.close();
});

it("shows every route of the OpenAPI document, from the app's own files, with no CSP violation", async () => {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  const outside: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(served.url)) outside.push(request.url());
  });
  await page.goto(`${served.url}/docs`);
  await page.waitForSelector(".opblock-summary-path");
  const shown = await page.$$eval(".opblock", (blocks) =>
    blocks.map(
      (block) =>
        `${block.querySelector(".opblock-summary-method")?.textContent} ${block.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`,
    ),
  );
  const document = (await (await fetch(`${served.url}/openapi.json`)).json()) as { paths: Record<string, object> };
  const routes = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  expect(new Set(shown)).toEqual(new Set(routes));
  await screenshot(page, "07-api-docs");
  expect(problems.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
  expect(outside).toEqual([]);
});
