#!/usr/bin/env bash
# The interpreter's speed: M SPIR-V instructions per second on the loop
# kernel of bench/interp-kernel.spvasm, natively and in wasm32 under Node (the
# release profile and the shipped size-optimised `wasm` profile), in one run.
#   bench/interp.sh [N_PER_INVOCATION] [GROUPS]   (defaults 31250 and 1: 64 invocations)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
N="${1:-31250}"
GROUPS_="${2:-1}"
line=$(cargo run -q --release -p spvlab-tests --bin interp-bench -- $((N * GROUPS_ * 64)) $((GROUPS_ * 64)))
echo "native: $line"
mips=$(sed -E 's/.*: ([0-9.]+) M instructions\/s/\1/' <<<"$line")
for profile in release wasm; do
  CARGO_TARGET_DIR=$ROOT/target/wasm-bench cargo build -q --manifest-path bench/wasm/Cargo.toml \
    --target wasm32-unknown-unknown --profile "$profile"
  node bench/wasm/interp.mjs "$ROOT/target/wasm-bench/wasm32-unknown-unknown/$profile/spvlab_wasm_bench.wasm" \
    "$N" "$GROUPS_" "$mips" "wasm ($profile profile)"
done
