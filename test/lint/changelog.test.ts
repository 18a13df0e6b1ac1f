// The release step of CHANGELOG.md that scripts/release.sh runs.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { releaseChangelog } from "../../scripts/changelog.js";

const CHANGELOG = `# Changelog

Intro.

## [Unreleased]

### Added

- A thing.

## [0.1.0] - 2026-11-01

- The first.
`;

describe("releaseChangelog", () => {
  it("dates the Unreleased entries as the version, under a fresh empty Unreleased", () => {
    expect(releaseChangelog(CHANGELOG, "0.2.0", "2026-12-06")).toBe(`# Changelog

Intro.

## [Unreleased]

## [0.2.0] - 2026-12-06

### Added

- A thing.

## [0.1.0] - 2026-11-01

- The first.
`);
  });

  it("refuses a release with no entries, a version released already, and a malformed version, saying what to do", () => {
    const released = releaseChangelog(CHANGELOG, "0.2.0", "2026-12-06");
    expect(() => releaseChangelog(released, "0.3.0", "2026-12-07")).toThrow(
      "The Unreleased section lists no change: add the release's entries to CHANGELOG.md first.",
    );
    expect(() => releaseChangelog(CHANGELOG, "0.1.0", "2026-12-06")).toThrow("has a section for 0.1.0 already");
    expect(() => releaseChangelog(CHANGELOG, "v0.2", "2026-12-06")).toThrow('"v0.2" is not a version');
  });

  it("can release the repository's CHANGELOG.md as it stands", () => {
    const text = readFileSync(resolve(import.meta.dirname, "../../CHANGELOG.md"), "utf8");
    expect(releaseChangelog(text, "0.2.0", "2026-12-06")).toContain("## [Unreleased]\n\n## [0.2.0] - 2026-12-06\n");
  });
});
