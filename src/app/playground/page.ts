/**
 * The playground: a page at `/` to talk to an agent and see what it read, cited and was shown. It is
 * static: the HTML below and the script of client.ts, whose only backend is the app's routes.
 */
import { readFile } from "node:fs/promises";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-parts.js";
import { ProblemError } from "../problems.js";

/** The page: its controls are labelled, its regions named; the script fills them. */
export const PLAYGROUND_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>soev-agents playground</title>
<link rel="stylesheet" href="/playground.css">
<script type="module" src="/playground/client.js"></script>
</head>
<body>
<header class="bar">
  <h1>soev-agents playground</h1>
  <form id="key-form" class="inline">
    <label for="api-key">API key</label>
    <input id="api-key" name="api-key" type="password" autocomplete="off" required>
    <button type="submit">Use key</button>
  </form>
  <label for="agent">Agent</label>
  <select id="agent" name="agent"></select>
  <button type="button" id="new-thread">New thread</button>
  <form id="rerun-form" class="inline">
    <label for="rerun-batch">Re-run batch</label>
    <input id="rerun-batch" name="rerun-batch" autocomplete="off" size="10" required>
    <button type="submit">Open report</button>
  </form>
</header>
<main class="layout">
  <nav aria-labelledby="threads-title" class="panel">
    <h2 id="threads-title">Your threads</h2>
    <ul id="threads" class="threads"></ul>
  </nav>
  <section aria-labelledby="chat-title" class="panel chat" id="chat">
    <section id="rerun" class="rerun" aria-labelledby="rerun-title" hidden>
      <h2 id="rerun-title">Re-run report</h2>
      <div id="rerun-body"></div>
    </section>
    <div class="thread-head">
      <h2 id="chat-title">New thread</h2>
      <p id="links" class="links"></p>
    </div>
    <div class="conversation">
      <ol id="turns" class="turns" aria-live="polite"></ol>
      <section id="requests" class="requests" aria-labelledby="requests-title" hidden>
        <h2 id="requests-title">Waiting for you</h2>
        <div id="request-list" aria-live="polite"></div>
      </section>
    </div>
    <p id="status" role="status" class="status"></p>
    <form id="ask" class="ask">
      <label for="question">Message <span class="hint">(Enter sends, Shift+Enter a new line; a JSON object is sent as one)</span></label>
      <textarea id="question" name="question" rows="3" required></textarea>
      <div class="actions">
        <label for="model">Model</label>
        <input id="model" name="model" placeholder="the app's default">
        <button type="submit" id="send">Send</button>
        <button type="button" id="cancel" hidden>Cancel turn</button>
      </div>
    </form>
  </section>
  <aside aria-label="Details" class="panel details">
    <section id="passage" aria-labelledby="passage-title" hidden>
      <h2 id="passage-title">Cited passage</h2>
      <div id="passage-body"></div>
    </section>
    <section id="saw" aria-labelledby="saw-title">
      <h2 id="saw-title">What the model saw</h2>
      <div id="saw-body"><p class="muted">Choose a model call of a turn to see its request as replay rebuilds it.</p></div>
    </section>
  </aside>
