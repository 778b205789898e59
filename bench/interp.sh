#!/usr/bin/env bash
# The interpreter's speed: M SPIR-V instructions per second on the loop
# kernel of bench/interp-kernel.spvasm, natively and in wasm32 under Node (the
# release profile and the shipped size-optimised `wasm` profile).
#   bench/interp.sh [N_PER_INVOCATION] [GROUPS] [ROUNDS]   (defaults 31250, 1 and 3: 64 invocations)
# The three are built first, then run in ROUNDS interleaved rounds (native,
# wasm release, wasm shipped; each run the best of 5 passes), so that each
# round's three meet the same load. Every round is printed; the ratio of a
# wasm profile to native is that of the best time of each over all rounds.
# With the page's binaryen (www/node_modules/.bin/wasm-opt, after `./x build`)
# the shipped profile's module is also run through `wasm-opt -Oz` as
# `./x build` does.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
N="${1:-31250}"
GROUPS_="${2:-1}"
ROUNDS="${3:-3}"
cargo build -q --release -p spvlab-tests --bin interp-bench
for profile in release wasm; do
  CARGO_TARGET_DIR=$ROOT/target/wasm-bench cargo build -q --manifest-path bench/wasm/Cargo.toml \
    --target wasm32-unknown-unknown --profile "$profile"
done
WASM_DIR=$ROOT/target/wasm-bench/wasm32-unknown-unknown
SHIPPED=$WASM_DIR/wasm/spvlab_wasm_bench.wasm
OPT="$ROOT/www/node_modules/.bin/wasm-opt"
if [ -x "$OPT" ]; then
  "$OPT" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$SHIPPED" -o "$WASM_DIR/wasm/spvlab_wasm_bench.opt.wasm"
  SHIPPED=$WASM_DIR/wasm/spvlab_wasm_bench.opt.wasm
  echo "shipped profile: after wasm-opt -Oz"
else
  echo "shipped profile: without wasm-opt (no $OPT)"
fi
# The time in ms of a line "... in T ms (best of 5) ...".
ms() { sed -E 's/.* in ([0-9.]+) ms.*/\1/' <<<"$1"; }
best_native=inf best_release=inf best_shipped=inf
min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "inf" || b + 0 < a + 0) print b; else print a }'; }
for r in $(seq "$ROUNDS"); do
  line=$(target/release/interp-bench $((N * GROUPS_ * 64)) $((GROUPS_ * 64)))
  native=$(ms "$line")
  echo "round $r native: $line"
  best_native=$(min "$best_native" "$native")
  for which in release shipped; do
    if [ "$which" = release ]; then wasm=$WASM_DIR/release/spvlab_wasm_bench.wasm; else wasm=$SHIPPED; fi
    line=$(node bench/wasm/interp.mjs "$wasm" "$N" "$GROUPS_" "" "wasm ($which profile)")
    t=$(ms "$line")
    echo "round $r $line, $(awk -v w="$t" -v n="$native" 'BEGIN { printf "%.2f", w / n }')x this round's native time"
    if [ "$which" = release ]; then best_release=$(min "$best_release" "$t"); else best_shipped=$(min "$best_shipped" "$t"); fi
  done
done
ratio() { awk -v w="$1" -v n="$best_native" 'BEGIN { printf "%.2f", w / n }'; }
echo "best of $ROUNDS rounds: native ${best_native} ms; wasm release ${best_release} ms, $(ratio "$best_release")x; wasm shipped ${best_shipped} ms, $(ratio "$best_shipped")x"
