#!/usr/bin/env bash
# One device session for the wgmma epilogue's steps (docs/wgmma.md,
# bench/results/hopper-v2/): unpacks the bundle (scripts/make-bundle.sh
# --with-tests), then runs the steps named, in order, into OUT:
#   lit    the GPU lit tests but the knob sweeps
#   sweep  knob-sweep-gpu.test (every point of each schedule at one shape)
#   bsweep knob-sweep-batch-gpu.test (batched payloads)
#   ab     bench/compare_builds.py run on the kernels in .bundle/ab.tar.xz
#   race   bench/race.py, f16 and bf16, against cuBLAS+relu and cuBLASLt
#
#   bench/epilogue_session.sh OUT STEP...
set -uo pipefail
out=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
for step in "$@"; do
  case $step in
    lit)
      $B/run-tests.sh -v --filter gpu --filter-out knob-sweep > "$out/lit.log" 2>&1
      echo "lit exit $?" >> "$out/lit.log"; tail -12 "$out/lit.log" ;;
    sweep|bsweep)
      test=knob-sweep-gpu; [ $step = bsweep ] && test=knob-sweep-batch-gpu
      $B/run-tests.sh -v --filter "$test" > "$out/$step.log" 2>&1
      echo "$step exit $?" >> "$out/$step.log"; tail -8 "$out/$step.log" ;;
    ab)
      # .bundle/ab.tar.xz: `tar -C .bundle -cJf .bundle/ab.tar.xz ab` of the
      # kernels bench/compare_builds.py prepare wrote to .bundle/ab.
      mkdir -p /tmp/ab && tar -xJf "$here/.bundle/ab.tar.xz" -C /tmp/ab
      python3 "$here/bench/compare_builds.py" run /tmp/ab/ab "$out/ab.json" \
        > "$out/ab.log" 2>&1
      echo "ab exit $?" >> "$out/ab.log"; tail -3 "$out/ab.log" ;;
    race)
      python3 "$here/bench/race.py" --dtypes f16,bf16 \
        --contenders tessel,cublas+relu,cublaslt --out "$out/race" \
        > "$out/race.md" 2> "$out/race.log"
      echo "race exit $?" >> "$out/race.log"; cat "$out/race.md"; tail -3 "$out/race.log" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
