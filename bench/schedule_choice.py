#!/usr/bin/env python3
"""Times each schedule on the same shapes, in one process: which schedule
serves a class of shapes best (e.g. 16-bit shapes whose rows TMA cannot
read, where wgmma pays a copy kernel and SIMT reads the rows directly).

    python3 bench/schedule_choice.py --from bench/results/any-shape/any-shape.json \\
        --max-gflop 1 --out bench/results/any-shape/schedule-choice.json
    python3 bench/schedule_choice.py --shapes 3x100x10:f16,127x129x131:bf16 --out /tmp/c.json

For each shape: tessel.matmul_relu with the package's default schedules,
then with each schedule of --schedules alone, then the default on the
shape rounded up to 16 (the divisible twin). Every output is checked
against float64 before its time (do_bench median, L2 flushed) counts.
"""

import argparse
import json
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
                   help="an any_shape.py JSON: its 16-bit misaligned shapes")
    p.add_argument("--max-gflop", type=float, default=1.0)
    p.add_argument("--every", type=int, default=1,
                   help="take every N-th shape of --from")
    p.add_argument("--schedules", default="matmul_relu_simt.mlir,matmul_relu_mma.mlir")
    p.add_argument("--out", required=True)
    args = p.parse_args()

    import torch
    import triton
    import tessel
    from tessel import install
    from tessel.workload import rows_aligned

    warnings.simplefilter("ignore", tessel.TesselWarning)
    shapes = []
    if args.shapes:
        for item in args.shapes.split(","):
            dims, dt = item.split(":")
            shapes.append((*map(int, dims.split("x")), dt))
    if args.source:
        for r in json.loads(pathlib.Path(args.source).read_text())["rows"]:
            if (r["dtype"] in ("f16", "bf16") and r["gflop"] <= args.max_gflop
                    and not rows_aligned(r["n"], r["k"], r["dtype"])):
                shapes.append((r["m"], r["n"], r["k"], r["dtype"]))
        shapes = shapes[::args.every]

    def run(m, n, k, dt, schedule=None):
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16}[dt]
        a = torch.randn(m, k, device="cuda", dtype=tdt)
        b = torch.randn(k, n, device="cuda", dtype=tdt)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=tdt)
        try:
            tessel.matmul_relu(a, b, out=c, schedule=schedule)
        except tessel.TesselError as e:
            return {"error": str(e).splitlines()[0][:200]}
        ok, err, why = check(c, torch.relu(a.double() @ b.double()), dt, torch)
        if not ok:
            return {"error": why or f"wrong output (relative error {err:.3g})"}
        us = 1e3 * bench_ms(
            lambda: tessel.matmul_relu(a, b, out=c, schedule=schedule), triton)
        return {"us": us, "rel_error": err}

    rows = []
    for m, n, k, dt in shapes:
        rec = {"m": m, "n": n, "k": k, "dtype": dt,
               "gflop": 2e-9 * m * n * k, "default": run(m, n, k, dt)}
        for s in args.schedules.split(","):
            rec[s] = run(m, n, k, dt, install.schedules_dir() / s)
        rec["divisible"] = run(round_up(m), round_up(n), round_up(k), dt)
        rows.append(rec)
        print(json.dumps(rec), flush=True)
    pathlib.Path(args.out).write_text(json.dumps(
        {"device": torch.cuda.get_device_name(), "command": " ".join(sys.argv),
         "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
