#!/usr/bin/env bash
# Device session for issue 17 (Linear layers): the GPU lit tests, then
# bench/linear_epilogues.py check and race on the kernels prepared here
# (bench/linear_epilogues.py prepare .bundle/lk, or here when that is not
# carried), the GPU pytest of
# tessel.linear and the torch.compile MLP, the MLP benchmark, and
# tanh.approx's measured error. Everything lands in OUT.
#
#   bench/linear_session.sh OUT [lit] [check] [race] [pytest] [mlp] [tanh] [tune]
#   (default: all but tune; tune tunes the raced [n, k] cases, TUNE_BUDGET
#   trials each (default 24), into OUT/tuned.json and races the winners
#   and the rule's kernels in one process: OUT/race-tuned.json)
set -uo pipefail
out=$1; shift
steps=" ${*:-lit check race pytest mlp tanh} "
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python TESSEL_CACHE=/tmp/tessel-cache PYTHONUNBUFFERED=1
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  if [ ! -d "$here/.bundle/lk" ]; then
    # Not carried (the device tool's 64 MiB): compiled here with the bundle.
    echo "== prepare"
    python3 "$here/bench/linear_epilogues.py" prepare "$here/.bundle/lk" | tail -1
  fi
  if [[ $steps == *" lit "* ]]; then
    echo "== GPU lit tests"
    # The batched sweeps (knob-sweep-batch-gpu) need a call of their own.
    $B/run-tests.sh -v --filter 'gpu' --filter-out 'knob-sweep-batch' 2>&1 | tail -30
  fi
  if [[ $steps == *" check "* ]]; then
    echo "== check"
    python3 "$here/bench/linear_epilogues.py" check "$here/.bundle/lk" "$out/check.json"
  fi
  if [[ $steps == *" race "* ]]; then
    echo "== race"
    python3 "$here/bench/linear_epilogues.py" race "$here/.bundle/lk" "$out/race.json"
  fi
  if [[ $steps == *" tune "* ]]; then
    echo "== tune"
    python3 "$here/bench/linear_epilogues.py" tune "$here/.bundle/lk" "$out/tuned.db" "${TUNE_BUDGET:-24}"
    $B/bin/tessel-db export "$out/tuned.db" -o "$out/tuned.json" && rm -f "$out/tuned.db"
    python3 "$here/bench/linear_epilogues.py" race "$here/.bundle/lk" "$out/race-tuned.json" tuned,k
  fi
  if [[ $steps == *" pytest "* ]]; then
    echo "== pytest (GPU)"
    python3 -m pytest -q -p no:cacheprovider "$here/python/tests/test_gpu.py" 2>&1 | tail -25
  fi
  if [[ $steps == *" mlp "* ]]; then
    echo "== mlp"
    python3 "$here/bench/linear_epilogues.py" mlp "$out/mlp.json"
  fi
  if [[ $steps == *" tanh "* ]]; then
    echo "== tanh.approx.f32 error"
    python3 "$here/bench/tanh_approx_error.py" "$out/tanh_approx.json"
  fi
} 2>&1 | tee "$out/session.log"
