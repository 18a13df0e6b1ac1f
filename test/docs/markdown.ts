/**
 * The documentation's Markdown as the docs tests read it: README.md and every file under docs/, their fenced
 * code blocks (with the info string that names the language), and their links outside code.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** README.md and docs/**\/*.md, as paths relative to the root, in a stable order. */
export function documentationFiles(): string[] {
  const files = ["README.md"];
  const walk = (folder: string): void => {
    for (const name of readdirSync(join(ROOT, folder)).sort()) {
      const path = join(folder, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith(".md")) files.push(path);
    }
  };
  try {
    walk("docs");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return files.map((file) => relative(ROOT, join(ROOT, file)));
}

/** One fenced code block: its info string (```ts snippet-skip gives "ts snippet-skip"), text and first line. */
export interface CodeBlock {
  info: string;
  code: string;
  line: number;
}

/** A fence line: three or more backticks or tildes, then the info string. */
const FENCE = /^(\s{0,3})(`{3,}|~{3,})\s*([^`]*)$/;

/** The fenced code blocks of a Markdown text, and the text outside them (code lines blanked, so lines keep their numbers). */
export function splitMarkdown(text: string): { blocks: CodeBlock[]; prose: string } {
  const lines = text.split("\n");
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; info: string; line: number; body: string[] } | null = null;
  lines.forEach((line, index) => {
    const fence = FENCE.exec(line);
    if (open === null) {
      if (fence) {
        open = { fence: fence[2]!, info: fence[3]!.trim(), line: index + 2, body: [] };
        prose.push("");
      } else prose.push(line);
      return;
    }
    if (fence && fence[2]!.startsWith(open.fence) && fence[3]!.trim() === "") {
      blocks.push({ info: open.info, code: open.body.join("\n"), line: open.line });
      open = null;
    } else open.body.push(line);
    prose.push("");
  });
  if (open !== null)
    throw new Error(`A code block opened at line ${(open as { line: number }).line - 1} is never closed.`);
  return { blocks, prose: prose.join("\n") };
}

/** The language of a block, from the first word of its info string. */
export function languageOf(block: CodeBlock): string {
  return block.info.split(/\s+/)[0]!.toLowerCase();
}

/** A link of the prose: its target as written and its line. */
export interface Link {
  target: string;
  line: number;
}

/** Inline links and images `[text](target)`, and reference definitions `[name]: target`; inline code is not prose. */
export function linksOf(prose: string): Link[] {
  const links: Link[] = [];
  prose.split("\n").forEach((raw, index) => {
    const line = raw.replace(/`[^`]*`/g, "");
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: match[1]!, line: index + 1 });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(line);
    if (definition) links.push({ target: definition[1]!, line: index + 1 });
  });
  return links;
}

/** The anchors GitHub makes for a Markdown text's headings (lowercase, punctuation dropped, spaces to dashes). */
export function anchorsOf(prose: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose.split("\n")) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/`/g, "")
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Read a documentation file by its path relative to the root. */
export function readDocumentation(file: string): string {
  return readFileSync(join(ROOT, file), "utf8");
}
