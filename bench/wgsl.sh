#!/usr/bin/env bash
# bench/wgsl.sh: the WGSL lowering's speed against naga's, and its wasm size.
#
#   1. speed: tests/examples/wgsl_bench.rs (release) over the corpus's 844 valid runnable
#      compute modules, both sides from the same SPIR-V binary in the same run (ours:
#      binary::read_words_framing + Ir::build, operands parsed once, + cfg::analyze_for_lowering +
#      wgsl::lower; naga 30: spv-in + validate + wgsl-out), best of BENCH_RUNS runs per module after a warm-up pass;
#      prints the median and total over all modules and over those both translate, and
#      the ratios (target: median ours <= 2x naga's).
#   2. size (BENCH_WASM=1; three fat-LTO wasm builds, minutes each): spvlab-web for
#      the page built like `./x build` (wasm-bindgen, wasm-opt -Oz) with no features,
#      with the cargo feature `wgsl` (the lowering: `session.wgsl()`, the WGSL tab) and
#      with `gpu` (the lowering and the GPU runner: what ./x build ships); raw and
#      gzip -9, and the differences. Needs wasm-bindgen (.tools/bin) and www's npm ci.
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
  echo "== wasm size of the lowering and of the GPU runner"
  T=${WASM_TARGET:-wasm32-unknown-unknown}
  export PATH="$ROOT/.tools/bin:$PATH"
  command -v wasm-bindgen >/dev/null || { echo "bench/wgsl.sh: no wasm-bindgen (./x build installs it into .tools/bin)" >&2; exit 1; }
  [ -x www/node_modules/.bin/wasm-opt ] || echo "warning: no www/node_modules/.bin/wasm-opt (npm ci in www/): sizes before wasm-opt" >&2
  size() { # size FEATURES -> "raw gzip" of the wasm-opt'ed module, as ./x build makes it
    local dir="$ROOT/target/bench/wasm-${1:-none}"
    cargo build -q --target "$T" -p spvlab-web --profile wasm ${1:+--features "$1"}
    mkdir -p "$dir"
    wasm-bindgen --target web --out-dir "$dir" "target/$T/wasm/spvlab_web.wasm"
    local w="$dir/spvlab_web_bg.wasm" opt="www/node_modules/.bin/wasm-opt"
    if [ -x "$opt" ]; then "$opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue "$w" -o "$w.opt" && mv "$w.opt" "$w"; fi
    echo "$(stat -c %s "$w") $(gzip -9 -c "$w" | wc -c)"
  }
  # none: neither (`session.wgsl()` says "unavailable", runGpu "noDevice");
  # wgsl: the lowering (the WGSL tab); gpu: the lowering and the GPU runner
  # (wgpu's WebGPU backend): what ./x build ships.
  read -r a ag < <(size "")
  read -r b bg < <(size wgsl)
  read -r c cg < <(size gpu)
  printf '%-52s %10s %10s\n' "page wasm (wasm-opt -Oz)" "bytes" "gzip -9"
  printf '%-52s %10d %10d\n' "without the lowering or the GPU runner" "$a" "$ag" \
    "with the lowering (feature wgsl)" "$b" "$bg" "with the lowering and GPU runner (gpu: ./x build)" "$c" "$cg"
  echo "the lowering adds $((b - a)) bytes, $((bg - ag)) gzip; the GPU runner $((c - b)) bytes, $((cg - bg)) gzip; both $((c - a)) bytes, $((cg - ag)) gzip"
fi
