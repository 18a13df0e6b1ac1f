#!/usr/bin/env bash
# The pack-and-install check: pack the project as npm publishes it (prepack builds dist/), install the
# tarball into a scratch app in a fresh folder outside the repository, and run there what a new user runs:
# an agent on the local runner, a worker with runWorker and a turn with startTurn (on a Temporal dev
# server of its own: $TEMPORAL_CLI_PATH), the prompts CLI, and the types under node16 and bundler
# resolution. Needs the npm registry (or npm's cache) for the package's dependencies.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fixtures="$root/test/fixtures/package"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/soev-package-XXXXXX")"
server_pid=""
started=$SECONDS

step() { echo "==> check-package: $* (at $((SECONDS - started))s)"; }
fail() { echo "check-package: $*" >&2; exit 1; }
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

cli="${TEMPORAL_CLI_PATH:-$(command -v temporal || true)}"
[ -n "$cli" ] && [ -x "$cli" ] || fail "no Temporal CLI: set TEMPORAL_CLI_PATH, put temporal on PATH, or run bash scripts/provision-temporal.sh."

step "npm pack (prepack builds dist/)"
tarball="$scratch/$(cd "$root" && npm pack --silent --pack-destination "$scratch" | tail -n 1)"
[ -f "$tarball" ] || fail "npm pack made no tarball."
listing="$(tar -tzf "$tarball")"
for wanted in package/package.json package/README.md package/LICENSE package/CHANGELOG.md package/dist/src/index.js package/dist/src/index.d.ts \
  package/dist/worker.js package/dist/workflows/index.js package/dist/src/toolkit/prompts/cli.js; do
  grep -qx "$wanted" <<<"$listing" || fail "the tarball lacks $wanted."
done
if grep -E '^package/(test|scripts|bench|\.ci|src|workflows|activities|node_modules)/|\.map$|\.env|\.npmrc' <<<"$listing"; then
  fail "the tarball holds the files above, which are not for users."
fi
echo "$(wc -l <<<"$listing") files in $(basename "$tarball")"

step "npm publish --dry-run"
# What `npm publish` would upload, without credentials (npm only warns that no one is logged in). The pack
# above built dist/, so --ignore-scripts skips a second build (and prepare).
published="$(cd "$root" && npm publish --dry-run --ignore-scripts 2>&1)" || { echo "$published" >&2; fail "npm publish --dry-run failed."; }
for wanted in "+ soev-agents@" "dist/src/index.js" "LICENSE" "CHANGELOG.md"; do
  grep -qF "$wanted" <<<"$published" || { echo "$published" >&2; fail "npm publish --dry-run does not show $wanted."; }
done

step "npm install of the tarball into a scratch app"
app="$scratch/app"
mkdir -p "$app"
cp "$fixtures/app.mjs" "$fixtures/types.ts" "$fixtures/prompt.yaml" "$app/"
printf '{ "name": "scratch-app", "private": true, "type": "module" }\n' >"$app/package.json"
# --ignore-scripts: building better-sqlite3 from source takes minutes here; the app uses the in-memory store
# (CI checks the native module after npm ci).
(cd "$app" && npm install --no-audit --no-fund --prefer-offline --ignore-scripts --loglevel=error "$tarball" zod@4) \
  || fail "npm install of the tarball failed."

step "types under moduleResolution node16 and bundler"
tsc="$root/node_modules/typescript/bin/tsc"
for resolution in node16 bundler; do
  module="node16"
  [ "$resolution" = bundler ] && module="esnext"
  (cd "$app" && node "$tsc" --noEmit --strict --skipLibCheck --target es2022 \
    --module "$module" --moduleResolution "$resolution" types.ts) || fail "types.ts does not type-check under $resolution."
done

step "a Temporal dev server"
port="$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
"$cli" server start-dev --headless --ip 127.0.0.1 --port "$port" --log-level error >"$scratch/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  "$cli" operator cluster health --address "127.0.0.1:$port" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || fail "the dev server stopped: $(cat "$scratch/server.log")"
  sleep 0.5
done

step "the scratch app: local runner, runWorker, startTurn"
(cd "$app" && TEMPORAL_ADDRESS="127.0.0.1:$port" TEMPORAL_NAMESPACE=default node app.mjs) || fail "the scratch app failed."

step "the prompts CLI"
output="$(cd "$app" && npx --no-install soev-prompts prompt.yaml --model small-model)" || fail "soev-prompts failed."
grep -q "citing \[1\]" <<<"$output" || fail "soev-prompts did not render the system prompt: $output"
grep -q "Answer now, briefly." <<<"$output" || fail "soev-prompts did not apply the model layer: $output"

step "the soev-agents CLI"
output="$(cd "$app" && npx --no-install soev-agents whatif --help)" || fail "soev-agents whatif --help failed."
grep -q "usage: soev-agents whatif" <<<"$output" || fail "soev-agents whatif printed no usage: $output"

step "passed"
