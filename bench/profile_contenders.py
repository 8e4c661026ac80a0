#!/usr/bin/env python3
"""What each contender launches for a shape: the kernels of Tessel's call
(tessel.matmul_relu, its tuned or rule knobs) and of cuBLASLt's fused ReLU
(`torch._addmm_activation(zero_bias, a, b)`), with each kernel's name
(cuBLAS's names its tile, cluster and split), grid, block, registers,
shared memory and mean device time, from a torch.profiler trace.

    python3 bench/profile_contenders.py 1024x1024x1024:f16 \\
        256x1024x1024:bf16 288x5120x13824:bf16:nk --out OUT.json

A shape ending in `:nk` is a Linear layer with ReLU and no bias, its
weight stored [n, k] (tessel.get_linear_kernel; cuBLASLt's fused ReLU on
the weight's transposed view).
"""

import argparse
import json
import pathlib
import sys
import tempfile
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

ITERATIONS = 20


def kernels(fn, iterations=ITERATIONS):
    """The CUDA kernels `fn` launches, by name: count per call, mean device
    time in us, and the launch's grid, block, registers and shared memory
    as the trace records them."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iterations):
            fn()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        trace = json.load(open(f.name))
    out = {}
    for e in trace.get("traceEvents", []):
        if e.get("cat") != "kernel":
            continue
        a = e.get("args", {})
        k = out.setdefault(e["name"], {
            "calls": 0, "total_us": 0.0, "grid": a.get("grid"),
            "block": a.get("block"),
            "registers": a.get("registers per thread"),
            "shared_memory": a.get("shared memory"),
            "cluster": a.get("cluster")})
        k["calls"] += 1
        k["total_us"] += float(e.get("dur", 0))
    for k in out.values():
        k["per_call"] = k["calls"] / iterations
        k["mean_us"] = k.pop("total_us") / max(k["calls"], 1)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("shapes", nargs="+", help="MxNxK:dtype[:nk]")
    p.add_argument("--out", help="JSON file")
    args = p.parse_args()

    import torch
    import tessel

    warnings.simplefilter("ignore", tessel.TesselWarning)
    torch_dtype = {"f16": torch.float16, "bf16": torch.bfloat16}
    rows = []
    for item in args.shapes:
        dims, dtype, *layout = item.split(":")
        m, n, k = (int(v) for v in dims.split("x"))
        dt = torch_dtype[dtype]
        nk = layout == ["nk"]
        a = torch.randn(m, k, device="cuda", dtype=dt)
        w = torch.randn(n, k, device="cuda", dtype=dt) if nk else None
        b = w.t() if nk else torch.randn(k, n, device="cuda", dtype=dt)
        zero = torch.zeros(n, device="cuda", dtype=dt)
        if nk:
            kernel = tessel.get_linear_kernel(m, n, k, dtype, bias=False,
                                              activation="relu", weight="nk")
        else:
            kernel = tessel.get_kernel(m, n, k, dtype)
        c = torch.empty(m, n, device="cuda", dtype=dt)
        row = {"shape": item, "tessel_knobs": dict(kernel.compiled.knobs),
               "tessel_source": kernel.compiled.source,
               "tessel": kernels(lambda: kernel(a, w, c) if nk else kernel(a, b, c)),
               "cublaslt": kernels(
                   lambda: torch._addmm_activation(zero, a, b))}
        rows.append(row)
        for name in ("tessel", "cublaslt"):
            for kname, kv in row[name].items():
                print(f"{item:22s} {name:9s} {kv['mean_us']:8.2f} us "
                      f"grid={kv['grid']} block={kv['block']} "
                      f"regs={kv['registers']} smem={kv['shared_memory']} "
                      f"x{kv['per_call']:.0f} {kname[:150]}", flush=True)
    report = {"device": torch.cuda.get_device_name(0),
              "torch": torch.__version__, "iterations": ITERATIONS,
              "rows": rows}
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
