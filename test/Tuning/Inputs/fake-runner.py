#!/usr/bin/env python3
"""A stand-in for tessel-run in CPU tests of the tuner: answers --device-info,
and for a launch spec prints tessel-run's JSON with a time that is a fixed
function of the launch (grid and block), so searches are deterministic.
Misbehaves on purpose, to test the tuner's isolation, for blocks of:
  64 threads  -> hangs (never exits),  32 threads -> dies of SIGSEGV,
  128 threads -> wrong output (exit 2), 512 threads -> CUDA error (exit 1);
with FAKE_WRONG_ON_FRESH_INPUTS=N, blocks of N threads are also wrong for
any --seed but 1 (a kernel right only on the inputs it was tuned on);
with FAKE_GARBAGE=FIELD=JSON, blocks of 256 threads (the optimum) report
that value for FIELD (a runner whose output must not be recorded), and
nothing else misbehaves."""
import json, os, signal, sys, time

args = [a for a in sys.argv[1:] if not a.startswith("--")]
if "--device-info" in sys.argv:
    print("Fake GPU (sm_90)")
    sys.exit(0)
spec = json.load(open(args[0]))
launch = spec["launches"][0]
threads = launch["block"][0] * launch["block"][1] * launch["block"][2]
blocks = launch["grid"][0] * launch["grid"][1] * launch["grid"][2]
garbage = os.environ.get("FAKE_GARBAGE")
if garbage:
    threads_misbehaving = ()
else:
    threads_misbehaving = (64, 32, 512, 128)
if threads == 64 and 64 in threads_misbehaving:
    time.sleep(3600)
if threads == 32 and 32 in threads_misbehaving:
    os.kill(os.getpid(), signal.SIGSEGV)
if threads == 512 and 512 in threads_misbehaving:
    print("tessel-run: error: cuCtxSynchronize (kernel execution) failed: "
          "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered",
          file=sys.stderr)
    sys.exit(1)
w = spec["workload"]
# Best near 256 threads and enough blocks to fill 132 SMs.
ms = 1.0 + abs(threads - 256) / 256.0 + max(0, 132 - blocks) / 132.0
seed = next((a.split("=")[1] for a in sys.argv if a.startswith("--seed=")), "1")
fresh_wrong = os.environ.get("FAKE_WRONG_ON_FRESH_INPUTS")
wrong = (threads == 128 and 128 in threads_misbehaving) or (fresh_wrong == str(threads) and seed != "1")
result = {"function": spec["function"], "device": "Fake GPU", "chip": "sm_90",
          "reference": "gpu-f64", "checked": True, "passed": not wrong,
          "relative_error": 0.5 if wrong else 1e-6, "max_abs_error": 0,
          "tolerance": 1e-5, "nan_count": 0, "repeats": 10,
          "median_ms": ms, "min_ms": ms, "max_ms": ms,
          "tflops": 2.0 * w["m"] * w["n"] * w["k"] / (ms * 1e-3) / 1e12}
if garbage and threads == 256:
    field, value = garbage.split("=", 1)
    result[field] = json.loads(value)
print(json.dumps(result))
sys.exit(2 if wrong else 0)
