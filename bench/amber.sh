#!/usr/bin/env bash
# bench/amber.sh OLD NEW [ROUNDS]: `spvlab amber` over the corpus's 667 compute Amber tests with
# EXPECT lines, by two spvlab binaries (e.g. a release build of an earlier commit copied aside,
# and target/release/spvlab), interleaved ROUNDS times (default 5) so that both meet the same
# load. The files with SPIR-V shaders (429) go in one call; each of those with GLSL shaders (238)
# gets its own call with its precompiled modules (`--shader NAME=FILE --target-env E`), as one
# call cannot give each file its own. Prints each round's wall time of both, their medians,
# the ratio NEW/OLD, and the two binaries' summary lines (which must be the same). With
# BENCH_CALLGRIND=1 it also counts both binaries' machine instructions on the one call of the
# SPIR-V-shader files with --jobs 1 (deterministic), the stable figure on a loaded machine.
set -euo pipefail
OLD=${1:?usage: bench/amber.sh OLD_SPVLAB NEW_SPVLAB [ROUNDS]}
NEW=${2:?usage: bench/amber.sh OLD_SPVLAB NEW_SPVLAB [ROUNDS]}
ROUNDS=${3:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${SPVLAB_CORPUS:-$ROOT/../shared/corpus}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# One line per call: the arguments after `spvlab amber`, tab-separated.
python3 - "$CORPUS" >"$T/calls" <<'PY'
import json, os, sys
c = sys.argv[1]
plain, glsl = [], []
for d in sorted(os.listdir(os.path.join(c, "amber"))):
    idx = os.path.join(c, "amber", d, "index.json")
    if not os.path.exists(idx):
        continue
    for e in json.load(open(idx)):
        if e["pipeline_kind"] != "compute" or not e.get("expects"):
            continue
        args = []
        for s in e.get("shaders") or []:
            p = os.path.join(c, s)
            first = open(p).readline()
            if not first.startswith("; corpus-meta:"):
                continue
            meta = json.loads(first[len("; corpus-meta:"):])
            if meta.get("origin", "").startswith("GLSL"):
                args += ["--shader", f"{meta['shader_name']}={p}", "--target-env", meta["asm_env"]]
        (glsl if args else plain).append([os.path.join(c, e["amber"])] + args)
print("\t".join(f[0] for f in plain))
for a in glsl:
    print("\t".join(a))
print(len(plain), len(glsl), file=sys.stderr)
PY
run_all() { # BIN -> summary lines on stdout
  local bin=$1
  while IFS=$'\t' read -r -a args; do
    "$bin" amber "${args[@]}" 2>/dev/null | tail -n 1 || true
  done <"$T/calls"
}
declare -a TO TN
for r in $(seq "$ROUNDS"); do
  for which in OLD NEW; do
    bin=${!which}
    s=$(date +%s.%N)
    run_all "$bin" >"$T/$which.out"
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    if [ "$which" = OLD ]; then TO+=("$t"); else TN+=("$t"); fi
    echo "round $r $which: ${t} s"
  done
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mo=$(median "${TO[@]}"); mn=$(median "${TN[@]}")
echo "median: OLD ${mo} s, NEW ${mn} s, NEW/OLD $(echo "scale=3; $mn / $mo" | bc)"
if cmp -s "$T/OLD.out" "$T/NEW.out"; then echo "summaries: same"; else echo "summaries DIFFER:"; diff "$T/OLD.out" "$T/NEW.out" | head -20; fi
if [ "${BENCH_CALLGRIND:-0}" = 1 ]; then
  IFS=$'\t' read -r -a first <"$T/calls"
  for which in OLD NEW; do
    bin=${!which}
    valgrind --tool=callgrind --callgrind-out-file="$T/cg.$which" "$bin" amber --jobs 1 "${first[@]}" >/dev/null 2>&1 || true
    n=$(callgrind_annotate "$T/cg.$which" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    echo "callgrind, the ${#first[@]} files with SPIR-V shaders, --jobs 1: $which $n"
  done
fi
