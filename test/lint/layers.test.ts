// The dependency rule (DESIGN.md §2): each layer imports only the layers below it, type imports included.
// domain <- ports <- runtime <- toolkit; adapters implement ports; temporal, app and the command line sit on
// top; only src/worker reaches activities/ and workflows/; nothing in src/ reaches worker.ts or the examples.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, resolve } from "node:path";
import { expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** The layers each layer may import, besides itself. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  domain: [],
  ports: ["domain"],
  runtime: ["domain", "ports"],
  toolkit: ["domain", "ports", "runtime"],
  adapters: ["domain", "ports", "runtime"],
  temporal: ["domain", "ports", "runtime"],
  testing: ["domain", "ports", "runtime", "toolkit", "adapters"],
  internal: ["domain", "ports", "runtime", "toolkit", "adapters", "temporal"],
  app: ["domain", "ports", "runtime", "toolkit", "adapters", "temporal"],
  cli: ["domain", "ports", "runtime", "toolkit", "adapters", "temporal", "app"],
  // src/index.ts, the package's root: the common path, no heavy adapter behind it.
  root: ["domain", "ports", "runtime", "toolkit", "adapters"],
  activities: ["domain", "ports", "runtime", "toolkit", "adapters", "temporal"],
  // src/worker: the worker's library (worker.ts is its entry), over the activities and the workflow bundle.
  worker: ["domain", "ports", "runtime", "toolkit", "adapters", "temporal", "activities", "workflows"],
};

/** The layer of a file, from its path relative to the repository. */
function layerOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "activities") return "activities";
  if (parts[0] !== "src") return parts[0] === "workflows" ? "workflows" : file;
  return parts.length === 2 ? "root" : parts[1]!;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(folder, name));
}

/** The relative imports of a file (static, dynamic and `export ... from`), as repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const found = text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g);
  return [...found].map((match) => normalize(join(dirname(file), match[1]!)));
}

it("imports only downward, in src/ and activities/", () => {
  const broken: string[] = [];
  const files = [...sourceFiles("src"), ...sourceFiles("activities")];
  for (const file of files) {
    const from = layerOf(file);
    for (const target of importsOf(file)) {
      const to = layerOf(relative(ROOT, resolve(ROOT, target)));
      if (to !== from && !ALLOWED[from]?.includes(to)) broken.push(`${file} (${from}) imports ${target} (${to})`);
    }
  }
  expect(broken, "move the shared part down, or the importing code up (DESIGN.md §2)").toEqual([]);
  // The scan sees the imports it judges: the files are there and import across layers.
  expect(files.length).toBeGreaterThan(100);
  expect(importsOf("src/toolkit/react/agent.ts").some((target) => layerOf(target) === "runtime")).toBe(true);
});
