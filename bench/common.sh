# Shared by bench/run.sh and bench/val.sh (sourced; they set ROOT, OUT and RUNS first).

# B: the reference SPIRV-Tools bin folder ($SPVLAB_SPIRV_TOOLS, else .tools/venv), or "".
B=""
if [ -n "${SPVLAB_SPIRV_TOOLS:-}" ] && [ -x "$SPVLAB_SPIRV_TOOLS/spirv-as" ]; then
  B=$SPVLAB_SPIRV_TOOLS
else
  for d in "$ROOT"/.tools/venv/lib/*/site-packages/cmeel.prefix/bin; do
    [ -x "$d/spirv-as" ] && B=$d
  done
fi

# best_ms CMD...: the best wall time of RUNS runs, in milliseconds (hyperfine when
# installed, else a shell loop). The exit status is ignored: an invalid verdict is
# timed like a valid one.
best_ms() {
  if command -v hyperfine >/dev/null 2>&1; then
    hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$OUT/hf.json" -- "$*" >/dev/null 2>&1
    python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][0]["min"] * 1000))' "$OUT/hf.json"
  else
    "$@" >/dev/null 2>&1 || true
    local best=""
    for _ in $(seq "$RUNS"); do
      local t0 t1 d
      t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
      d=$(( (t1 - t0) / 1000 ))
      if [ -z "$best" ] || [ "$d" -lt "$best" ]; then best=$d; fi
    done
    awk -v us="$best" 'BEGIN { printf "%.2f\n", us / 1000 }'
  fi
}
