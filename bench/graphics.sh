#!/usr/bin/env bash
# The interpreter's graphics speed: the median GraphicsFuzz test (parse,
# assemble, draw of a 256x256 DRAW_RECT and the probes; the draw is nearly all
# of it) natively on one core (amber-frames) and in wasm32 under Node (the
# `wasm-draw` profile of the page's full engine, which draws, bench/wasm's
# `amber_run`), over every
# STRIDEth GraphicsFuzz test of the corpus, in interleaved rounds so that both
# meet the same load; the ratio is that of the best median of each.
#   bench/graphics.sh [STRIDE] [ROUNDS]   (defaults 5 and 2)
# The whole suite against lavapipe: `cargo test --release -p spvlab-tests
# --test gpu_amber_graphics -- --ignored --nocapture timing`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
STRIDE="${1:-5}"
ROUNDS="${2:-2}"
CORPUS="${SPVLAB_CORPUS:-$ROOT/../shared/corpus}"
mapfile -t FILES < <(ls "$CORPUS"/amber/vk-gl-cts/graphicsfuzz_*.amber | awk -v s="$STRIDE" 'NR % s == 1')
echo "${#FILES[@]} GraphicsFuzz tests (every ${STRIDE}th)"
cargo build -q --release -p spvlab-tests --bin amber-frames
# The wasm32 target as ./x installs it: rustup's, else Debian's rustc-web
# building std itself.
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  CARGO_TARGET_DIR=$ROOT/target/wasm-bench cargo build -q --manifest-path bench/wasm/Cargo.toml \
    --target wasm32-unknown-unknown --profile wasm-draw
else
  PATH="/usr/bin:$PATH" RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=$ROOT/target/wasm-bench cargo build -q \
    --manifest-path bench/wasm/Cargo.toml --target wasm32-unknown-unknown --profile wasm-draw -Z build-std=std,panic_abort
fi
WASM=$ROOT/target/wasm-bench/wasm32-unknown-unknown/wasm-draw/spvlab_wasm_bench.wasm
med() { sed -E 's/.* median ([0-9.]+) ms.*/\1/' <<<"$1"; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "inf" || b + 0 < a + 0) print b; else print a }'; }
best_native=inf best_wasm=inf
for r in $(seq "$ROUNDS"); do
  line=$(target/release/amber-frames "${FILES[@]}" | tail -1)
  echo "round $r $line"
  best_native=$(min "$best_native" "$(med "$line")")
  line=$(node bench/wasm/frames.mjs "$WASM" "wasm (the draw engine's profile)" "${FILES[@]}")
  echo "round $r $line"
  best_wasm=$(min "$best_wasm" "$(med "$line")")
done
echo "best median of $ROUNDS rounds: native ${best_native} ms (target <= 250 ms); wasm ${best_wasm} ms, $(awk -v w="$best_wasm" -v n="$best_native" 'BEGIN { printf "%.2f", w / n }')x (target <= 2x)"
