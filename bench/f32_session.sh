#!/usr/bin/env bash
# One device session for f32 on tensor cores (issue 19, docs/f32.md,
# bench/results/f32/): unpacks the bundle (scripts/make-bundle.sh
# --with-tests), then runs the steps named, in order, into OUT:
#   check   bench/f32_tensor_cores.py prepare + check: every case's kernel
#           through tessel-run --json against the f64 reference (GPU)
#   race    bench/f32_tensor_cores.py race: 3xTF32 and TF32 kernels against
#           cuBLAS strict FP32 and TF32, one process
#   sweep   test/Runtime/knob-sweep-f32-gpu.test's sweeps with the weight
#           [n, k], from this checkout (every wgmma knob point at group_m 8
#           on f32 Linear layers, 3xTF32 and TF32: refused up front or
#           correct)
#   sweepkn the same with the weight [k, n] (copied transposed first)
#   kn      bench/f32_tensor_cores.py race kn: B stored [k, n] at the
#           rule's knobs (and SIMT) against cuBLAS with the same layout
#   split   bench/f32_tensor_cores.py check split-: tessel-run times of
#           split_k x tile points on the thin and small shapes
#   anchors bench/f32_tensor_cores.py race anchors: ANCHORS.md's f32 shapes,
#           wgmma at the rule's knobs, both precisions, against cuBLAS
#   lit     the GPU lit tests but the knob sweeps
#   pytest  the Python tests on the GPU (this checkout's package)
#
#   bench/f32_session.sh OUT STEP...
set -uo pipefail
out=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python PATH=$B/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
cases=/tmp/f32cases
# Compiles the cases once per machine: a marker, not the directory, says a
# prepare completed (a failed one is redone, not reused).
prepare() {
  [ -f $cases/.prepared ] && return
  rm -rf $cases
  python3 "$here/bench/f32_tensor_cores.py" prepare $cases > "$out/prepare.log" 2>&1 &&
    touch $cases/.prepared
  echo "prepare: $(grep -c ' ok$' "$out/prepare.log") ok, $(grep -c refused "$out/prepare.log") refused"
}
for step in "$@"; do
  case $step in
    check)
      prepare
      python3 "$here/bench/f32_tensor_cores.py" check $cases "$out/check.json" > "$out/check.log" 2>&1
      echo "check exit $?" >> "$out/check.log"; cat "$out/check.log" ;;
    race)
      prepare
      python3 "$here/bench/f32_tensor_cores.py" race $cases "$out/race.json" > "$out/race.log" 2>&1
      echo "race exit $?" >> "$out/race.log"; cat "$out/race.log" ;;
    sweep)
      W=$B/schedules/matmul_relu_wgmma.mlir
      python3 "$here/bench/check_shapes.py" --tools $B/bin --chip sm_90a --schedule $W \
        --shapes 300x520x701 --dtypes f32 --sweep --run-jobs 8 --fix group_m=8 \
        --linear gelu_tanh --weight nk --out "$out/sweep-x3.json" > "$out/sweep-x3.log" 2>&1
      echo "sweep x3 exit $?" | tee -a "$out/sweep-x3.log"; tail -4 "$out/sweep-x3.log"
      python3 "$here/bench/check_shapes.py" --tools $B/bin --chip sm_90a --schedule $W \
        --input "$here/test/Runtime/Inputs/linear_tf32_bias_gelu_tanh_300x520x700_f32_nk.mlir" \
        --shapes 300x520x700 --dtypes f32 --sweep --run-jobs 8 --fix group_m=8 \
        --out "$out/sweep-tf32.json" > "$out/sweep-tf32.log" 2>&1
      echo "sweep tf32 exit $?" | tee -a "$out/sweep-tf32.log"; tail -4 "$out/sweep-tf32.log" ;;
    sweepkn)
      W=$B/schedules/matmul_relu_wgmma.mlir
      python3 "$here/bench/check_shapes.py" --tools $B/bin --chip sm_90a --schedule $W \
        --shapes 300x520x701 --dtypes f32 --sweep --run-jobs 8 --fix group_m=8 \
        --linear gelu_tanh --weight kn --out "$out/sweep-x3-kn.json" > "$out/sweep-x3-kn.log" 2>&1
      echo "sweep x3 kn exit $?" | tee -a "$out/sweep-x3-kn.log"; tail -4 "$out/sweep-x3-kn.log"
      python3 "$here/bench/check_shapes.py" --tools $B/bin --chip sm_90a --schedule $W \
        --input "$here/test/Runtime/Inputs/linear_tf32_bias_gelu_tanh_300x520x700_f32_kn.mlir" \
        --shapes 300x520x700 --dtypes f32 --sweep --run-jobs 8 --fix group_m=8 \
        --out "$out/sweep-tf32-kn.json" > "$out/sweep-tf32-kn.log" 2>&1
      echo "sweep tf32 kn exit $?" | tee -a "$out/sweep-tf32-kn.log"; tail -4 "$out/sweep-tf32-kn.log" ;;
    kn)
      prepare
      python3 "$here/bench/f32_tensor_cores.py" race $cases "$out/kn.json" kn > "$out/kn.log" 2>&1
      echo "kn exit $?" >> "$out/kn.log"; cat "$out/kn.log" ;;
    split)
      prepare
      python3 "$here/bench/f32_tensor_cores.py" check $cases "$out/split.json" split- > "$out/split.log" 2>&1
      echo "split exit $?" >> "$out/split.log"; cat "$out/split.log" ;;
    pytest)
      PYTHONPATH="$here/python" python3 -m pytest -q -p no:cacheprovider "$here/python/tests" > "$out/pytest.log" 2>&1
      echo "pytest exit $?" >> "$out/pytest.log"; tail -8 "$out/pytest.log" ;;
    anchors)
      prepare
      python3 "$here/bench/f32_tensor_cores.py" race $cases "$out/anchors.json" anchors > "$out/anchors.log" 2>&1
      echo "anchors exit $?" >> "$out/anchors.log"; cat "$out/anchors.log" ;;
    lit)
      $B/run-tests.sh -v --filter gpu --filter-out knob-sweep > "$out/lit.log" 2>&1
      echo "lit exit $?" >> "$out/lit.log"; tail -12 "$out/lit.log" ;;
  esac
done
