/**
 * GET /docs: the OpenAPI document in Swagger UI (swagger-ui-dist, served by the app itself: no CDN, and the app's
 * content security policy holds: the page's script is a file of its own, not inline).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-parts.js";

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>soev-agents API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

const INIT_JS = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });\n`;

/** The files of swagger-ui-dist the page loads, by route, with their media types. */
const ASSETS = {
  "/docs/swagger-ui.css": { file: "swagger-ui.css", type: "text/css; charset=utf-8" },
  "/docs/swagger-ui-bundle.js": { file: "swagger-ui-bundle.js", type: "text/javascript; charset=utf-8" },
} as const;

/** Mount /docs and its assets; each asset is read once, on its first request, and kept by these routes. */
export function docsRoutes(hono: OpenAPIHono<AppEnv>): void {
  const folder = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const read = new Map<string, Promise<string>>();
  hono.get("/docs", (c) => c.html(DOCS_HTML));
  hono.get("/docs/init.js", (c) => c.body(INIT_JS, 200, { "content-type": "text/javascript; charset=utf-8" }));
  for (const [route, { file, type }] of Object.entries(ASSETS))
    hono.get(route, async (c) => {
      if (!read.has(file)) read.set(file, readFile(join(folder, file), "utf8"));
      return c.body(await read.get(file)!, 200, { "content-type": type, "cache-control": "public, max-age=86400" });
    });
}
