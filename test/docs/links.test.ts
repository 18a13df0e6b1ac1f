/**
 * The links of README.md and docs/ lead somewhere: a relative link names a file or folder inside the repository
 * (a user who clones it has nothing outside), and a link to a heading of a Markdown file names a heading it has.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, documentationFiles, linksOf, readDocumentation, ROOT, splitMarkdown } from "./markdown.js";

/** What is wrong with one link of `file`, or null when it leads where it says. */
function problemOf(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    return /^(https?|mailto):/i.test(target) ? null : `a link with the scheme of ${target} is not a public page`;
  }
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
  const path = pathPart === "" ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(pathPart));
  const inside = relative(ROOT, path);
  if (inside.startsWith("..") || inside.startsWith(sep)) return `${target} leads outside the repository`;
  if (!existsSync(path)) return `${target}: no such file or folder in the repository`;
  if (anchor !== undefined && path.endsWith(".md") && statSync(path).isFile()) {
    const anchors = anchorsOf(splitMarkdown(readDocumentation(relative(ROOT, path))).prose);
    if (!anchors.has(anchor)) return `${target}: ${relative(ROOT, path)} has no heading #${anchor}`;
  }
  return null;
}

describe("the links of README.md and docs/", () => {
  it("lead to files inside the repository, headings that exist, or public pages", () => {
    const problems: string[] = [];
    let count = 0;
    for (const file of documentationFiles()) {
      for (const link of linksOf(splitMarkdown(readDocumentation(file)).prose)) {
        count += 1;
        const problem = problemOf(file, link.target);
        if (problem) problems.push(`${file}:${link.line}: ${problem}`);
      }
    }
    expect(count).toBeGreaterThan(0);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("name no folder outside the repository, even in code", () => {
    const problems = documentationFiles().flatMap((file) =>
      readDocumentation(file)
        .split("\n")
        .flatMap((line, index) => (/\.\.\/shared\//.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