</main>
</body>
</html>
`;

/** The page's style: one column on a phone, three from a laptop's width. */
export const PLAYGROUND_CSS = `
:root { color-scheme: light dark; --line: #8884; --accent: #2b6cb0; --bad: #c53030; --soft: #8881; font: 15px/1.45 system-ui, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; height: 100vh; display: flex; flex-direction: column; }
h1 { font-size: 1.1rem; margin: 0 auto 0 0; }
h2 { font-size: 1rem; margin: 0 0 .5rem; }
h3 { font-size: .95rem; margin: 1rem 0 .4rem; }
button, input, select, textarea { font: inherit; }
button { cursor: pointer; border: 1px solid var(--line); border-radius: 6px; background: var(--soft); padding: .3rem .7rem; }
button:hover { border-color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
input, select, textarea { border: 1px solid var(--line); border-radius: 6px; padding: .3rem .5rem; background: transparent; color: inherit; }
.bar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; padding: .6rem 1rem; border-bottom: 1px solid var(--line); }
.inline { display: flex; gap: .4rem; align-items: center; }
.layout { display: grid; grid-template-columns: 15rem minmax(0, 1fr) minmax(0, 26rem); flex: 1; min-height: 0; }
.panel { padding: .8rem 1rem; overflow: auto; border-right: 1px solid var(--line); }
.details { border-right: 0; }
.chat { display: flex; flex-direction: column; overflow: hidden; }
.details section:not([hidden]) + section { margin-top: 1.5rem; }
.threads { list-style: none; padding: 0; margin: 0; }
.threads button { width: 100%; text-align: left; margin-bottom: .3rem; background: transparent; }
.threads button[aria-current="true"] { border-color: var(--accent); background: var(--soft); }
.threads small { display: block; opacity: .7; }
.thread-head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .5rem; }
.links { margin: 0; }
.conversation { flex: 1; min-height: 0; overflow: auto; }
.turns { list-style: none; padding: 0; margin: 0; }
.turn { border-bottom: 1px solid var(--line); padding: .6rem 0; }
.user { font-weight: 600; white-space: pre-wrap; }
.answer { white-space: pre-wrap; margin: .4rem 0; }
.missed, .stopped { opacity: .6; }
.chip { padding: 0 .35rem; border-radius: 999px; font-size: .85em; background: #2b6cb022; border-color: #2b6cb066; }
.chip.unresolved { background: #c5303022; border: 1px dashed var(--bad); text-decoration: line-through; }
.tool { border-left: 3px solid var(--line); padding: .2rem .6rem; margin: .3rem 0; font-size: .9em; }
.tool code { word-break: break-all; }
.tool .result { opacity: .85; white-space: pre-wrap; margin: .2rem 0 0; }
.failure { color: var(--bad); }
.badge { display: inline-block; font-size: .8em; padding: 0 .4rem; border-radius: 4px; border: 1px solid currentColor; margin-left: .3rem; }
.calls { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; font-size: .9em; }
.usage { font-size: .85em; opacity: .75; margin: .2rem 0; }
.status { min-height: 1.4em; margin: .4rem 0; }
.status.bad { color: var(--bad); }
.ask label { display: block; font-weight: 600; }
.hint { font-weight: 400; opacity: .7; font-size: .85em; }
.ask textarea { width: 100%; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .4rem; }
.actions input { flex: 1; min-width: 8rem; }
.muted { opacity: .7; }
blockquote { margin: .3rem 0; padding: .3rem .6rem; border-left: 3px solid var(--accent); background: var(--soft); white-space: pre-wrap; max-height: 14rem; overflow: auto; }
table { border-collapse: collapse; width: 100%; font-size: .9em; table-layout: fixed; }
th:nth-child(1) { width: 3.5rem; } th:nth-child(2) { width: 7.5rem; } th:nth-child(4) { width: 4.5rem; }
td code { white-space: normal; word-break: break-word; }
th, td { text-align: left; border-bottom: 1px solid var(--line); padding: .2rem .3rem; vertical-align: top; }
.form-COMPRESSED { color: #b7791f; font-weight: 600; }
.form-STUBBED { color: var(--bad); font-weight: 600; }
.form-FULL { color: #2f855a; font-weight: 600; }
meter { width: 100%; height: 1.2rem; }
.rerun { flex: 1; min-height: 0; overflow: auto; }
.chat.rerun-open > :not(.rerun):not(.status) { display: none; }
#rerun-totals { width: auto; table-layout: auto; margin-bottom: .5rem; }
#rerun-totals th { width: auto; font-weight: 400; padding-right: 1.5rem; }
#rerun-turns th:nth-child(1) { width: 9rem; } #rerun-turns th:nth-child(2) { width: 3rem; } #rerun-turns th:nth-child(4) { width: auto; }
#rerun-turns td { white-space: pre-wrap; word-break: break-word; }
#rerun-turns blockquote { font-size: .9em; }
#rerun-turns blockquote[data-side="recorded"] { border-left-color: var(--line); text-decoration: line-through; opacity: .75; }
tr.rerun-changed { background: #c5303014; }
#whatif { border: 1px solid var(--line); border-radius: 8px; padding: .2rem .7rem .5rem; margin: .5rem 0; }
#whatif-verdict.same { color: #2f855a; font-weight: 600; }
#whatif-verdict.differs { color: #b7791f; font-weight: 600; }
.requests { border: 2px solid var(--accent); border-radius: 8px; padding: .5rem .8rem; margin: .5rem 0; }
.request + .request { border-top: 1px solid var(--line); margin-top: .6rem; padding-top: .6rem; }
.request h3 { margin: 0 0 .3rem; }
.request pre.arguments { margin: .2rem 0; padding: .3rem .5rem; background: var(--soft); border-radius: 6px; white-space: pre-wrap; word-break: break-word; max-height: 10rem; overflow: auto; }
.request-text { white-space: pre-wrap; margin: .2rem 0; }
.request fieldset { border: 0; padding: 0; margin: 0; }
.request .field { display: flex; flex-direction: column; gap: .15rem; margin: .35rem 0; }
.request .field.check { flex-direction: row; flex-wrap: wrap; align-items: center; gap: .4rem; }
.request .field.check small { flex-basis: 100%; }
.request textarea.json { font-family: ui-monospace, monospace; }
.request [aria-invalid="true"] { border-color: var(--bad); outline: 2px solid var(--bad); }
.request button.approve { border-color: #2f855a; }
.request button.deny { border-color: var(--bad); }
.request-status { margin: .3rem 0 0; min-height: 1.2em; }
.decision { margin: .2rem 0 0; white-space: pre-wrap; }
.decision .badge { margin: 0 .2rem 0 0; }
.decision.approved .badge { color: #2f855a; }
.decision.denied .badge { color: var(--bad); }
.messages { padding-left: 1.2rem; }
.messages pre { white-space: pre-wrap; word-break: break-word; font-size: .85em; max-height: 20rem; overflow: auto; margin: .2rem 0; }
@media (max-width: 800px) {
  body { height: auto; }
  .layout { grid-template-columns: 1fr; }
  .panel, .chat, .conversation { border-right: 0; border-bottom: 1px solid var(--line); overflow: visible; }
  .layout nav { order: 2; }
  .details { order: 3; }
}
`;

/**
 * The page's scripts, served at `/playground/<name>.js`: client.js is the page's, the others the modules
 * it imports (their imports are relative, so the browser asks for them next to it).
 */
export const PLAYGROUND_MODULES = [
  "client",
  "dom",
  "requests-panel",
  "schema-form",
  "rerun-view",
  "what-if-panel",
] as const;

/**
 * One of the page's scripts: <name>.js next to this module (tsc builds it at `npm run build`); from the
 * sources (tsx, the tests) it is <name>.ts compiled by the TypeScript compiler, which is there in development.
 */
async function moduleScript(name: string): Promise<string> {
  try {
    return await readFile(new URL(`./${name}.js`, import.meta.url), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const source = await readFile(new URL(`./${name}.ts`, import.meta.url), "utf8");
  const typescript = (await import("typescript")).default;
  return typescript.transpileModule(source, {
    compilerOptions: { target: typescript.ScriptTarget.ES2022, module: typescript.ModuleKind.ESNext },
  }).outputText;
}

/** Serve the playground: the page at `/`, its scripts and its style. They need no API key; the page asks for one. */
export function playgroundRoutes(hono: OpenAPIHono<AppEnv>): void {
  // Each script is read (or compiled) once per app; a failure is not kept, so the next request tries again.
  const scripts = new Map<string, Promise<string>>();
  const script = (name: string): Promise<string> => {
    let loading = scripts.get(name);
    if (loading === undefined) {
      loading = moduleScript(name).catch((error: unknown) => {
        scripts.delete(name);
        throw new ProblemError(
          500,
          "Playground script missing",
          `The playground's script ${name}.js could not be read or compiled (${String(error)}): run \`npm run build\`.`,
        );
      });
      scripts.set(name, loading);
    }
    return loading;
  };
  hono.get("/", (c) => c.html(PLAYGROUND_HTML));
  hono.get("/playground.css", (c) => c.body(PLAYGROUND_CSS, 200, { "content-type": "text/css; charset=utf-8" }));
  for (const name of PLAYGROUND_MODULES)
    hono.get(`/playground/${name}.js`, async (c) =>
      c.body(await script(name), 200, { "content-type": "text/javascript; charset=utf-8" }),
    );
}
