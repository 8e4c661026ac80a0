#!/usr/bin/env bash
# One GPU session of tuning work, with the bundle unpacked at $TESSEL
# (default /tmp/tessel):
#   1. planted bad candidates (illegal address, hang, wrong result) are
#      survived and reported;
#   2. kill -9 in the middle of a run leaves a valid database;
#   3. tunes several shapes (evolutionary search);
#   4. measures default vs tuned knobs with the full method.
#   bench/tune_gpu_session.sh OUT_DIR [EXTRA_DB]
# SHAPES="4096_f32 ..." picks the shapes to tune (and compare);
# SCHEDULE=schedules/... the schedule (default: SIMT); BUDGET=N trials per
# shape (default 40); SKIP_FAULTS=1 skips steps 1 and 2.
set -uo pipefail
out=${1:?output directory}
T=${TESSEL:-/tmp/tessel}/bin
S=${SCHEDULE:-schedules/matmul_relu_simt.mlir}
mkdir -p "$out"

if [ -z "${SKIP_FAULTS:-}" ]; then
echo "== planted faults"
"$T/tessel-opt" examples/matmul_relu_1024_f32.mlir \
  --tessel-tune="schedule=$S strategy=random budget=20 seed=7 db=$out/faults.json warmup-ms=5 rep-ms=20 timeout=5 inject-faults=tile_m=16:wrong;tile_m=32:illegal-address;tile_n=32:hang" \
  -o /dev/null 2> "$out/faults.log"
echo "exit status: $?"
grep -E "^\[tune\] (rejected|winner|best)" "$out/faults.log"

echo "== kill -9"
"$T/tessel-opt" examples/matmul_relu_1024_f32.mlir \
  --tessel-tune="schedule=$S strategy=random budget=500 db=$out/killed.json warmup-ms=5 rep-ms=20" \
  -o /dev/null 2> "$out/killed.log" & pid=$!
sleep 6; kill -9 $pid; wait $pid
python3 -c "import json; d=json.load(open('$out/killed.json')); print('after kill -9: valid database,', len(d['records']), 'records')"
fi

echo "== tuning"
[ -n "${2:-}" ] && cp "$2" "$out/tuning.json"
shapes=${SHAPES:-"4096_f16 4096_f32 2048_f32 16384x1024x4096_f16 16384x1024x4096_f32"}
for s in $shapes; do
  start=$(date +%s.%N)
  "$T/tessel-opt" examples/matmul_relu_$s.mlir \
    --tessel-tune="schedule=$S strategy=evolutionary budget=${BUDGET:-40} seed=1 db=$out/tuning.json warmup-ms=10 rep-ms=40" \
    -o /dev/null 2> "$out/tune_$s.log"
  echo "$s: exit $? in $(python3 -c "import time; print(round(time.time()-$start,1))") s; $(grep -E '^\[tune\] winner' "$out/tune_$s.log")"
done

echo "== default vs tuned (full method)"
ex=""
for s in ${COMPARE:-2048_f16 $shapes}; do ex="$ex examples/matmul_relu_$s.mlir"; done
python3 bench/run_examples.py --tools "$T" --schedule "$S" --examples $ex --out "$out/defaults.json" > "$out/defaults.md" 2>/dev/null
python3 bench/run_examples.py --tools "$T" --schedule "$S" --examples $ex --db "$out/tuning.json" --out "$out/tuned.json" > "$out/tuned.md" 2>/dev/null
cat "$out/defaults.md" "$out/tuned.md"
# The device tool brings back few files: pack everything into one.
tar -C "$out" -czf /tmp/session.tgz --exclude=session.tgz . && mv /tmp/session.tgz "$out/session.tgz"
