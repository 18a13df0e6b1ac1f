/**
 * Writes one benchmark's section of bench/README.md: the text from its `## title` heading up to the next
 * `## ` heading is replaced (or appended when absent), so each script owns its section and no other.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const README = fileURLToPath(new URL("./README.md", import.meta.url));

/** Replaces the section headed `## ${title}` in bench/README.md with `body` (markdown, without the heading). */
export function writeSection(title: string, body: string): void {
  const text = readFileSync(README, "utf8");
  const heading = `## ${title}\n`;
  const section = `${heading}\n${body.trim()}\n`;
  const start = text.indexOf(heading);
  if (start < 0) {
    writeFileSync(README, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const next = text.indexOf("\n## ", start + heading.length);
  const end = next < 0 ? text.length : next + 1;
  writeFileSync(README, `${text.slice(0, start)}${section}${next < 0 ? "" : "\n"}${text.slice(end)}`);
}

/** Formats rows as a markdown table; the first row is the header, numbers are right-aligned. */
export function markdownTable(rows: readonly (readonly (string | number)[])[]): string {
  const [header, ...body] = rows;
  if (!header) return "";
  const numeric = header.map((_, column) => body.length > 0 && body.every((row) => typeof row[column] === "number"));
  const line = (cells: readonly (string | number)[]) =>
    `| ${cells.map((cell) => (typeof cell === "number" ? cell.toLocaleString("en-US") : cell)).join(" | ")} |`;
  return [line(header), `| ${numeric.map((right) => (right ? "---:" : "---")).join(" | ")} |`, ...body.map(line)].join(
    "\n",
  );
}
