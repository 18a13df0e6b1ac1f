/**
 * Every TypeScript code block of README.md and docs/, and of the `@example` tags of the sources' TSDoc,
 * compiles against the repository's sources, as a user's module importing `soev-agents/<layer>`: a snippet
 * that uses a name it never defines or imports, or calls an API the way it no longer works, fails here. A
 * block opts out only with `snippet-skip` in its info string (```ts snippet-skip), for a deliberately
 * partial fragment.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { documentationFiles, languageOf, readDocumentation, ROOT, splitMarkdown } from "./markdown.js";

const TYPESCRIPT = new Set(["ts", "typescript", "tsx", "mts"]);
const SKIP = "snippet-skip";

/** A snippet as a module of its own in a folder of the root, so packages resolve from node_modules. */
interface Snippet {
  file: string;
  line: number;
  path: string;
  code: string;
}

/** The TypeScript files of the sources whose TSDoc TypeDoc publishes. */
function sourceFiles(): string[] {
  const files = ["worker.ts"];
  const walk = (folder: string): void => {
    for (const name of readdirSync(join(ROOT, folder)).sort()) {
      const path = join(folder, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith(".ts")) files.push(path);
    }
  };
  for (const folder of ["src", "workflows", "activities"]) walk(folder);
  return files;
}

/** The text of a source's doc comments as Markdown (the leading ` * ` cut), lines kept in place. */
function docCommentsOf(file: string): string {
  const text = readFileSync(join(ROOT, file), "utf8");
  const lines = text.split("\n").map(() => "");
  for (const match of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const first = text.slice(0, match.index).split("\n").length - 1;
    match[0].split("\n").forEach((line, offset) => {
      lines[first + offset] = line.replace(/^\s*\/?\*+\/?\s?/, "").replace(/\s*\*\/$/, "");
    });
  }
  return lines.join("\n");
}

function snippets(): { snippets: Snippet[]; skipped: string[] } {
  const found: Snippet[] = [];
  const skipped: string[] = [];
  const texts = [
    ...documentationFiles().map((file) => [file, readDocumentation(file)] as const),
    ...sourceFiles().map((file) => [relative(ROOT, join(ROOT, file)), docCommentsOf(file)] as const),
  ];
  for (const [file, text] of texts) {
    const { blocks } = splitMarkdown(text);
    blocks.forEach((block, index) => {
      if (!TYPESCRIPT.has(languageOf(block))) return;
      if (block.info.split(/\s+/).includes(SKIP)) return void skipped.push(`${file}:${block.line}`);
      const name = `${file.replace(/[^A-Za-z0-9]+/g, "-")}-${index + 1}.ts`;
      // `export {}` makes each snippet a module: top-level await works, and names never leak between snippets.
      found.push({ file, line: block.line, path: join(ROOT, ".snippets", name), code: `${block.code}\nexport {};\n` });
    });
  }
  return { snippets: found, skipped };
}

/** The compiler options of tsconfig.json, with `soev-agents/<layer>` mapped to the layer's source. */
function compilerOptions(): ts.CompilerOptions {
  const configPath = join(ROOT, "tsconfig.json");
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return {
    ...parsed.options,
    noEmit: true,
    baseUrl: ROOT,
    paths: {
      "soev-agents": ["src/index.ts"],
      "soev-agents/worker": ["worker.ts"],
      "soev-agents/ai-sdk": ["src/adapters/ai-sdk/index.ts"],
      "soev-agents/mcp": ["src/adapters/mcp/index.ts"],
      "soev-agents/*": ["src/*/index.ts"],
    },
  };
}

function compile(all: Snippet[]): Map<string, string[]> {
  const byPath = new Map(all.map((snippet) => [snippet.path, snippet]));
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (path, language, ...rest) => {
    const snippet = byPath.get(path);
    return snippet ? ts.createSourceFile(path, snippet.code, language, true) : getSourceFile(path, language, ...rest);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (path) => byPath.has(path) || fileExists(path);
  const readFile = host.readFile.bind(host);
  host.readFile = (path) => byPath.get(path)?.code ?? readFile(path);
  const program = ts.createProgram([...byPath.keys()], options, host);
  const problems = new Map<string, string[]>();
  for (const snippet of all) {
    const source = program.getSourceFile(snippet.path)!;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    problems.set(
      snippet.path,
      diagnostics.map((diagnostic) => {
        const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
        return `${snippet.file}:${snippet.line + line}: TS${diagnostic.code} ${text}`;
      }),
    );
  }
  return problems;
}

describe("the code blocks of README.md and docs/", () => {
  const { snippets: all, skipped } = snippets();

  it("finds TypeScript blocks to check, and few that opt out", () => {
    expect(all.length).toBeGreaterThan(0);
    // An opt-out is for a deliberately partial fragment: keep them rare.
    expect(skipped.length, `blocks marked ${SKIP}: ${skipped.join(", ")}`).toBeLessThanOrEqual(
      Math.max(3, all.length / 10),
    );
  });

  it("type-check against the sources, each as a module of its own", { timeout: 300_000 }, () => {
    const problems = compile(all);
    const failures = [...problems.values()].flat();
    expect(failures, failures.join("\n")).toEqual([]);
  });
});
