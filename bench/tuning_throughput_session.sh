#!/usr/bin/env bash
# One device session for the tuner's measurement (issue 16,
# bench/results/tuning-throughput/): unpacks the bundle
# (scripts/make-bundle.sh --with-tests), then runs the steps named, in
# order, into OUT:
#   lit     the GPU lit tests but the knob sweeps (tessel-run's inputs are
#           generated on the GPU now)
#   faults  planted bad candidates (wrong result, illegal address, hang) on
#           the worker and on a process per candidate: each recorded with its
#           reason, the search goes on
#   worker  tunes 4096^3 f16 (wgmma, evolutionary, BUDGET trials, default
#           100) with the persistent worker, then 8192^3 f16 (24 trials)
#   process the same 4096^3 search with a process per candidate (24 trials)
#   gpus    the 4096^3 search (GPUS_BUDGET trials, default 64) on GPU 0
#           alone, then on every GPU
#           (devices=all), for the 2-GPU machine
#   phases  where one tessel-run call's time goes (prepare: inputs and
#           reference; load; check; time) at 4096^3 and 8192^3 f16, loading
#           the PTX (JIT) and a ptxas cubin
#
#   bench/tuning_throughput_session.sh OUT STEP...
# bench/tuning_throughput.py summarizes the databases and logs.
set -uo pipefail
out=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
nproc >> "$out/env.txt"
W=$B/schedules/matmul_relu_wgmma.mlir
S=$B/schedules/matmul_relu_simt.mlir
tune() { # name example schedule options...
  local name=$1 example=$2 schedule=$3; shift 3
  local start=$(date +%s.%N)
  "$B/bin/tessel-opt" "$here/examples/$example" \
    --tessel-tune="schedule=$schedule db=$out/$name.db progress=none $*" \
    -o /dev/null 2> "$out/$name.log"
  local rc=$?
  "$B/bin/tessel-db" export "$out/$name.db" -o "$out/$name.json"
  local end=$(date +%s.%N)
  echo "$name: exit $rc, $(python3 -c "print(round($end-$start,2))") s wall" | tee -a "$out/wall.txt"
  grep -E "^\[tune\] (rejected|winner|re-measured)" "$out/$name.log"
}
for step in "$@"; do
  case $step in
    lit)
      $B/run-tests.sh -v --filter gpu --filter-out knob-sweep > "$out/lit.log" 2>&1
      echo "lit exit $?" >> "$out/lit.log"; tail -12 "$out/lit.log" ;;
    faults)
      for m in worker process; do
        tune faults-$m matmul_relu_1024_f32.mlir $S "strategy=random budget=20 seed=7 measure=$m warmup-ms=5 rep-ms=20 timeout=5 inject-faults=tile_m=16:wrong;tile_m=32:illegal-address;tile_n=32:hang"
      done ;;
    worker)
      tune worker-4096 matmul_relu_4096_f16.mlir $W "strategy=evolutionary budget=${BUDGET:-100} seed=1 measure=worker"
      tune worker-8192 matmul_relu_8192_f16.mlir $W "strategy=evolutionary budget=24 seed=1 measure=worker" ;;
    process)
      tune process-4096 matmul_relu_4096_f16.mlir $W "strategy=evolutionary budget=24 seed=1 measure=process" ;;
    gpus)
      tune gpus-one matmul_relu_4096_f16.mlir $W "strategy=evolutionary budget=${GPUS_BUDGET:-64} seed=1 devices=0"
      tune gpus-all matmul_relu_4096_f16.mlir $W "strategy=evolutionary budget=${GPUS_BUDGET:-64} seed=1 devices=all"
      python3 - "$out" <<'PY'
import json, sys, collections
for name in ("gpus-one", "gpus-all"):
    recs = json.load(open(f"{sys.argv[1]}/{name}.json"))["records"]
    by = collections.Counter(r.get("gpu") for r in recs)
    print(name, "records by gpu", dict(by))
PY
      ;;
    phases)
      for n in 4096 8192; do
        d=$out/kernels-$n; mkdir -p $d
        "$B/bin/tessel-opt" "$here/examples/matmul_relu_${n}_f16.mlir" \
          --tessel-apply-schedule="schedule=$W" --tessel-lower-to-ptx=chip=sm_90a \
          --tessel-export-kernels=dir=$d -o /dev/null
        "$B/bin/tessel-run" $d/matmul_relu.launch.json --json --warmup-ms=20 --rep-ms=100 > $out/phases-$n-ptx.json
        for f in $d/*.ptx; do ptxas -arch=sm_90a $f -o ${f%.ptx}.cubin; done
        sed -i 's/\.ptx"/.cubin"/' $d/matmul_relu.launch.json
        "$B/bin/tessel-run" $d/matmul_relu.launch.json --json --warmup-ms=20 --rep-ms=100 > $out/phases-$n-cubin.json
        python3 -c "import json,sys; [print(f, json.load(open(f))['phases_ms'], json.load(open(f))['passed']) for f in sys.argv[1:]]" $out/phases-$n-*.json
        rm -rf $d
      done ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
python3 "$here/bench/tuning_throughput.py" "$out" > "$out/summary.md" 2>&1; cat "$out/summary.md"
