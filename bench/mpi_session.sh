#!/usr/bin/env bash
# One device session for measure=mpi on real GPUs (issue 16,
# bench/results/tuning-throughput/): unpacks the bundle, then tunes 4096^3
# f16 (wgmma, 32 trials, seed 1) with local workers and again under mpirun
# (rank 0 searches, rank r measures on GPU r-1), so the two logs compare
# trial by trial; then checks that a Python process holding kernels exits
# cleanly and races two shapes (bench/race.py's exit status).
#
#   bench/mpi_session.sh OUT [RANKS]   (RANKS: default 1 + the GPU count)
set -uo pipefail
out=$1
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python TESSEL_CACHE=$out/cache
gpus=$(nvidia-smi -L | wc -l)
ranks=${2:-$((gpus + 1))}
{ nvidia-smi --query-gpu=name,driver_version --format=csv; mpirun --version | head -1; } > "$out/env.txt" 2>&1
W=$B/schedules/matmul_relu_wgmma.mlir
opts="schedule=$W strategy=evolutionary budget=32 seed=1 progress=none"
for mode in worker mpi; do
  start=$(date +%s.%N)
  if [ $mode = mpi ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun --oversubscribe -np "$ranks" "$B/bin/tessel-opt" "$here/examples/matmul_relu_4096_f16.mlir" \
      --tessel-tune="$opts db=$out/$mode.db measure=mpi" -o /dev/null 2> "$out/$mode.log"
  else
    "$B/bin/tessel-opt" "$here/examples/matmul_relu_4096_f16.mlir" \
      --tessel-tune="$opts db=$out/$mode.db measure=worker" -o /dev/null 2> "$out/$mode.log"
  fi
  rc=$?
  end=$(date +%s.%N)
  echo "$mode: exit $rc, $(python3 -c "print(round($end-$start,1))") s" | tee -a "$out/wall.txt"
  grep -E "^\[tune\] (matmul|re-measured|  |the |winner)" "$out/$mode.log" | grep -v "^\[tune\]    *[0-9]*/" | tail -7
  "$B/bin/tessel-db" export "$out/$mode.db" -o "$out/$mode.json"
done
python3 - "$out" <<'PY'
import json, sys
w = {tuple(sorted(r["knobs"].items())): r for r in json.load(open(f"{sys.argv[1]}/worker.json"))["records"]}
m = {tuple(sorted(r["knobs"].items())): r for r in json.load(open(f"{sys.argv[1]}/mpi.json"))["records"]}
both = [k for k in w if k in m and w[k]["status"] == m[k]["status"] == "ok"]
same_status = sum(w[k]["status"] == m[k]["status"] for k in w if k in m)
ratios = sorted(m[k]["median_ms"] / w[k]["median_ms"] for k in both)
print(f"records: worker {len(w)}, mpi {len(m)}, common {sum(k in m for k in w)}, same status {same_status}")
if ratios:
    print(f"mpi/worker median_ms over {len(ratios)} ok: min {ratios[0]:.3f} median {ratios[len(ratios)//2]:.3f} max {ratios[-1]:.3f}")
print("gpus in mpi records:", sorted({r.get('gpu') for r in m.values()}, key=str))
PY
python3 - > "$out/exit.txt" 2>&1 <<'PY'
import torch, tessel
a = torch.randn(256, 128, device="cuda", dtype=torch.float16)
b = torch.randn(128, 512, device="cuda", dtype=torch.float16)
keep = [tessel.matmul_relu(a, b), tessel.matmul_relu(b.t().contiguous(), a.t().contiguous())]
torch.cuda.synchronize()
print("done")
PY
echo "python with kernels alive: exit $?"; cat "$out/exit.txt"
python3 "$here/bench/race.py" --dtypes f16 --shapes 1024x1024x1024,4096x4096x4096 \
  --contenders tessel,tessel-rule,cublaslt --out "$out/race" > "$out/race.txt" 2>&1
echo "race exit $?"; tail -6 "$out/race.txt"
rm -rf "$out/cache"
