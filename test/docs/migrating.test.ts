/**
 * docs/migrating.md's name table is true: each name its TypeScript column gives (a class, a factory, a function)
 * is exported by the package, and each `soev-agents/<subpath>` it names is an export of package.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./markdown.js";

/** The cells of the table's TypeScript column, from the rows under "## Name by name". */
function typescriptCells(): string[] {
  const text = readFileSync(join(ROOT, "docs/migrating.md"), "utf8");
  const section = text.slice(
    text.indexOf("## Name by name"),
    text.indexOf("\n## ", text.indexOf("## Name by name") + 1),
  );
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Python") && !line.startsWith("| ---"))
    .map((line) => line.split(" | ")[1] ?? "");
}

/** The names the cell's code spans use as the package's: `new X(`, `X(`, `X.y(` and PascalCase names. */
function namesOf(cell: string): string[] {
  const code = [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
  const names = code.flatMap((span) => [
    ...[...span.matchAll(/(?:^|new\s+|[\s({[,:])([A-Za-z][\w]*)(?=[.(<])/g)].map((match) => match[1]!),
    ...[...span.matchAll(/\b([A-Z][a-z]\w*)\b/g)].map((match) => match[1]!),
  ]);
  return names;
}

/** Every name the package exports, from the surface listing the surface test keeps (test/lint/surface.txt). */
function exported(): Set<string> {
  const listing = readFileSync(join(ROOT, "test/lint/surface.txt"), "utf8");
  return new Set(listing.split("\n").filter((line) => line !== "" && !line.startsWith("## ")));
}

// Names of the language and of the examples' own values, which the table uses around the package's names.
const NOT_THE_PACKAGE = new Set([
  "z",
  "Object",
  "Promise",
  "AbortSignal",
  "Library",
  "Passage",
  "Document",
  "Annotated",
]);
const OWN_VALUES = new Set(["turns", "search", "promptFile", "trace", "store", "config", "prompts"]);

describe("docs/migrating.md's name table", () => {
  const cells = typescriptCells();

  it("has rows to check", () => {
    expect(cells.length).toBeGreaterThan(20);
  });

  it("names only what the package exports", () => {
    const known = exported();
    const names = cells.flatMap((cell) => namesOf(cell));
    expect(names).toEqual(
      expect.arrayContaining(["ReActConfig", "MessageBuilder", "tool", "bound", "sourceType", "atMost"]),
    );
    const missing = names.filter((name) => !NOT_THE_PACKAGE.has(name) && !OWN_VALUES.has(name) && !known.has(name));
    expect([...new Set(missing)]).toEqual([]);
  });

  it("names only subpaths that package.json exports", () => {
    const { exports } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: object };
    const subpaths = new Set(Object.keys(exports).map((key) => `soev-agents${key.slice(1)}`));
    const named = cells.flatMap((cell) => [...cell.matchAll(/`(soev-agents(?:\/[\w-]+)?)`/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !subpaths.has(name))).toEqual([]);
  });
});
