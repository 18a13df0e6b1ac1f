/**
 * `npm run bench`: run every benchmark script, each in a process of its own, one after another. A script
 * is a file bench/*.ts other than this runner and report.ts; the helpers of a script live in folders
 * (bench/temporal/, bench/baseline/, bench/peer/). `npm run bench -- temporal stores` runs only the scripts
 * whose names contain one of the words.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const NOT_SCRIPTS = new Set(["run.ts", "report.ts"]);
const words = process.argv.slice(2);
const scripts = readdirSync(HERE)
  .filter((name) => name.endsWith(".ts") && !NOT_SCRIPTS.has(name))
  .filter((name) => words.length === 0 || words.some((word) => name.includes(word)))
  .sort();
if (scripts.length === 0) {
  console.error(`No benchmark in bench/ matches ${words.join(", ")}: the scripts are the bench/*.ts files.`);
  process.exit(1);
}
const failed: string[] = [];
for (const script of scripts) {
  console.log(`==> bench/${script}`);
  // --expose-gc: a script may collect between the runs it measures, so that one run does not pay for another's garbage.
  const { status } = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", `${HERE}${script}`], {
    stdio: "inherit",
  });
  if (status !== 0) failed.push(script);
}
if (failed.length > 0) {
  console.error(`Failed: ${failed.join(", ")}; the sections of the others are written.`);
  process.exit(1);
}
