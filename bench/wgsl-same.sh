#!/usr/bin/env bash
# bench/wgsl-same.sh OLD NEW: `OLD wgsl --target-env E F` and `NEW wgsl --target-env E F` (two
# spvlab binaries, e.g. main's release build copied aside and a speed branch's) over every
# module of the corpus, E its manifest's target env: stdout, stderr and exit code must be the
# same. A speed change to the lowering, the IR or the CFG
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
w=0
while IFS=$'\t' read -r f env; do
  "$OLD" wgsl --target-env "$env" "$f" >"$T/a.out" 2>"$T/a.err"; ea=$?
  "$NEW" wgsl --target-env "$env" "$f" >"$T/b.out" 2>"$T/b.err"; eb=$?
  [ "$eb" = 0 ] && w=$((w + 1))
  n=$((n + 1))
  if [ "$ea" != "$eb" ] || ! cmp -s "$T/a.out" "$T/b.out" || ! cmp -s "$T/a.err" "$T/b.err"; then
    d=$((d + 1))
    echo "differs: $f (exit $ea / $eb)"
  fi
done < <(python3 -c '
import json, os, sys
c = sys.argv[1]
for e in json.load(open(os.path.join(c, "manifest.json"))):
    print(os.path.join(c, e["file"]) + "\t" + e.get("target_env", "spv1.6"))' "$CORPUS")
echo "$n modules ($w lowered by NEW), $d differ"
[ "$n" -gt 0 ] && [ "$d" = 0 ]
