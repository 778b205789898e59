#!/usr/bin/env bash
# bench/run.sh: spvlab's performance benchmarks, end to end, in one run.
#
#   1. builds `spvlab` (cli) and the generator in release;
#   2. generates the big module (target/bench/big.spvasm, >= 6 MB of text) and makes
#      its binary with the reference spirv-as (target/bench/big.spv); checks it with spirv-val;
#   3. times reference `spirv-as` vs `spvlab as` on big.spvasm and reference `spirv-dis`
#      vs `spvlab dis` on big.spv (best of N; hyperfine when installed, else a shell loop),
#      compares the outputs byte for byte, prints the ratios ours/theirs (target <= 0.5x);
#   4. library timing of assemble/disassemble alone (cargo bench -p spvlab-fuzz --bench codec);
#   5. the wasm build (bench/wasm, release = opt-level 3 and the shipped `wasm` profile =
#      opt-level s) timed under Node on the same files, ratio wasm/native (target <= 2x).
#
# Environment: BENCH_RUNS (N, default 10), BENCH_MIN_BYTES (default 6000000),
# SPVLAB_SPIRV_TOOLS (reference bin folder; default .tools/venv/.../cmeel.prefix/bin),
# BENCH_SKIP_WASM=1, BENCH_SKIP_LIB=1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/target/bench
RUNS=${BENCH_RUNS:-10}
MIN_BYTES=${BENCH_MIN_BYTES:-6000000}
export BENCH_RUNS=$RUNS
mkdir -p "$OUT"

# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
SPVLAB=$ROOT/target/release/spvlab
SUMMARY=()

echo "== build (release)"
cargo build --release -q -p spvlab-cli -p spvlab-fuzz --bins

echo "== generate"
"$ROOT/target/release/gen-big" -o "$OUT/big.spvasm" --min-bytes "$MIN_BYTES"
if [ -n "$B" ]; then
  "$B/spirv-as" --version | head -1
  "$B/spirv-as" --target-env spv1.6 "$OUT/big.spvasm" -o "$OUT/big.spv"
  "$B/spirv-val" --target-env spv1.6 "$OUT/big.spv"
  echo "big.spv: $(stat -c %s "$OUT/big.spv") bytes, accepted by spirv-val"
else
  echo "reference SPIRV-Tools not found (set SPVLAB_SPIRV_TOOLS): reference timings skipped"
  rm -f "$OUT/big.spv"
  "$SPVLAB" as "$OUT/big.spvasm" -o "$OUT/big.spv" 2>/dev/null || true
fi

# compare NAME REF_OUT OURS_OUT REF_CMD... -- OURS_CMD...
compare() {
  local name=$1 ref_out=$2 ours_out=$3; shift 3
  local ref=() ours=()
  while [ "$1" != "--" ]; do ref+=("$1"); shift; done; shift
  ours=("$@")
  local tref="" tours="" note=""
  if [ -n "$B" ]; then
    rm -f "$ref_out"; "${ref[@]}" >/dev/null
    tref=$(best_ms "${ref[@]}")
  fi
  rm -f "$ours_out"
  local err
  if err=$("${ours[@]}" 2>&1 >/dev/null) && [ -s "$ours_out" ]; then
    tours=$(best_ms "${ours[@]}")
    if [ -n "$B" ]; then
      if cmp -s "$ref_out" "$ours_out"; then note="output identical to the reference"; else note="OUTPUT DIFFERS from the reference"; fi
    fi
  else
    local why; why=$(printf "%s" "$err" | head -1 | cut -c1-100); note="spvlab FAILED (${why:-no output written}; numbers pending)"
  fi
  local line
  line=$(printf '%-28s reference %9s ms   spvlab %9s ms' "$name" "${tref:--}" "${tours:--}")
  if [ -n "$tref" ] && [ -n "$tours" ]; then
    line+=$(awk -v a="$tours" -v b="$tref" 'BEGIN { printf "   ratio %.2fx (target <= 0.5x)", a / b }')
  fi
  line+="   $note"
  echo "$line"
  SUMMARY+=("$line")
}

echo "== CLI: best of $RUNS$(command -v hyperfine >/dev/null && echo ' (hyperfine)')"
compare "as  (big.spvasm)" "$OUT/ref.spv" "$OUT/ours.spv" \
  "$B/spirv-as" --target-env spv1.6 "$OUT/big.spvasm" -o "$OUT/ref.spv" -- \
  "$SPVLAB" as --target-env spv1.6 "$OUT/big.spvasm" -o "$OUT/ours.spv"
if [ -s "$OUT/big.spv" ]; then
  compare "dis (big.spv)" "$OUT/ref.dis.spvasm" "$OUT/ours.dis.spvasm" \
    "$B/spirv-dis" "$OUT/big.spv" -o "$OUT/ref.dis.spvasm" -- \
    "$SPVLAB" dis "$OUT/big.spv" -o "$OUT/ours.dis.spvasm"
else
  echo "dis: no binary to disassemble (no reference tools and spvlab as failed)"
fi

if [ -z "${BENCH_SKIP_LIB:-}" ]; then
  echo "== library (cargo bench -p spvlab-fuzz --bench codec)"
  cargo bench -q -p spvlab-fuzz --bench codec 2>/dev/null | grep -v '^$' || true
fi

if [ -z "${BENCH_SKIP_WASM:-}" ] && [ -s "$OUT/big.spv" ]; then
  for profile in release wasm; do
    echo "== wasm32 ($profile profile) under Node"
    CARGO_TARGET_DIR=$ROOT/target/wasm-bench cargo build -q --manifest-path bench/wasm/Cargo.toml \
      --target wasm32-unknown-unknown --profile "$profile"
    node bench/wasm/bench.mjs "$ROOT/target/wasm-bench/wasm32-unknown-unknown/$profile/spvlab_wasm_bench.wasm" \
      "$OUT/big.spvasm" "$OUT/big.spv" "$OUT/native.json" "wasm ($profile profile)"
  done
fi

echo "== summary (CLI)"
printf '%s\n' "${SUMMARY[@]}"
