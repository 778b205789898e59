#!/usr/bin/env bash
# bench/wgsl-callgrind.sh [BENCH_BINARY]: the instructions each side of bench/wgsl.sh executes on
# each of the 844 modules, counted by callgrind (stable where wall clocks swing with the load).
#
# Runs BENCH_BINARY (default: target/release/examples/wgsl_bench, built here) under
# `valgrind --tool=callgrind` once per side, `--loop ours|naga P` (P = BENCH_CG_PASSES, default 1),
# collecting only inside `wgsl_bench::ours` / `wgsl_bench::naga` and dumping a profile part each
# time the function returns: part k of the last pass is module k's count. Prints the median per
# module of each side, their ratio (what bench/wgsl.sh's "all" median ratio measures in time), the
# totals, and the median of the per-module ratios. WGSL_BENCH_FILTER and BENCH_CG_ARGS (e.g.
# `--module 400-440`) narrow the modules. BENCH_CG_KEEP=DIR keeps the per-module counts there
# (ours.txt, naga.txt: place and instructions a line).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${1:-}
if [ -z "$BIN" ]; then
  cargo build --release -q -p spvlab-tests --example wgsl_bench
  BIN="$ROOT/target/release/examples/wgsl_bench"
fi
PASSES=${BENCH_CG_PASSES:-1}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for side in ours naga; do
  mkdir -p "$T/$side"
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --callgrind-out-file="$T/$side/cg" --dump-instr=no --dump-line=no \
    --toggle-collect="wgsl_bench::$side" --dump-after="wgsl_bench::$side" \
    "$BIN" --loop "$side" "$PASSES" ${BENCH_CG_ARGS:-} >"$T/$side.log" 2>&1 ||
    { cat "$T/$side.log" >&2; exit 1; }
  # The parts in order; the last pass's are the modules' counts.
  n=$(find "$T/$side" -name 'cg.*' | wc -l)
  per=$((n / PASSES))
  for ((k = n - per + 1; k <= n; k++)); do
    echo "$((k - n + per - 1)) $(grep -m1 '^summary:' "$T/$side/cg.$k" | cut -d' ' -f2)"
  done >"$T/$side.txt"
  rm -rf "${T:?}/$side"
done
if [ -n "${BENCH_CG_KEEP:-}" ]; then
  mkdir -p "$BENCH_CG_KEEP"
  cp "$T/ours.txt" "$T/naga.txt" "$BENCH_CG_KEEP/"
fi
python3 - "$T/ours.txt" "$T/naga.txt" <<'EOF'
import statistics, sys
def read(p):
    return [int(l.split()[1]) for l in open(p) if l.strip()]
ours, naga = read(sys.argv[1]), read(sys.argv[2])
assert len(ours) == len(naga), "the two sides counted different modules"
def median(v):
    # the same pick as wgsl_bench: the element at len/2 of the sorted list
    return sorted(v)[len(v) // 2]
mo, mn = median(ours), median(naga)
print(f"modules: {len(ours)}; instructions per module (callgrind)")
print(f"median ours {mo / 1e3:9.1f}K  naga {mn / 1e3:9.1f}K  ratio {mo / mn:.3f}x")
print(f"total  ours {sum(ours) / 1e6:9.2f}M  naga {sum(naga) / 1e6:9.2f}M  ratio {sum(ours) / sum(naga):.3f}x")
print(f"median of the per-module ratios {statistics.median(o / n for o, n in zip(ours, naga)):.3f}x")
EOF
