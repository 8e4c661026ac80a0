#!/usr/bin/env bash
# One device session for issue 16's "tuned is at least as fast as the
# defaults in an independent race" (bench/results/tuning-race/): unpacks the
# bundle (scripts/make-bundle.sh --with-tests), tunes each shape with the
# wgmma schedule into one SQLite database (tessel tune: BUDGET trials,
# default 40, the finalists being the two best and the rule's defaults),
# then races, in one process, tessel (the tuned knobs), tessel-rule (the
# defaults) and cuBLASLt's fused ReLU with bench/race.py on the same shapes.
#
#   bench/tune_race_session.sh OUT [SHAPE...]   (default: ANCHORS.md's f16
#                                                shapes and 4096^3 bf16)
# bench/tune_race.py summarizes OUT (tuner vs race, tuned vs defaults).
set -uo pipefail
out=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python TESSEL_CACHE=$out/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(f16:256x1024x1024 f16:1024x1024x1024
  f16:2048x2048x2048 f16:4096x4096x4096 f16:8192x8192x8192
  f16:4096x4096x1024 f16:16384x1024x4096 f16:128x4096x4096
  bf16:4096x4096x4096)
W=$B/schedules/matmul_relu_wgmma.mlir
for s in "${shapes[@]}"; do
  dtype=${s%%:*}; mnk=${s#*:}; IFS=x read -r m n k <<< "$mnk"
  start=$(date +%s.%N)
  python3 -m tessel tune "$m" "$n" "$k" --dtype "$dtype" --schedule "$W" \
    --budget "${BUDGET:-40}" --db "$out/tuning.db" \
    > "$out/tune-$dtype-$mnk.out" 2> "$out/tune-$dtype-$mnk.log"
  rc=$?
  end=$(date +%s.%N)
  echo "$dtype $mnk: exit $rc, $(python3 -c "print(round($end-$start,1))") s" | tee -a "$out/wall.txt"
  grep -E "^\[tune\] (re-measured|  |the |winner)" "$out/tune-$dtype-$mnk.log" | grep -v "^\[tune\]    *[0-9]*/" | tail -6
done
# The race reads the user's database ($TESSEL_CACHE/tuning.db) first.
cp "$out/tuning.db" "$out/cache/tuning.db"
# RACE=0 tunes only.
[ "${RACE:-1}" = 0 ] && shapes=()
for dtype in f16 bf16; do
  list=$(printf '%s\n' "${shapes[@]}" | sed -n "s/^$dtype://p" | paste -sd, -)
  [ -n "$list" ] || continue
  python3 "$here/bench/race.py" --dtypes "$dtype" --shapes "$list" \
    --contenders tessel,tessel-rule,cublaslt --out "$out/race-$dtype" \
    > "$out/race-$dtype.txt" 2>&1
  echo "race $dtype exit $?"; tail -14 "$out/race-$dtype.txt"
done
"$B/bin/tessel-db" export "$out/tuning.db" -o "$out/tuning.json"
rm -rf "$out/cache"
# The device tool brings back 8 files: the tuner's logs travel as one.
(cd "$out" && tar -cJf tune-logs.tar.xz tune-*.log tune-*.out &&
  rm -f tune-*.log tune-*.out tuning.db)
