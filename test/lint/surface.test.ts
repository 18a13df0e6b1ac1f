/**
 * The package's public surface, as a reviewer sees it: every name each entry point of package.json exports
 * (values and types), in a file checked in beside this test, so that a change of the surface shows in the diff.
 * A name two entry points export means one thing (the same declaration), and importing the root loads no native
 * module, database driver, provider SDK or Temporal package.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** `soev-agents/<subpath>` and the source of its entry point, from package.json's exports. */
function entryPoints(): [string, string][] {
  const { exports } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    exports: Record<string, { types: string }>;
  };
  return Object.entries(exports).map(([subpath, target]) => [
    `soev-agents${subpath.slice(1)}`,
    join(ROOT, target.types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts")),
  ]);
}

/** Each entry point's exported symbols, resolved to what they alias. */
function surface(): Map<string, ts.Symbol[]> {
  const entries = entryPoints();
  const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram(
    entries.map(([, file]) => file),
    { ...options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  return new Map(
    entries.map(([name, file]) => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
      const symbols = checker
        .getExportsOfModule(module)
        .map((symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol));
      return [name, symbols];
    }),
  );
}

/** The modules a fresh Node process loads to import `file`, as URLs. */
function modulesLoadedBy(file: string): string[] {
  const probe = `
    import { registerHooks } from "node:module";
    const loaded = [];
    registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); loaded.push(found.url); return found; } });
    await import(${JSON.stringify(pathToFileURL(file).href)});
    process.stdout.write(JSON.stringify(loaded));`;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`importing ${file} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

const HEAVY =
  /\/node_modules\/(better-sqlite3|bindings|pg|pg-[a-z]+|openai|@temporalio|@ai-sdk|@opentelemetry|@modelcontextprotocol|hono)\/|\.node$/;

describe("the public surface", () => {
  const entries = surface();

  it("is the checked-in list of names per entry point", async () => {
    const listing = [...entries]
      .map(([name, symbols]) => `## ${name}\n${[...new Set(symbols.map((symbol) => symbol.name))].sort().join("\n")}\n`)
      .join("\n");
    await expect(listing).toMatchFileSnapshot("surface.txt");
  });

  it("gives a name one meaning across entry points", () => {
    const meanings = new Map<string, Set<ts.Symbol>>();
    for (const symbols of entries.values())
      for (const symbol of symbols) meanings.set(symbol.name, (meanings.get(symbol.name) ?? new Set()).add(symbol));
    const twice = [...meanings].filter(([, symbols]) => symbols.size > 1).map(([name]) => name);
    expect(twice).toEqual([]);
  });

  it("loads no native module, driver, provider SDK or Temporal package from the root", () => {
    const heavy = modulesLoadedBy(join(ROOT, "src", "index.ts")).filter((url) => HEAVY.test(url));
    expect(heavy).toEqual([]);
    // The probe sees such a module where one is imported: the SQLite subpath loads better-sqlite3.
    expect(modulesLoadedBy(join(ROOT, "src", "adapters", "sqlite", "index.ts")).some((url) => HEAVY.test(url))).toBe(
      true,
    );
  });
});
