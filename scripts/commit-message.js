#!/usr/bin/env node
/* global process, console -- Node globals: this file is plain JavaScript outside the TypeScript project. */
// The commit message convention (CONTRIBUTING.md), checked by the commit-msg hook in scripts/git-hooks:
// a subject of at most 72 characters without a trailing period, then a blank line before any body.
// Plain JavaScript with no imports beyond Node, so the hook runs on any Node before `npm ci` too.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The longest subject the convention allows. */
export const SUBJECT_LIMIT = 72;

// Git writes these subjects itself, or rewrites them when a rebase squashes them away.
const GENERATED = /^(Merge |fixup! |squash! |amend! )/;
// Below git's scissors line (`git commit -v`) is the diff, not the message.
const SCISSORS = "# ------------------------ >8 ------------------------";

/** The lines of a message as git keeps them: without comment lines and without what follows the scissors. */
function messageLines(text) {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const cut = lines.indexOf(SCISSORS);
  const kept = (cut === -1 ? lines : lines.slice(0, cut)).filter((line) => !line.startsWith("#"));
  while (kept.length > 0 && kept[0].trim() === "") kept.shift();
  while (kept.length > 0 && kept.at(-1).trim() === "") kept.pop();
  return kept;
}

/** What breaks the convention in `text`, one sentence each; empty when it follows it. */
export function commitMessageProblems(text) {
  const lines = messageLines(text);
  const subject = lines[0] ?? "";
  if (subject.trim() === "") return ["The message is empty: write a subject line."];
  if (GENERATED.test(subject)) return [];
  const problems = [];
  if (subject.length > SUBJECT_LIMIT)
    problems.push(
      `The subject is ${subject.length} characters; keep it to ${SUBJECT_LIMIT} and put the rest in the body.`,
    );
  if (subject.endsWith(".")) problems.push("The subject ends with a period; drop it.");
  if (lines.length > 1 && lines[1].trim() !== "")
    problems.push("The subject runs on into a second line; leave a blank line between the subject and the body.");
  return problems;
}

// Run as the hook: git passes the path of the message file.
if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const file = process.argv[2];
  if (!file) {
    console.error("Usage: node scripts/commit-message.js <commit message file>");
    process.exit(2);
  }
  const problems = commitMessageProblems(readFileSync(file, "utf8"));
  if (problems.length > 0) {
    console.error(`commit-msg: the message does not follow CONTRIBUTING.md's convention:`);
    for (const problem of problems) console.error(`  - ${problem}`);
    console.error(`Your message is kept in ${file}; fix it and commit again (\`git commit -e -F ${file}\`).`);
    process.exit(1);
  }
}
