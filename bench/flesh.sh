#!/usr/bin/env bash
# bench/flesh.sh: fleshing's speed against the figures of the paper's section 6.2
# (Alloy: 796 8-block CFGs in about 20 s, ~40 CFGs/s; 14-block CFGs in hours; a
# SwiftShader campaign: ~23,000 tests in ~20 minutes, ~19 tests/s).
#
#   1. builds the CLI and tests/examples/flesh_bench.rs in release, and times generating and
#      fleshing alone (no validation, no run) on one thread;
#   2. `spvlab fuzz --backends interp` on 8- and 14-block CFGs under the paper's shape
#      constraints (--paper): generating, fleshing and planning (assembled, validated, the run
#      plan made, once per program; programs/s), and the interpreter
#      running each against its path (programs/s);
#   3. the same campaign on lavapipe through passthrough and through our WGSL (each
#      dispatch in the GPU child process), when a Vulkan adapter exists.
#
# Environment: BENCH_COUNT (default 2000; a tenth of it on the GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${BENCH_COUNT:-2000}
cargo build --release -q -p spvlab-cli -p spvlab-tests --example flesh_bench
echo "== generating and fleshing alone"
target/release/examples/flesh_bench 100000 8
target/release/examples/flesh_bench 100000 14
S=target/release/spvlab
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for blocks in 8 14; do
  echo "== $blocks-block CFGs, the paper's constraints, on the interpreter"
  "$S" fuzz --count "$N" --paper --blocks "$blocks" --depth 3 --backends interp --out "$OUT/i$blocks" || true
done
echo "== 14-block CFGs on lavapipe"
"$S" fuzz --count $((N / 10)) --paper --blocks 14 --depth 3 --backends wgpu-passthrough,wgpu --out "$OUT/g" || true
