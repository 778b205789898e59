#!/usr/bin/env bash
# bench/wgsl.sh: the WGSL lowering's speed against naga's, and its wasm size (issue 11).
#
#   1. speed: tests/examples/wgsl_bench.rs (release) over the corpus's 844 valid runnable
#      compute modules, both sides from the same SPIR-V binary in the same run (ours:
#      binary::read_words_framing + Ir::build, operands parsed once, + cfg::analyze +
#      wgsl::lower; naga 30: spv-in + validate + wgsl-out), best of BENCH_RUNS runs per module after a warm-up pass;
#      prints the median and total over all modules and over those both translate, and
#      the ratios (issue 11: median ours <= 2x naga's).
#   2. size (BENCH_WASM=1; two fat-LTO wasm builds, minutes): spvlab-web for the page
#      as `./x build` makes it, and the same with the cargo feature `wgsl` that exports
#      `wgsl::lower` (the page does not call it yet); the difference, raw and gzip -9.
#
# Environment: BENCH_RUNS (default 5), BENCH_WASM=1, SPVLAB_CORPUS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${BENCH_RUNS:-5}

echo "== build (release)"
cargo build --release -q -p spvlab-tests --example wgsl_bench
echo "== lowering speed: ours vs naga, best of $RUNS per module"
"$ROOT/target/release/examples/wgsl_bench" --runs "$RUNS"

if [ -n "${BENCH_WASM:-}" ]; then
  echo "== wasm size of the lowering"
  T=${WASM_TARGET:-wasm32-unknown-unknown}
  size() { # size FEATURES -> "raw gzip" of the wasm-opt'ed module
    local dir="$ROOT/target/bench/wasm-$1"
    cargo build -q --target "$T" -p spvlab-web --profile wasm ${1:+--features "$1"}
    mkdir -p "$dir"
    wasm-bindgen --target web --out-dir "$dir" "target/$T/wasm/spvlab_web.wasm"
    local w="$dir/spvlab_web_bg.wasm" opt="www/node_modules/.bin/wasm-opt"
    if [ -x "$opt" ]; then "$opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue "$w" -o "$w.opt" && mv "$w.opt" "$w"; fi
    echo "$(stat -c %s "$w") $(gzip -9 -c "$w" | wc -c)"
  }
  read -r a ag < <(size "")
  read -r b bg < <(size wgsl)
  echo "page wasm: $a bytes ($ag gzip); with wgsl::lower exported: $b bytes ($bg gzip)"
  echo "the lowering adds $((b - a)) bytes, $((bg - ag)) gzip"
fi
