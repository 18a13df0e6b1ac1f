// No import cycle in src/, activities/ and workflows/: `madge --circular` (type imports included) reports none.
// A cycle found is reported unless it lies inside one of the known groups below, which is empty: a group is
// listed only while a cycle is being broken.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** The files that import each other in a circle today; a reported cycle must stay inside one group. */
const KNOWN_GROUPS: readonly (readonly string[])[] = [];

/** The cycles madge reports, each as its files. */
function madgeCycles(): string[][] {
  const cli = join(dirname(createRequire(import.meta.url).resolve("madge/package.json")), "bin/cli.js");
  const args = [cli, "--circular", "--json", "--no-spinner", "--extensions", "ts", "src", "activities", "workflows"];
  // madge exits 1 when it finds a cycle; its JSON is on stdout either way.
  try {
    return JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" })) as string[][];
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    if (!stdout) throw error;
    return JSON.parse(stdout) as string[][];
  }
}

it("finds no import cycle", () => {
  const cycles = madgeCycles();
  const unknown = cycles
    .filter((cycle) => !KNOWN_GROUPS.some((group) => cycle.every((file) => group.includes(file))))
    .map((cycle) => cycle.join(" > "));
  expect(unknown, "new import cycles: move the shared part into a module of its own").toEqual([]);
  expect(cycles).toEqual([]);
}, 60_000);
