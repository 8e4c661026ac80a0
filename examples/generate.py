#!/usr/bin/env python3
"""Generates the matmul+ReLU example inputs (one .mlir file per shape and dtype).

The shapes are those of ../shared/ANCHORS.md: f16 and bf16 inputs accumulate
in f32 (the accumulator type is part of the input IR: the user's choice), f32
inputs accumulate in f32. The output has the input dtype.

    python3 examples/generate.py            # (re)writes examples/*.mlir
    python3 examples/generate.py --check    # fails if a file is stale
"""

import argparse
import pathlib
import sys

# The template and the shapes live in the Python package (tessel.workload),
# which compiles the same IR for any shape.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from tessel.workload import ANCHOR_SHAPES, matmul_relu_ir  # noqa: E402


def file_name(m, n, k, dt):
    shape = f"{m}" if m == n == k else f"{m}x{n}x{k}"
    return f"matmul_relu_{shape}_{dt}.mlir"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent)
    parser.add_argument("--check", action="store_true",
                        help="only check that the files are up to date")
    parser.add_argument("--shape", help="one extra shape MxNxK (e.g. 1000x1000x64)")
    parser.add_argument("--dtype", default="f16", choices=["f16", "bf16", "f32"])
    args = parser.parse_args()

    wanted = [(m, n, k, dt) for dt, shapes in ANCHOR_SHAPES.items() for m, n, k in shapes]
    if args.shape:
        m, n, k = (int(v) for v in args.shape.split("x"))
        wanted = [(m, n, k, args.dtype)]
    stale = []
    for m, n, k, dt in wanted:
        path = args.out / file_name(m, n, k, dt)
        text = matmul_relu_ir(m, n, k, dt)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
            print(path)
    if stale:
        print("stale examples (run examples/generate.py):", *stale, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
