#!/usr/bin/env bash
# bench/wgsl-same.sh OLD NEW: `OLD wgsl F` and `NEW wgsl F` (two spvlab binaries, e.g. main's
# release build copied aside and a speed branch's) over every module of the corpus: stdout,
# stderr and exit code must be the same. A speed change to the lowering, the IR or the CFG
# passes this before it is merged. Prints each module that differs, then the counts; exits 1
# when any differs.
set -u
OLD=${1:?usage: bench/wgsl-same.sh OLD_SPVLAB NEW_SPVLAB}
NEW=${2:?usage: bench/wgsl-same.sh OLD_SPVLAB NEW_SPVLAB}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${SPVLAB_CORPUS:-$ROOT/../shared/corpus}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
d=0
while IFS= read -r f; do
  "$OLD" wgsl "$f" >"$T/a.out" 2>"$T/a.err"; ea=$?
  "$NEW" wgsl "$f" >"$T/b.out" 2>"$T/b.err"; eb=$?
  n=$((n + 1))
  if [ "$ea" != "$eb" ] || ! cmp -s "$T/a.out" "$T/b.out" || ! cmp -s "$T/a.err" "$T/b.err"; then
    d=$((d + 1))
    echo "differs: $f (exit $ea / $eb)"
  fi
done < <(find "$CORPUS/cases" -name '*.spvasm' | sort)
echo "$n modules, $d differ"
[ "$n" -gt 0 ] && [ "$d" = 0 ]
