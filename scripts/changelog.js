/* global process, console -- Node globals: this file is plain JavaScript outside the TypeScript project. */
// The release step of CHANGELOG.md (Keep a Changelog): the Unreleased section becomes the version's, dated,
// under a fresh empty Unreleased. Run by scripts/release.sh; plain JavaScript so it needs no build.
import { readFileSync, writeFileSync } from "node:fs";

const UNRELEASED = "## [Unreleased]";

/** CHANGELOG.md's text with Unreleased released as `version` on `date` (YYYY-MM-DD); throws when there is nothing to release. */
export function releaseChangelog(text, version, date) {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version))
    throw new Error(`"${version}" is not a version such as 0.2.0 or 1.0.0-rc.1.`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`"${date}" is not a date such as 2026-12-06.`);
  const start = text.indexOf(UNRELEASED);
  if (start === -1) throw new Error(`CHANGELOG.md has no "${UNRELEASED}" section to release.`);
  if (text.includes(`## [${version}]`)) throw new Error(`CHANGELOG.md has a section for ${version} already.`);
  const bodyStart = start + UNRELEASED.length;
  const next = text.indexOf("\n## [", bodyStart);
  const body = text.slice(bodyStart, next === -1 ? undefined : next);
  if (!/^- /m.test(body))
    throw new Error("The Unreleased section lists no change: add the release's entries to CHANGELOG.md first.");
  return `${text.slice(0, start)}${UNRELEASED}\n\n## [${version}] - ${date}${text.slice(bodyStart)}`;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const [file, version, date = new Date().toISOString().slice(0, 10)] = process.argv.slice(2);
  if (!file || !version) {
    console.error("Usage: node scripts/changelog.js CHANGELOG.md <version> [YYYY-MM-DD]");
    process.exit(2);
  }
  try {
    writeFileSync(file, releaseChangelog(readFileSync(file, "utf8"), version, date));
  } catch (error) {
    console.error(`changelog: ${error.message}`);
    process.exit(1);
  }
}
