#!/usr/bin/env bash
# One device session for the user's toolkit (issue 20), on a GPU host with
# PyTorch and Triton but no LLVM: the bundle (scripts/make-bundle.sh
# --with-tests) and a wheel built here (.whl/, python3 -m pip wheel
# --no-build-isolation --no-deps -w .whl python/ from a copy with the
# schedules link resolved) travel with the tree. Everything lands in OUT.
#
#   bench/toolkit_session.sh OUT [bundle] [wheel] [tests]   (default: all)
set -uo pipefail
out=$1; shift
steps=" ${*:-bundle wheel tests} "
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_CACHE=/tmp/tessel-cache
step() { echo "== $*"; }
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'

  if [[ $steps == *" bundle "* ]]; then
  step "tessel command from the bundle (TESSEL_HOME)"
  export TESSEL_HOME=$B PYTHONPATH=$B/python
  python3 -m tessel info
  python3 -m tessel compile 1000 1000 1000 --dtype f16 --out "$out/k1000"
  python3 -m tessel show 4096 4096 4096 --dtype bf16
  "$B/bin/tessel-run" "$out/k1000/matmul_relu.launch.json"

  step "tessel tune (6 candidates) and plot"
  time python3 -m tessel tune 2048 2048 2048 --dtype f16 --budget 6 --db "$out/tune.json" | tail -12
  python3 -m tessel plot "$out/tune.json" --out "$out/tune.png"

  step "tessel race: 1000^3 and its twin 1008^3, f16 and bf16"
  python3 -m tessel race --dtypes f16,bf16 --shapes 1000x1000x1000,1008x1008x1008 \
    --contenders tessel,cublas+relu,triton --settle-s 0.5 --out "$out/race-1000"
  unset TESSEL_HOME PYTHONPATH
  fi

  if [[ $steps == *" wheel "* ]]; then
  step "the wheel in a fresh venv (system torch), tools on PATH only"
  python3 -m venv /tmp/venv
  /tmp/venv/bin/pip install -q --no-index --no-deps "$here"/.whl/tessel-*.whl
  # The host's PyTorch (in a user or system site the venv does not see).
  python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' \
    > "$(/tmp/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/host-torch.pth"
  cd /tmp && PATH=/tmp/venv/bin:$B/bin:$PATH /tmp/venv/bin/tessel info
  PATH=/tmp/venv/bin:$B/bin:$PATH /tmp/venv/bin/python - <<'PY'
import torch, tessel
for dt in (torch.float16, torch.bfloat16, torch.float32):
    a = torch.randn(777, 333, device="cuda", dtype=dt)
    b = torch.randn(333, 555, device="cuda", dtype=dt)
    c = tessel.matmul_relu(a, b)
    ref = torch.relu(a.double() @ b.double())
    err = ((c.double() - ref).norm() / ref.norm()).item()
    k = tessel.get_kernel(777, 555, 333, {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32"}[dt], 0)
    print(dt, "rel error", f"{err:.2e}", k.compiled.schedule.split("/site-packages/")[-1], k.compiled.source)
PY
  cd "$here"
  fi
} > "$out/session.log" 2>&1
tail -40 "$out/session.log"

# The GPU tests: the Python package's, then lit's cuda-gpu tests.
[[ $steps == *" tests "* ]] || exit 0
export TESSEL_HOME=$B
(cd "$here" && python3 -m pytest -p no:cacheprovider -q -rs python/tests) > "$out/pytest-gpu.log" 2>&1
echo "pytest exit $?" >> "$out/pytest-gpu.log"; tail -3 "$out/pytest-gpu.log"
(cd "$B" && timeout 300 ./run-tests.sh --filter 'gpu|schedule-chips' 2>&1 | tail -15) > "$out/lit-gpu.log" 2>&1
tail -8 "$out/lit-gpu.log"
