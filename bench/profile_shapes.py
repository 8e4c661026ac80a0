#!/usr/bin/env python3
"""Times tessel.matmul_relu on a few shapes and knob points and splits each
call into its kernels (torch.profiler): where the time of a shape goes
(copies into aligned workspaces, the main kernel).

    python3 bench/profile_shapes.py 4095x4097x4099:f16 5000x5000x5000:bf16 \\
        --knobs "" --knobs tile_m=128,tile_n=256
"""

import argparse
import json
import pathlib
import sys
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("shapes", nargs="+", help="MxNxK:dtype")
    p.add_argument("--knobs", action="append", default=[],
                   help="knob points to compare ('' = the compiler's choice)")
    p.add_argument("--schedule", help="a schedule library instead of the "
                   "package's default list")
    p.add_argument("--out", help="JSON file")
    args = p.parse_args()

    import torch
    import triton
    import tessel
    from torch.profiler import ProfilerActivity, profile

    warnings.simplefilter("ignore", tessel.TesselWarning)
    rows = []
    for item in args.shapes:
        dims, dtype = item.split(":")
        m, n, k = (int(v) for v in dims.split("x"))
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16,
               "f32": torch.float32}[dtype]
        a = torch.randn(m, k, device="cuda", dtype=tdt)
        b = torch.randn(k, n, device="cuda", dtype=tdt)
        c = torch.empty(m, n, device="cuda", dtype=tdt)
        ref = torch.relu(a.double() @ b.double())
        for knobs in args.knobs or [""]:
            kern = tessel.get_kernel(m, n, k, dtype, knobs=knobs or None,
                                     schedule=args.schedule)
            tessel.matmul_relu(a, b, out=c, knobs=knobs or None,
                                   schedule=args.schedule)
            err = ((c.double() - ref).norm() / ref.norm()).item()
            ms = triton.testing.do_bench(
                lambda: tessel.matmul_relu(a, b, out=c, knobs=knobs or None,
                                   schedule=args.schedule),
                warmup=10, rep=50, return_mode="median")
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(20):
                    tessel.matmul_relu(a, b, out=c, knobs=knobs or None,
                                   schedule=args.schedule)
                torch.cuda.synchronize()
            # Host time of a call: 200 calls issued back to back, without
            # waiting for the GPU (the launch queue holds them all).
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(200):
                tessel.matmul_relu(a, b, out=c, knobs=knobs or None,
                                   schedule=args.schedule)
            host_us = (time.perf_counter() - t0) / 200 * 1e6
            torch.cuda.synchronize()
            # The kernels of one call share a name (one per gpu.binary): take
            # them in launch order, position by position.
            events = sorted((e for e in prof.events()
                             if e.device_type.name == "CUDA"),
                            key=lambda e: e.time_range.start)
            launches = len(json.loads(pathlib.Path(
                kern.compiled.launch_file).read_text())["launches"])
            per_launch = [[] for _ in range(launches)]
            calls = events[-20 * launches:]
            for i, e in enumerate(calls):
                per_launch[i % launches].append(e.time_range.elapsed_us())
            kernels = {f"launch{i}": round(sum(t) / len(t) / 1e3, 4)
                       for i, t in enumerate(per_launch) if t}
            # One call's span on the GPU: first kernel's start to last
            # kernel's end (the gaps between its launches included).
            spans = [calls[i + launches - 1].time_range.end -
                     calls[i].time_range.start
                     for i in range(0, len(calls) - launches + 1, launches)]
            row = {"shape": item, "knobs": kern.compiled.knobs,
                   "knob_source": kern.compiled.knob_source, "ms": ms,
                   "tflops": 2.0 * m * n * k / ms / 1e9, "rel_error": err,
                   "kernels_ms": kernels, "host_us": round(host_us, 2),
                   "call_span_ms": round(sum(spans) / len(spans) / 1e3, 4)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
