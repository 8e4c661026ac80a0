#!/usr/bin/env python3
"""f32 on Hopper's tensor cores (issue 19): the wgmma schedule's 3xTF32
(FP32-level accuracy) and TF32 kernels against cuBLAS in strict FP32 and
in TF32.

  bench/f32_tensor_cores.py prepare DIR              # compile the cases
  bench/f32_tensor_cores.py check DIR OUT [PREFIX]   # GPU: tessel-run --json
  bench/f32_tensor_cores.py race DIR OUT [WHICH]     # GPU: one process, do_bench

Each case is a Linear layer, y = relu(x W^T) with W stored [n, k]
(PyTorch's layout, which TF32 wgmma reads directly) or [k, n] (`kn-`
cases: matmul_relu's layout, copied transposed first), compiled at given
wgmma knobs or the rule's, once FP32-accurate (3xTF32) and once with
tessel.allow_tf32. `split-` cases time split_k on the thin and small
shapes (check split- OUT).
`race` times each against relu(F.linear(x, W)) with
torch.backends.cuda.matmul.allow_tf32 off (strict FP32) and on (TF32), and
cuBLASLt's fused ReLU (torch._addmm_activation) in both modes, every output
checked against an f64 reference first (triton.testing.do_bench: CUDA
events, L2 flushed, median). Errors are relative Frobenius norms.
"""

import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))

from tessel import install  # noqa: E402
from tessel.workload import linear_ir  # noqa: E402

import case_kernels  # noqa: E402

# name: (m, n, k, knobs, allow_tf32, activation, bias[, weight]); weight
# "nk" unless given.
CASES = {}
# 3xTF32 keeps two accumulator sets: 128 columns at most.
for _tm, _tn, _stages in ((128, 128, 2), (128, 128, 3), (64, 128, 3),
                          (64, 128, 4)):
    CASES[f"x3-4096-{_tm}x{_tn}s{_stages}"] = (
        4096, 4096, 4096, dict(tile_m=_tm, tile_n=_tn, stages=_stages), False,
        "relu", False)
for _tm, _tn, _stages in ((128, 256, 4), (128, 128, 5), (256, 128, 4)):
    CASES[f"tf32-4096-{_tm}x{_tn}s{_stages}"] = (
        4096, 4096, 4096, dict(tile_m=_tm, tile_n=_tn, stages=_stages), True,
        "relu", False)
# Odd shapes (partial tiles, K residues, rows TMA cannot read: copied) and
# an epilogue with a bias, for correctness.
for _m, _n, _k in ((1000, 1000, 1000), (77, 33, 19), (513, 257, 1031),
                   (1, 4096, 4096), (2048, 2048, 2048)):
    for _tf32 in (False, True):
        CASES[f"{'tf32' if _tf32 else 'x3'}-{_m}x{_n}x{_k}"] = (
            _m, _n, _k, dict(tile_m=128, tile_n=128, stages=2), _tf32,
            "relu", False)
CASES["x3-bias-gelu_tanh-300x500x700"] = (
    300, 500, 700, dict(tile_m=128, tile_n=128, stages=2), False, "gelu_tanh",
    True)
CASES["tf32-bias-gelu_tanh-300x500x700"] = (
    300, 500, 700, dict(tile_m=128, tile_n=128, stages=2), True, "gelu_tanh",
    True)
# The SIMT schedule (FP32 FMA) at the rule's knobs, for comparison: what f32
# got before tensor cores.
for _m, _n, _k in ((1000, 1000, 1000), (513, 257, 1031), (1, 4096, 4096),
                   (2048, 2048, 2048), (4096, 4096, 4096)):
    CASES[f"simt-{_m}x{_n}x{_k}"] = (_m, _n, _k, None, False, "relu", False)
CASES["simt-bias-gelu_tanh-300x500x700"] = (
    300, 500, 700, None, False, "gelu_tanh", True)
# ANCHORS.md's f32 shapes, wgmma at the rule's knobs ("rule"), both
# precisions: what a user gets untuned. `race anchors` times these.
ANCHORS = ((256, 1024, 1024), (1024, 1024, 1024), (2048, 2048, 2048),
           (4096, 4096, 4096), (4096, 4096, 1024), (16384, 1024, 4096),
           (128, 4096, 4096))
for _m, _n, _k in ANCHORS:
    for _tf32 in (False, True):
        CASES[f"rule-{'tf32' if _tf32 else 'x3'}-{_m}x{_n}x{_k}"] = (
            _m, _n, _k, "rule", _tf32, "relu", False)

