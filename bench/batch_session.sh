#!/usr/bin/env bash
# Device session for batched contractions (issue 17): GPU lit tests of the
# batched and neighbouring paths, then bench/batch_matmul.py check and race
# on kernels compiled here with the bundle. Everything lands in OUT.
#
#   bench/batch_session.sh OUT [lit] [check] [race] [sweep]
#   (default: lit check race; sweep runs knob-sweep-batch-gpu.test, every
#   knob point of two batched payloads, about four minutes)
set -uo pipefail
out=$1; shift
steps=" ${*:-lit check race} "
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python TESSEL_CACHE=/tmp/tessel-cache PYTHONUNBUFFERED=1
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  echo "== prepare"
  python3 "$here/bench/batch_matmul.py" prepare "$here/.bundle/bk" | tail -1
  if [[ $steps == *" lit "* ]]; then
    echo "== GPU lit tests"
    $B/run-tests.sh -v --filter 'run-batch-gpu|run-plain-gpu|run-linear-gpu|run-check-gpu|run-mma-gpu' 2>&1 | tail -30
  fi
  if [[ $steps == *" sweep "* ]]; then
    echo "== knob sweeps of batched contractions"
    $B/run-tests.sh -v --filter 'knob-sweep-batch-gpu' 2>&1 | tail -10
  fi
  if [[ $steps == *" check "* ]]; then
    echo "== check"
    python3 "$here/bench/batch_matmul.py" check "$here/.bundle/bk" "$out/check.json"
  fi
  if [[ $steps == *" race "* ]]; then
    echo "== race"
    python3 "$here/bench/batch_matmul.py" race "$here/.bundle/bk" "$out/race.json"
  fi
} 2>&1 | tee "$out/session.log"
