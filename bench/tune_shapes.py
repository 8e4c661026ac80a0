#!/usr/bin/env python3
"""Tunes Tessel's matmul+ReLU for several shapes on this GPU through the
Python package (tessel.tune_matmul_relu), recording every trial in a tuning
database that tessel.matmul_relu (and tessel-opt's db=) then reads.

    python3 bench/tune_shapes.py --dtype f32 --shapes 1024,2048x2048x512 \\
        --budget 24 [--db tuning.json]
"""

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import tessel  # noqa: E402
from race import parse_shapes  # noqa: E402
from tessel.workload import anchor_shapes  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", default="f16", choices=tessel.DTYPES)
    p.add_argument("--shapes", type=parse_shapes,
                   help="MxNxK,... (default: ANCHORS.md's for the dtype)")
    p.add_argument("--budget", type=int, default=40)
    p.add_argument("--strategy", default="evolutionary")
    p.add_argument("--db", help="default: tessel.user_database()")
    args = p.parse_args()
    shapes = args.shapes or anchor_shapes(args.dtype)
    for m, n, k in shapes:
        t0 = time.perf_counter()
        try:
            c = tessel.tune_matmul_relu(m, n, k, args.dtype, db=args.db,
                                        budget=args.budget,
                                        strategy=args.strategy)
        except tessel.TesselError as e:
            print(f"{m}x{n}x{k} {args.dtype}: {e}", file=sys.stderr)
            continue
        lines = c.log.splitlines()
        best = [lines[i + 1] for i, line in enumerate(lines[:-1])
                if "best candidates" in line]
        print(f"{m}x{n}x{k} {args.dtype} ({time.perf_counter() - t0:.0f} s):"
              f" {c.knobs} {' '.join(best[:1])}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