# TF32 in clusters of two blocks that multicast shared tiles (the rule's
# other knobs for cluster = 2), against the rule's kernels above.
for _m, _n, _k in ANCHORS:
    CASES[f"rule-c2-tf32-{_m}x{_n}x{_k}"] = (
        _m, _n, _k, "cluster=2", True, "relu", False)

# B stored [k, n] (copied transposed, then wgmma), at the rule's knobs, and
# SIMT (what such f32 inputs got before) on the small ones.
for _m, _n, _k in ANCHORS + ((100, 60, 20), (77, 33, 19), (513, 257, 1031)):
    for _tf32 in (False, True):
        CASES[f"kn-{'tf32' if _tf32 else 'x3'}-{_m}x{_n}x{_k}"] = (
            _m, _n, _k, "rule", _tf32, "relu", False, "kn")
for _m, _n, _k in ((100, 60, 20), (77, 33, 19), (513, 257, 1031),
                   (256, 1024, 1024), (1024, 1024, 1024)):
    CASES[f"kn-simt-{_m}x{_n}x{_k}"] = (_m, _n, _k, None, False, "relu",
                                        False, "kn")
# split_k on the thin and small shapes, both precisions.
for _m, _n, _k in ((128, 4096, 4096), (256, 1024, 1024), (1024, 1024, 1024),
                   (4096, 4096, 1024)):
    for _tf32 in (False, True):
        for _tm in (64, 128):
            for _tn in ((128, 256) if _tf32 else (64, 128)):
                for _split in (1, 2, 4):
                    _stages = 3 if not _tf32 and _tm == _tn == 128 else 4
                    CASES[f"split-{'tf32' if _tf32 else 'x3'}-{_m}x{_n}x{_k}-"
                          f"{_tm}x{_tn}k{_split}"] = (
                        _m, _n, _k, dict(tile_m=_tm, tile_n=_tn,
                                         stages=_stages, split_k=_split),
                        _tf32, "relu", False)

# 3xTF32 on the thin and small shapes with shallow rings (2 or 3 stages of
# 64-row tiles: two blocks fit an SM's shared memory, so one's FP32 adds
# overlap the other's products).
for _m, _n, _k in ((128, 4096, 4096), (256, 1024, 1024)):
    for _tn in (64, 128):
        for _stages in (2, 3):
            for _split in (1, 2, 4):
                CASES[f"split-x3-{_m}x{_n}x{_k}-64x{_tn}s{_stages}k{_split}"] = (
                    _m, _n, _k, dict(tile_m=64, tile_n=_tn, stages=_stages,
                                     split_k=_split), False, "relu", False)


def case(name):
    """The case's fields, its weight layout ("nk", "kn") included."""
    m, n, k, knobs, tf32, act, bias, *rest = CASES[name]
    return m, n, k, knobs, tf32, act, bias, (rest[0] if rest else "nk")


def prepare(directory):
    """Compiles every case, in parallel; a knob point the schedule refuses
    is reported and left out."""
    tessel_opt = install.tool("tessel-opt")

    def compile_case(name):
        m, n, k, knobs, tf32, act, bias, weight = case(name)
        # knobs: a dict, "rule" (wgmma at the rule's knobs) or None (SIMT
        # at the rule's knobs).
        simt = knobs is None
        schedule = install.schedules_dir() / (
            "matmul_relu_simt.mlir" if simt else "matmul_relu_wgmma.mlir")
        d = pathlib.Path(directory) / name
        d.mkdir(parents=True, exist_ok=True)
        ir = linear_ir(m, n, k, "f32", bias=bias, activation=act,
                       weight=weight, allow_tf32=tf32)
        (d / "in.mlir").write_text(ir)
        # A string other than "rule" gives some knobs over the rule's.
        if knobs in (None, "rule"):
            knobs = "defaults=rule"
        elif isinstance(knobs, str):
            knobs = "knobs=" + knobs
        else:
            knobs = "knobs=" + ",".join(
                f"{key}={value}" for key, value in
                dict(dict(group_m=8, split_k=1), **knobs).items())
        p = subprocess.run(
            [str(tessel_opt), str(d / "in.mlir"),
             f"--tessel-apply-schedule=schedule={schedule} {knobs}",
             f"--tessel-lower-to-ptx=chip={'sm_90' if simt else 'sm_90a'}",
             f"--tessel-export-kernels=dir={d / 'k'}", "-o", os.devnull],
            capture_output=True, text=True)
        return name, p.returncode, p.stderr

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        for name, rc, err in pool.map(compile_case, CASES):
            ok = rc == 0
            failed += not ok and not name.startswith("split-")
            print(name, "ok" if ok else "refused: " + " ".join(
                l for l in err.splitlines() if "error:" in l)[:300],
                flush=True)
    # Points of the split grid may be refused (split_k must divide tile_n's
    # 8-column groups); every other case must compile.
    if failed:
        sys.exit(f"{failed} cases failed to compile")


