#!/usr/bin/env bash
# Cut a release: `npm run release -- 0.2.0`. On a clean checkout with CHANGELOG.md's Unreleased entries
# written, it dates them as the version's, sets the version in package.json and the lock file, shows what
# `npm publish` would upload, then commits "Release 0.2.0" and tags v0.2.0. Pushing and publishing stay
# with the person releasing (the two commands it prints), after CI passes on the tagged commit.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
fail() { echo "release: $*" >&2; exit 1; }

version="${1:-}"
[ -n "$version" ] || fail "give the version: npm run release -- 0.2.0"
[ -z "$(git status --porcelain)" ] || fail "the working tree has changes; commit or stash them first."
git rev-parse -q --verify "refs/tags/v$version" >/dev/null && fail "the tag v$version exists already."

node scripts/changelog.js CHANGELOG.md "$version" || fail "CHANGELOG.md could not be released (above)."
npm version "$version" --no-git-tag-version --allow-same-version >/dev/null
npm publish --dry-run 2>&1 | grep -E "^npm notice (name|version|package size|unpacked size|total files)" || true
git add CHANGELOG.md package.json package-lock.json
git commit -q -m "Release $version" -m "CHANGELOG.md's Unreleased entries dated as $version; package.json at $version."
git tag -a "v$version" -m "soev-agents $version"
echo "Tagged v$version. When CI passes on it: git push --follow-tags && npm publish"
