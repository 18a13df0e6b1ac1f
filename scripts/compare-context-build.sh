#!/usr/bin/env bash
# Compare the cold request build of this checkout with another revision's: bench/context-build.ts's child runs,
# alternating the two codes, each run in a process of its own, so both meet the same drift of the machine.
# The revision gets this checkout's bench file, so both are measured by the same code.
#
#   scripts/compare-context-build.sh <revision> [rounds]       (default 5 rounds; sizes: SIZES="1000 10000 50000")
#
# Prints one line per run, then a markdown table of the medians by size and trace (the bench's, and a new one each
# build: BENCH_CHILD_FRESH). Needs nothing but Node; run it on a quiet machine.
set -euo pipefail
revision=${1:?usage: scripts/compare-context-build.sh <revision> [rounds]}
rounds=${2:-5}
sizes=${SIZES:-1000 10000 50000}
root=$(git rev-parse --show-toplevel)
base=$(mktemp -d)/base
git -C "$root" worktree add --detach --quiet "$base" "$revision"
trap 'git -C "$root" worktree remove --force "$base"' EXIT
ln -s "$root/node_modules" "$base/node_modules"
cp "$root/bench/context-build.ts" "$base/bench/context-build.ts"
results=$(mktemp)
for round in $(seq 1 "$rounds"); do
  for side in base head; do
    directory=$root
    [ "$side" = base ] && directory=$base
    for size in $sizes; do
      for fresh in 0 1; do
        figures=$(cd "$directory" && BENCH_CHILD_COUNT=$size BENCH_CHILD_FRESH=$fresh \
          node --expose-gc --import tsx bench/context-build.ts | tail -n 1)
        echo "$round $side $size $fresh $figures" | tee -a "$results"
      done
    done
  done
done
node - "$results" "$revision" <<'SCRIPT'
const [file, revision] = process.argv.slice(2);
const lines = require("node:fs").readFileSync(file, "utf8").trim().split("\n");
const runs = lines.map((line) => {
  const [round, side, size, fresh, ...json] = line.split(" ");
  return { side, size: Number(size), fresh: fresh === "1", ...JSON.parse(json.join(" ")) };
});
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
console.log(`\n| events | trace | ${revision} ms | this ms | change | ${revision} CPU ms | this CPU ms | change |`);
console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const size of [...new Set(runs.map((run) => run.size))])
  for (const fresh of [false, true]) {
    const of = (side, key) => median(runs.filter((r) => r.side === side && r.size === size && r.fresh === fresh).map((r) => r[key] ?? NaN));
    const change = (key) => `${(((of("head", key) - of("base", key)) / of("base", key)) * 100).toFixed(0)} %`;
    const cells = ["wall", "cpu"].flatMap((key) => [of("base", key).toFixed(1), of("head", key).toFixed(1), change(key)]);
    console.log(`| ${size.toLocaleString("en-US")} | ${fresh ? "new each build" : "the bench's"} | ${cells.join(" | ")} |`);
  }
SCRIPT