def check(directory, out, prefix=""):
    results = {}
    for name in CASES:
        launch = pathlib.Path(directory) / name / "k" / "linear.launch.json"
        # The split grid is timed only when asked for (check split-), and
        # without the points the schedule refused.
        if not name.startswith(prefix) or (group(name) == "split" and (
                not prefix or not launch.exists())):
            continue
        r = case_kernels.tessel_run(launch, "gpu", 20)
        results[name] = r
        print(f"{name:36s} passed={r.get('passed')} "
              f"err={r.get('relative_error', 0):.2e} tol={r.get('tolerance')} "
              f"{r.get('median_ms', 0):.4f} ms {r.get('tflops', 0):.1f} TFLOP/s"
              if "error" not in r else f"{name}: ERROR {r['error'][:400]}",
              flush=True)
    pathlib.Path(out).write_text(json.dumps(results, indent=1) + "\n")


def group(name):
    """The race a case belongs to: "anchors" (rule-), "kn" (kn-), "split"
    (split-, timed by check only) or "large" (the rest)."""
    for prefix, which in (("rule-", "anchors"), ("kn-", "kn"),
                          ("split-", "split")):
        if name.startswith(prefix):
            return which
    return "large"


def race(directory, out, which="large"):
    """Times the cases of `which` (group()) against cuBLAS, in one process:
    "large" those of at least 2048^3, "anchors" ANCHORS.md's at the rule's
    knobs, "kn" B stored [k, n] (cuBLAS gets the same layout)."""
    import torch
    from triton.testing import do_bench
    from tessel import runtime

    device = runtime.Device.get(0)
    rows = []
    shapes = sorted({case(name)[:3] for name in CASES
                     if group(name) == which})
    for m, n, k in shapes:
        if which == "large" and m * n * k < 2048 ** 3:
            continue
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(m, k, device="cuda", generator=g)
        w = torch.randn(n, k, device="cuda", generator=g)
        # The weight as the cases store it: [n, k], or [k, n] for "kn".
        w_kn = w.t().contiguous() if which == "kn" else None
        ref = torch.relu(x.double() @ w.double().t())
        zero = torch.zeros(n, device="cuda")
        row = {"m": m, "n": n, "k": k}

        def measure(label, fn, result, tf32):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            r = fn()
            torch.cuda.synchronize()
            outv = result() if result is not None else r
            err = ((outv.double() - ref).norm() / ref.norm()).item()
            ms = do_bench(fn, warmup=50, rep=200)
            row[label] = {"ms": ms, "tflops": 2 * m * n * k / ms / 1e9,
                          "rel_error": err}
            print(m, n, k, label, f"{row[label]['tflops']:.1f} TFLOP/s",
                  f"err {err:.2e}", flush=True)

        for tf32 in (False, True):
            mode = "tf32" if tf32 else "fp32"
            if w_kn is None:
                measure(f"cublas-{mode}",
                        lambda: torch.relu(torch.nn.functional.linear(x, w)),
                        None, tf32)
                measure(f"cublaslt-{mode}",
                        lambda: torch._addmm_activation(zero, x, w.t()),
                        None, tf32)
            else:
                measure(f"cublas-{mode}", lambda: torch.relu(x @ w_kn),
                        None, tf32)
                measure(f"cublaslt-{mode}",
                        lambda: torch._addmm_activation(zero, x, w_kn), None,
                        tf32)
        torch.backends.cuda.matmul.allow_tf32 = False
        for name in CASES:
            if case(name)[:3] != (m, n, k) or case(name)[6] or \
                    group(name) != which:
                continue
            spec_path = (pathlib.Path(directory) / name / "k" /
                         "linear.launch.json")
            fn = runtime.Function(device, runtime.FunctionSpec(spec_path))
            y = torch.full((m, n), float("nan"), device="cuda")
            ptrs = [x.data_ptr(),
                    (w if w_kn is None else w_kn).data_ptr(), y.data_ptr()]
            stream = torch.cuda.current_stream().cuda_stream
            measure(f"tessel-{name}", lambda: fn.launch(ptrs, stream),
                    lambda: y, False)
        rows.append(row)
    report = {"device": torch.cuda.get_device_name(0),
              "torch": torch.__version__,
              "method": "triton.testing.do_bench median (warmup 50 ms, rep "
                        "200 ms, L2 flushed), one process; errors relative "
                        "Frobenius against f64",
              "rows": rows}
    pathlib.Path(out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"prepare": prepare, "check": check, "race": race}[command](*args)
