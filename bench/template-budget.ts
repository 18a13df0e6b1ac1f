/**
 * Benchmark: the time each template of the adversarial corpus (test/fixtures/prompts/adversarial) takes to
 * load and render, refused or not, and so the worst filter call of the corpus against the render budget's
 * time (RENDER_BUDGET.milliseconds, a last guard: each filter states its size first). Not a test: run
 * `npm run bench -- template`; it writes its section of bench/README.md.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { markdownTable, writeSection } from "./report.js";
import { PromptFile } from "../src/toolkit/index.js";
import { RENDER_BUDGET } from "../src/toolkit/prompts/sandbox.js";

const CORPUS = "test/fixtures/prompts/adversarial";
const RUNS = 5;

// Load and render one file; the outcome is "rendered", "refused at load" or the render error's first words.
function attempt(path: string): string {
  let file: PromptFile;
  try {
    file = PromptFile.loadSync(path);
  } catch {
    return "refused at load";
  }
  try {
    file.forModel(null).system({ citation: "[1]" });
    return "rendered";
  } catch (error) {
    return (error as Error).message.replace(/^the system template failed to render: /, "").slice(0, 60);
  }
}

const rows = readdirSync(CORPUS)
  .filter((name) => name.endsWith(".yaml"))
  .sort()
  .map((name) => {
    const times: number[] = [];
    let outcome = "";
    for (let run = 0; run < RUNS; run += 1) {
      const start = performance.now();
      outcome = attempt(join(CORPUS, name));
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return { name, outcome, median: times[Math.floor(RUNS / 2)]!, worst: times.at(-1)! };
  });

const slowest = [...rows].sort((a, b) => b.worst - a.worst).slice(0, 12);
for (const row of slowest) console.log(`${row.worst.toFixed(1).padStart(8)} ms  ${row.name}  ${row.outcome}`);
const worst = slowest[0]!;
const round = (ms: number) => Math.round(ms * 10) / 10;

writeSection(
  "Prompt templates: the adversarial corpus against the render budget (`template-budget.ts`)",
  `Each of the ${rows.length} templates of \`${CORPUS}\` loaded and rendered ${RUNS} times in this process
(\`PromptFile.loadSync\`, then the base's system prompt with citation "[1]"), refused or not. The budget's time is
${RENDER_BUDGET.milliseconds} ms, a last guard: every filter states the size of what it will make before it starts,
and the steps (${RENDER_BUDGET.steps.toLocaleString("en-US")}), characters (${RENDER_BUDGET.characters.toLocaleString("en-US")}) and items
(${RENDER_BUDGET.items.toLocaleString("en-US")}) refuse it. The worst of the corpus took ${round(worst.worst)} ms
(\`${worst.name}\`: ${worst.outcome}), ${Math.round((worst.worst / RENDER_BUDGET.milliseconds) * 100)}% of the time budget.
On the compiled nunjucks engine (main at 83d45b6) \`center(3e8)\`, \`indent(3e8)\`, \`slice(1e8)\`, a regex
\`replace\`, and \`striptags\` and \`format\` on 196k characters ran until killed at 20 s.

The 12 slowest, in ms (median and worst of ${RUNS}):

${markdownTable([
  ["template", "outcome", "median", "worst"],
  ...slowest.map((row) => [row.name, row.outcome.replace(/\|/g, "\\|"), round(row.median), round(row.worst)]),
])}
`,
);
