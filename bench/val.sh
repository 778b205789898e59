#!/usr/bin/env bash
# bench/val.sh: the validator's benchmarks, `spvlab val` vs the reference `spirv-val`.
#
#   1. builds `spvlab` (cli) and `gen-big` (fuzz) in release;
#   2. inputs: target/bench/big.spv (the big module of bench/run.sh: gen-big, then the
#      reference spirv-as) and target/bench/cfg{25,50,100,200}k.spv (`spvlab gen-cfg --fill`: one function of
#      25,000 / 50,000 / 100,000 / 200,000 blocks of randomly nested selections, loops and switches,
#      up to 200 constructs deep, valid for spirv-val);
#   3. times, best of N (hyperfine -N when installed, else a shell loop), on the same
#      binaries in the same run: `spirv-val` vs `spvlab val` on big.spv (ratio, target
#      <= 0.3x); `spvlab val` on the CFGs: the 100k time (target < 0.5 s) and the
#      200k/100k ratio (target < 2.5x, near-linear).
#   spirv-val needs about a minute on the 25k-block function and minutes on the larger ones
#   (about 150 s at 50k and 290 s at 100k blocks on the 2-core VM: it grows quadratically
#   with the number of loops), so it is timed once on the 25k one, and on 50k and 100k only
#   with BENCH_REF_CFG=1, once each, which also checks that it accepts them.
#
# Environment: BENCH_RUNS (N, default 10), BENCH_REF_CFG=1, BENCH_CFG_DEPTH (default 200),
# SPVLAB_SPIRV_TOOLS (reference bin folder; default .tools/venv/.../cmeel.prefix/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/target/bench
RUNS=${BENCH_RUNS:-10}
DEPTH=${BENCH_CFG_DEPTH:-200}
mkdir -p "$OUT"

# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
SPVLAB=$ROOT/target/release/spvlab
SUMMARY=()

echo "== build (release)"
cargo build --release -q -p spvlab-cli -p spvlab-fuzz --bins

# to_spv IN.spvasm OUT.spv: the reference spirv-as, else ours (same bytes).
to_spv() {
  if [ -n "$B" ]; then "$B/spirv-as" --target-env spv1.6 "$1" -o "$2"; else "$SPVLAB" as --target-env spv1.6 "$1" -o "$2"; fi
}

echo "== inputs"
if [ ! -s "$OUT/big.spvasm" ]; then
  "$ROOT/target/release/gen-big" -o "$OUT/big.spvasm"
fi
to_spv "$OUT/big.spvasm" "$OUT/big.spv"
echo "big.spv: $(stat -c %s "$OUT/big.spv") bytes"
for k in 25 50 100 200; do
  "$ROOT/target/release/spvlab" gen-cfg --fill --dead 3 --blocks $((k * 1000)) --depth "$DEPTH" -o "$OUT/cfg${k}k.spvasm"
  to_spv "$OUT/cfg${k}k.spvasm" "$OUT/cfg${k}k.spv"
done
[ -n "$B" ] || echo "reference SPIRV-Tools not found (set SPVLAB_SPIRV_TOOLS): reference timings skipped"

# verdict CMD...: "valid" or "invalid" by the exit status.
verdict() { if "$@" >/dev/null 2>&1; then echo valid; else echo invalid; fi; }

line() { echo "$1"; SUMMARY+=("$1"); }

echo "== spirv-val vs spvlab val, best of $RUNS$(command -v hyperfine >/dev/null && echo ' (hyperfine)')"
ours=$(best_ms "$SPVLAB" val "$OUT/big.spv")
vo=$(verdict "$SPVLAB" val "$OUT/big.spv")
if [ -n "$B" ]; then
  ref=$(best_ms "$B/spirv-val" --target-env spv1.6 "$OUT/big.spv")
  vr=$(verdict "$B/spirv-val" --target-env spv1.6 "$OUT/big.spv")
  line "$(printf 'val big.spv        spirv-val %9s ms (%s)   spvlab %9s ms (%s)' "$ref" "$vr" "$ours" "$vo")$(awk -v a="$ours" -v b="$ref" 'BEGIN { printf "   ratio %.2fx (target <= 0.3x)", a / b }')"
else
  line "$(printf 'val big.spv        spvlab %9s ms (%s)' "$ours" "$vo")"
fi
ours_txt=$(best_ms "$SPVLAB" val "$OUT/big.spvasm")
line "$(printf 'val big.spvasm     spvlab %9s ms (text: assemble + validate + locate)' "$ours_txt")"

declare -A T
for k in 25 50 100 200; do
  T[$k]=$(best_ms "$SPVLAB" val "$OUT/cfg${k}k.spv")
  v=$(verdict "$SPVLAB" val "$OUT/cfg${k}k.spv")
  l=$(printf 'val %-15s spvlab %9s ms (%s)' "cfg${k}k.spv" "${T[$k]}" "$v")
  if [ -n "$B" ] && { [ "$k" = 25 ] || { [ -n "${BENCH_REF_CFG:-}" ] && [ "$k" != 200 ]; }; }; then
    t0=$(date +%s%N); vr=$(verdict "$B/spirv-val" --target-env spv1.6 "$OUT/cfg${k}k.spv"); t1=$(date +%s%N)
    r=$(( (t1 - t0) / 1000000 ))
    l+=$(printf '   spirv-val %s ms once (%s)' "$r" "$vr")
    l+=$(awk -v a="${T[$k]}" -v b="$r" 'BEGIN { printf "   ratio %.4fx", a / b }')
  fi
  line "$l"
done
line "$(awk -v a="${T[100]}" 'BEGIN { printf "100k-block function: %.1f ms (target < 500 ms): %s", a, (a < 500 ? "ok" : "MISSED") }')"
line "$(awk -v a="${T[200]}" -v b="${T[100]}" 'BEGIN { printf "200k/100k: %.2fx (target < 2.5x): %s", a / b, (a / b < 2.5 ? "ok" : "MISSED") }')"

echo "== summary"
printf '%s\n' "${SUMMARY[@]}"
