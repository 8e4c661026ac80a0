#!/usr/bin/env python3
"""Host time of one call, Tessel's Python entry points against PyTorch's
(cuBLASLt), layer by layer: what a caller pays on the CPU before the GPU
sees the kernel. Each entry is timed as N calls enqueued back to back
without synchronizing (perf_counter around the loop, then one
synchronize), on a problem small enough that the GPU never holds the
host back; the median of R such loops, in microseconds per call. Every
output is checked against f64 first. Then, per shape, back-to-back GPU
time (CUDA events around N calls, no L2 flush): what a model that calls
small layers one after the other sees.

    python3 bench/call_overhead.py --out OUT.json
"""

import argparse
import datetime
import json
import statistics
import sys
import time
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))


def host_us(fn, torch, n=400, rounds=7):
    fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        per.append((time.perf_counter() - start) / n * 1e6)
        torch.cuda.synchronize()
    return statistics.median(per)


def gpu_us(fn, torch, n=400, rounds=5):
    fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(rounds):
        start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        start.record()
        for _ in range(n):
            fn()
        end.record()
        torch.cuda.synchronize()
        per.append(start.elapsed_time(end) / n * 1e3)
    return statistics.median(per)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--shapes", default="64x64x64,256x1024x1024,1x4096x4096")
    args = p.parse_args()

    import torch
    import tessel
    from tessel import ops

    dev = torch.device("cuda", 0)
    rows = []
    for shape in args.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        a = torch.randn(m, k, device=dev, dtype=torch.float16)
        b = torch.randn(k, n, device=dev, dtype=torch.float16)
        w = torch.randn(n, k, device=dev, dtype=torch.float16)
        bias = torch.randn(n, device=dev, dtype=torch.float16)
        zero = torch.zeros(n, device=dev, dtype=torch.float16)
        c = torch.empty(m, n, device=dev, dtype=torch.float16)
        ref = torch.relu(a.double() @ b.double())
        ref_lin = torch.nn.functional.gelu(
            a.double() @ w.double().T + bias.double(), approximate="tanh")
        kern = ops.get_kernel(m, n, k, "f16", 0)
        ptrs = [a.data_ptr(), b.data_ptr(), c.data_ptr()]
        stream = torch.cuda.current_stream(dev).cuda_stream
        checks = {
            "tessel.matmul_relu": (tessel.matmul_relu(a, b), ref),
            "tessel.linear gelu_tanh": (
                tessel.linear(a, w, bias, "gelu_tanh"), ref_lin),
            "cuBLASLt _addmm_activation": (
                torch._addmm_activation(zero, a, b), ref),
        }
        for name, (got, want) in checks.items():
            err = ((got.double() - want).norm() / want.norm()).item()
            if not err < 1e-2:
                raise SystemExit(f"{shape} {name}: relative error {err:.3g}")
        entries = {
            "tessel.matmul_relu(a, b)": lambda: tessel.matmul_relu(a, b),
            "ops._matmul_relu(a, b) (no custom op)":
                lambda: ops._matmul_relu(a, b),
            "Kernel.__call__(a, b, c)": lambda: kern(a, b, c),
            "Kernel._launch (no checks)":
                lambda: kern._launch(torch, (a, b, c)),
            "Function.launch (pointers given)":
                lambda: kern.function.launch(ptrs, stream),
            "torch.cuda.current_stream().cuda_stream":
                lambda: torch.cuda.current_stream(dev).cuda_stream,
            "tessel.linear(x, w, bias, 'gelu_tanh')":
                lambda: tessel.linear(a, w, bias, "gelu_tanh"),
            "ops._linear (no custom op)":
                lambda: ops._linear(a, w, bias, "gelu_tanh"),
            "torch._addmm_activation(zero, a, b) (cuBLASLt)":
                lambda: torch._addmm_activation(zero, a, b),
            "torch.relu(a @ b)": lambda: torch.relu(a @ b),
            "F.gelu(F.linear(x, w, bias), tanh)":
                lambda: torch.nn.functional.gelu(
                    torch.nn.functional.linear(a, w, bias),
                    approximate="tanh"),
        }
        row = {"shape": shape, "dtype": "f16", "host_us": {}, "gpu_us": {}}
        for name, fn in entries.items():
            row["host_us"][name] = host_us(fn, torch)
        for name in ("tessel.matmul_relu(a, b)",
                     "torch._addmm_activation(zero, a, b) (cuBLASLt)",
                     "tessel.linear(x, w, bias, 'gelu_tanh')",
                     "F.gelu(F.linear(x, w, bias), tanh)"):
            row["gpu_us"][name] = gpu_us(entries[name], torch)
        rows.append(row)
        print(shape, flush=True)
        for kind in ("host_us", "gpu_us"):
            for name, v in row[kind].items():
                print(f"  {kind[:3]} {v:7.2f} us  {name}", flush=True)
    meta = {"device": torch.cuda.get_device_name(0),
            "date": datetime.date.today().isoformat(),
            "torch": torch.__version__, "command": " ".join(sys.argv),
            "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
