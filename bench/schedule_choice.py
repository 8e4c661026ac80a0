#!/usr/bin/env python3
"""Times each schedule on the same shapes, in one process: which schedule
serves a class of shapes best (e.g. 16-bit shapes whose rows TMA cannot
read, where wgmma pays a copy kernel and SIMT reads the rows directly; small
f32 problems, where 3xTF32 on tensor cores pays a transposing copy of B
and SIMT runs in one launch).

    python3 bench/schedule_choice.py --from bench/results/any-shape/any-shape.json \\
        --max-gflop 1 --out bench/results/any-shape/schedule-choice.json
    python3 bench/schedule_choice.py --shapes 3x100x10:f16,127x129x131:bf16 --out /tmp/c.json
    python3 bench/schedule_choice.py --from any-shape.json --dtypes f32 --all-rows \\
        --schedules matmul_relu_simt.mlir --api linear --out /tmp/f32.json

For each shape: the call (`--api matmul_relu`: tessel.matmul_relu, B
stored k x n; `linear`: tessel.linear(x, W, activation="relu"), W stored
n x k) with the package's default schedules, then with each schedule of
--schedules alone, then the default on the shape rounded up to 16 (the
divisible twin), and cuBLASLt's fused ReLU on the same operands. Every
output is checked against float64 before its time (do_bench median, L2
flushed; the lower of two interleaved rounds) counts. All kernels are
compiled first, --jobs at a time.
"""

import argparse
import concurrent.futures
import json
import math
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from any_shape import bench_ms, check, round_up  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", help="MxNxK:dtype,...")
    p.add_argument("--from", dest="source",
                   help="an any_shape.py JSON (or .json.gz): its shapes of "
                        "--dtypes, misaligned ones only unless --all-rows")
    p.add_argument("--dtypes", default="f16,bf16")
    p.add_argument("--all-rows", action="store_true",
                   help="with --from: aligned rows too")
    p.add_argument("--max-gflop", type=float, default=1.0)
    p.add_argument("--every", type=int, default=1,
                   help="take every N-th shape of --from")
    p.add_argument("--schedules", default="matmul_relu_simt.mlir,matmul_relu_mma.mlir")
    p.add_argument("--api", choices=("matmul_relu", "linear"),
                   default="matmul_relu")
    p.add_argument("--jobs", type=int, default=8)
    p.add_argument("--out", required=True)
    args = p.parse_args()

    import gzip
    import torch
    import triton
    import tessel
    from tessel import install, ops, runtime
    from tessel.workload import rows_aligned

    warnings.simplefilter("ignore", tessel.TesselWarning)
    torch.backends.cuda.matmul.allow_tf32 = False
    shapes = []
    if args.shapes:
        for item in args.shapes.split(","):
            dims, dt = item.split(":")
            shapes.append((*map(int, dims.split("x")), dt))
    if args.source:
        raw = pathlib.Path(args.source).read_bytes()
        if args.source.endswith(".gz"):
            raw = gzip.decompress(raw)
        dtypes = args.dtypes.split(",")
        for r in json.loads(raw)["rows"]:
            if (r["dtype"] in dtypes and r["gflop"] <= args.max_gflop
                    and (args.all_rows
                         or not rows_aligned(r["n"], r["k"], r["dtype"]))):
                shapes.append((r["m"], r["n"], r["k"], r["dtype"]))
        shapes = shapes[::args.every]

    tdts = {"f16": torch.float16, "bf16": torch.bfloat16,
            "f32": torch.float32}
    device = runtime.Device.get(0)
    schedules = [None] + [install.schedules_dir() / s
                          for s in args.schedules.split(",")]
    linear = args.api == "linear"

    def compile_one(m, n, k, dt, schedule):
        """Compiles into the package's cache, as the call will ask."""
        options = dict(schedule=schedule, knobs=None, device=device.key,
                       databases=None, chip=device.chip,
                       sm_count=device.sm_count)
        try:
            if linear:
                tessel.compile_linear(m, n, k, dt, bias=False,
                                      activation="relu", **options)
            else:
                tessel.compile_matmul_relu(m, n, k, dt, **options)
        except tessel.TesselError:
            pass  # The call reports it.

    jobs = [(m, n, k, dt, s) for m, n, k, dt in shapes for s in schedules]
    jobs += [(round_up(m), round_up(n), round_up(k), dt, None)
             for m, n, k, dt in shapes]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(lambda j: compile_one(*j), jobs))

    def prepare(m, n, k, dt, schedule=None):
        """A checked call of the kernel, or {"error": ...}."""
        tdt = tdts[dt]
        a = torch.randn(m, k, device="cuda", dtype=tdt)
        b = torch.randn(k, n, device="cuda", dtype=tdt)
        w = b.t().contiguous()
        c = torch.full((m, n), float("nan"), device="cuda", dtype=tdt)
        try:
            if linear:
                kernel = ops.get_linear_kernel(m, n, k, dt, bias=False,
                                               activation="relu",
                                               schedule=schedule)

                def call():
                    kernel(a, w, c)
            else:
                def call():
                    tessel.matmul_relu(a, b, out=c, schedule=schedule)
            call()
            torch.cuda.synchronize()
        except tessel.TesselError as e:
            return {"error": str(e).splitlines()[0][:200]}
        ok, err, why = check(c, torch.relu(a.double() @ b.double()), dt,
                             torch)
        if not ok:
            return {"error": why or f"wrong output (relative error {err:.3g})"}
        return {"rel_error": err, "call": call, "operands": (a, b, w)}

    rows = []
    for m, n, k, dt in shapes:
        rec = {"m": m, "n": n, "k": k, "dtype": dt,
               "gflop": 2e-9 * m * n * k}
        runs = {"default": prepare(m, n, k, dt)}
        for s in schedules[1:]:
            runs[s.name] = prepare(m, n, k, dt, s)
        runs["divisible"] = prepare(round_up(m), round_up(n), round_up(k), dt)
        d = runs["default"]
        if "call" in d:
            a, b, w = d["operands"]
            zero = torch.zeros(n, device="cuda", dtype=tdts[dt])
            wt = w.t() if linear else b
            runs["cublaslt"] = {"call": lambda a=a, wt=wt, zero=zero:
                                torch._addmm_activation(zero, a, wt)}
        best = {}
        for _ in range(2):
            for name, r in runs.items():
                if "call" in r:
                    best[name] = min(best.get(name, math.inf),
                                     bench_ms(r["call"], triton))
        for name, r in runs.items():
            rec[name] = ({"us": 1e3 * best[name],
                          **({"rel_error": r["rel_error"]}
                             if "rel_error" in r else {})}
                         if name in best else {"error": r["error"]})
        rows.append(rec)
        print(json.dumps(rec), flush=True)
    pathlib.Path(args.out).write_text(json.dumps(
        {"device": torch.cuda.get_device_name(), "command": " ".join(sys.argv),
         "api": args.api, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
