#!/usr/bin/env bash
# Prints the path of a Temporal CLI binary (the dev server the tests run), provisioning it if needed.
# Order (DESIGN.md §8): $TEMPORAL_CLI_PATH (an explicit choice wins over PATH); `temporal` on PATH;
# the cached build under ${XDG_CACHE_HOME:-$HOME/.cache}/soev-temporal/bin; else a build with
# `go install` where Go is present. Last resort, on a machine with internet and without Go: the
# Temporal SDK downloads the CLI (`TestWorkflowEnvironment.createLocal()` without `executable`), or
# install it (https://docs.temporal.io/cli) and set TEMPORAL_CLI_PATH. The test suite itself never
# downloads: it fails, naming the Temporal CLI and this script.
set -euo pipefail

# v1.5.1: later tags carry a replace directive in go.mod that breaks `go install`.
readonly CLI_MODULE="github.com/temporalio/cli/cmd/temporal@v1.5.1"
readonly CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/soev-temporal/bin"

fail() {
  echo "provision-temporal: Temporal CLI not available: $*" >&2
  exit 1
}

if [[ -n "${TEMPORAL_CLI_PATH:-}" ]]; then
  [[ -x "$TEMPORAL_CLI_PATH" ]] || fail "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable file."
  echo "$TEMPORAL_CLI_PATH"
  exit 0
fi

if command -v temporal >/dev/null 2>&1; then
  command -v temporal
  exit 0
fi

if [[ -x "$CACHE_DIR/temporal" ]]; then
  echo "$CACHE_DIR/temporal"
  exit 0
fi

go_binary="$(command -v go || true)"
if [[ -z "$go_binary" && -x /usr/local/go/bin/go ]]; then
  go_binary=/usr/local/go/bin/go
fi
if [[ -z "$go_binary" ]]; then
  fail "no 'temporal' on PATH, TEMPORAL_CLI_PATH unset, no cached build at $CACHE_DIR/temporal, and no Go toolchain to build one. Install Go, or install the Temporal CLI and set TEMPORAL_CLI_PATH."
fi

mkdir -p "$CACHE_DIR"
echo "provision-temporal: building the Temporal CLI with $go_binary install $CLI_MODULE (a few minutes)..." >&2
if ! GOBIN="$CACHE_DIR" "$go_binary" install "$CLI_MODULE" >&2; then
  fail "'go install $CLI_MODULE' failed (it needs the Go module proxy or a module cache)."
fi
[[ -x "$CACHE_DIR/temporal" ]] || fail "'go install' finished but $CACHE_DIR/temporal is missing."
echo "$CACHE_DIR/temporal"
