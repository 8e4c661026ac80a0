#!/usr/bin/env bash
# One device session for wgmma's persistent kernels (knob persistent,
# docs/wgmma.md, bench/results/persistent/): unpacks the bundle
# (scripts/make-bundle.sh --with-tests), then runs the steps named, in
# order, into OUT:
#   sweep  knob-sweep-persistent-gpu.test (every persistent point at four
#          payloads)
#   lit    the GPU lit tests but the knob sweeps
#   pytest the Python tests on the GPU (this checkout's package)
#   ab     bench/compare_builds.py run on the kernels in .bundle/ab.tar.xz
#          (compare_builds.py prepare ... --variant base= --variant
#          pers=persistent=1 ...)
#   race   bench/race.py, f16 and bf16, against cuBLAS+relu and cuBLASLt
#
#   bench/persistent_session.sh OUT STEP...
set -uo pipefail
out=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
for step in "$@"; do
  case $step in
    sweep)
      $B/run-tests.sh -v --filter knob-sweep-persistent > "$out/sweep.log" 2>&1
      echo "sweep exit $?" >> "$out/sweep.log"; tail -8 "$out/sweep.log" ;;
    lit)
      $B/run-tests.sh -v --filter gpu --filter-out knob-sweep > "$out/lit.log" 2>&1
      echo "lit exit $?" >> "$out/lit.log"; tail -12 "$out/lit.log" ;;
    pytest)
      PYTHONPATH="$here/python" python3 -m pytest -q -p no:cacheprovider "$here/python/tests" > "$out/pytest.log" 2>&1
      echo "pytest exit $?" >> "$out/pytest.log"; tail -8 "$out/pytest.log" ;;
    ab)
      mkdir -p /tmp/ab && tar -xJf "$here/.bundle/ab.tar.xz" -C /tmp/ab
      python3 "$here/bench/compare_builds.py" run /tmp/ab/ab "$out/ab.json" \
        > "$out/ab.log" 2>&1
      echo "ab exit $?" >> "$out/ab.log"; grep -v "^round" "$out/ab.log" | tail -5 ;;
    race)
      python3 "$here/bench/race.py" --dtypes f16,bf16 \
        --contenders tessel,cublas+relu,cublaslt --out "$out/race" \
        > "$out/race.md" 2> "$out/race.log"
      echo "race exit $?" >> "$out/race.log"; cat "$out/race.md"; tail -3 "$out/race.log" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
