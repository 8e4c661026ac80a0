#!/usr/bin/env python3
"""A stand-in for tessel-run in CPU tests of the tuner: answers --device-info
and --list-devices, for a launch spec prints tessel-run's JSON with a time
that is a fixed function of the launch (grid and block), so searches are
deterministic, and with --serve is a measurement worker speaking tessel-run
--serve's protocol (a JSON request per line on stdin, a JSON answer per line
on stdout). Misbehaves on purpose, to test the tuner's isolation, for
blocks of:
  64 threads  -> hangs (never answers),  32 threads -> dies of SIGSEGV,
  128 threads -> wrong output (exit 2),
  512 threads -> CUDA error (exit 1; a worker answers "context_lost" and
                 exits, as tessel-run --serve does);
with FAKE_WRONG_ON_FRESH_INPUTS=N, blocks of N threads are also wrong for
any seed but 1 (a kernel right only on the inputs it was tuned on);
with FAKE_GARBAGE=FIELD=JSON, blocks of 256 threads (the optimum) report
that value for FIELD (a runner whose output must not be recorded), and
nothing else misbehaves. With FAKE_WORKER_LOG=PATH, each worker appends
"start D" when it starts, "request D" per request and "end D" before a
candidate ends it (D: its device) to PATH;
FAKE_DEVICES=N (default 1) is the number of GPUs it pretends to have;
with FAKE_SLOW_KNOBS=K=V,..., candidates with those knob values take 1.5x
as long (to make the defaults slower than the tuned knobs), with
FAKE_FAST_KNOBS=K=V,... half as long (to make them faster)."""
import json, os, signal, sys, time

ILLEGAL = ("cuCtxSynchronize (kernel execution) failed: "
           "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was "
           "encountered")


def option(name, default):
    return next((a.split("=", 1)[1] for a in sys.argv
                 if a.startswith(name + "=")), default)


def measure(spec, seed, end=lambda: None):
    """(exit status, JSON result or None, error or None); may hang or die."""
    launch = spec["launches"][0]
    threads = launch["block"][0] * launch["block"][1] * launch["block"][2]
    blocks = launch["grid"][0] * launch["grid"][1] * launch["grid"][2]
    garbage = os.environ.get("FAKE_GARBAGE")
    misbehaving = () if garbage else (64, 32, 512, 128)
    if threads == 64 and 64 in misbehaving:
        end()
        time.sleep(3600)
    if threads == 32 and 32 in misbehaving:
        end()
        os.kill(os.getpid(), signal.SIGSEGV)
    if threads == 512 and 512 in misbehaving:
        end()
        return 1, None, ILLEGAL
    w = spec["workload"]
    # Best near 256 threads and enough blocks to fill 132 SMs.
    ms = 1.0 + abs(threads - 256) / 256.0 + max(0, 132 - blocks) / 132.0
    knobs = spec.get("schedule", {}).get("knobs", {})
    for name, factor in (("FAKE_SLOW_KNOBS", 1.5), ("FAKE_FAST_KNOBS", 0.5)):
        given = os.environ.get(name)
        if given and all(str(knobs.get(k)) == v for k, v in
                         (kv.split("=", 1) for kv in given.split(","))):
            ms *= factor
    fresh_wrong = os.environ.get("FAKE_WRONG_ON_FRESH_INPUTS")
    wrong = ((threads == 128 and 128 in misbehaving) or
             (fresh_wrong == str(threads) and str(seed) != "1"))
    result = {"function": spec["function"], "device": "Fake GPU",
              "chip": "sm_90", "reference": "gpu-f64", "checked": True,
              "passed": not wrong,
              "relative_error": 0.5 if wrong else 1e-6, "max_abs_error": 0,
              "tolerance": 1e-5, "nan_count": 0, "repeats": 10,
              "median_ms": ms, "min_ms": ms, "max_ms": ms,
              "tflops": 2.0 * w["m"] * w["n"] * w["k"] / (ms * 1e-3) / 1e12}
    if garbage and threads == 256:
        field, value = garbage.split("=", 1)
        result[field] = json.loads(value)
    return (2 if wrong else 0), result, None


def log(line):
    path = os.environ.get("FAKE_WORKER_LOG")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


devices = int(os.environ.get("FAKE_DEVICES", "1"))
device = int(option("--device", "0"))
if "--list-devices" in sys.argv:
    for d in range(devices):
        print(f"{d}: Fake GPU (sm_90)")
    sys.exit(0)
if device >= devices:
    print(f"tessel-run: error: device {device} requested, {devices} present",
          file=sys.stderr)
    if "--serve" in sys.argv:
        print(json.dumps({"error": f"device {device} requested, "
                                   f"{devices} present"}))
    sys.exit(1)
if "--device-info" in sys.argv:
    print("Fake GPU (sm_90)")
    sys.exit(0)
if "--serve" in sys.argv:
    log(f"start {device}")
    print(json.dumps({"ready": True, "device": "Fake GPU (sm_90)"}),
          flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        log(f"request {device}")
        request = json.loads(line)
        spec = json.load(open(request["spec"]))
        status, result, error = measure(spec, request.get("seed", 1),
                                        lambda: log(f"end {device}"))
        if error:
            print(json.dumps({"error": error, "context_lost": True}),
                  flush=True)
            sys.exit(1)
        print(json.dumps(result), flush=True)
    sys.exit(0)

args = [a for a in sys.argv[1:] if not a.startswith("--")]
spec = json.load(open(args[0]))
status, result, error = measure(spec, option("--seed", "1"))
if error:
    print("tessel-run: error: " + error, file=sys.stderr)
    sys.exit(1)
print(json.dumps(result))
sys.exit(status)
