/**
 * The API reference covers the package: TypeDoc's entry points (typedoc.json) are exactly the sources of the
 * package's exports (package.json), so an export added to the package is documented, and its undocumented
 * symbols fail `npm run docs:check`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./markdown.js";

const json = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8"));

/** The source of a built declaration file: ./dist/src/domain/index.d.ts is src/domain/index.ts. */
function sourceOf(types: string): string {
  return types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts");
}

describe("the API reference", () => {
  it("has one entry point per package export, and none besides", () => {
    const exports = json("package.json").exports as Record<string, { types: string }>;
    const sources = Object.values(exports).map((target) => sourceOf(target.types));
    const entryPoints = json("typedoc.json").entryPoints as string[];
    expect([...entryPoints].sort()).toEqual([...sources].sort());
  });
});
