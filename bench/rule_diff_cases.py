#!/usr/bin/env python3
"""The layers whose knob-rule picks two tessel-opt builds disagree on, as
bench/compare_variants.py cases: each with the old build's knobs ("old"),
the new build's ("new") and cuBLASLt's fused ReLU, every knob given, so
that one bundle compiles both kernels (with the new schedule, whose
options must hold both picks).

    python3 bench/rule_diff_cases.py --old /tmp/old-opt,/tmp/old-sched.mlir \\
        --new build/bin/tessel-opt --from-cases bench/cases/*.json \\
        [--shape 288x5120x13824:bf16:nk ...] --out CASES.json
    python3 bench/compare_variants.py --cases CASES.json --out RUN.json   # GPU
    python3 bench/rule_change_summary.py CASES.json RUN.json

A build is a tessel-opt path, optionally followed by ",SCHEDULE" (the
wgmma schedule it ran with; default the checkout's). --from-cases takes
the 16-bit layers of case files (a case's "weight": "nk" is a Linear
layer's weight stored [n, k]); --shape adds MxNxK:dtype[:nk]. The rule
picks on the matmul + ReLU IR with B in that layout, as
tessel.compile_matmul_relu and tessel.compile_linear (no bias) give it.
"""

import argparse
import concurrent.futures
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from swap_ab_summary import rule_pick  # noqa: E402

SCHEDULE = "schedules/matmul_relu_wgmma.mlir"


def pick(build, m, n, k, dtype, weight):
    """The knobs the build's rule picks ("name=value,..."), or raises."""
    opt, _, schedule = build.partition(",")
    try:
        knobs = rule_pick(m, n, k, dtype, weight, opt=opt,
                          schedule=schedule or ROOT / SCHEDULE)
    except OSError as e:
        raise SystemExit(f"rule_diff_cases.py: cannot run {opt}: {e}")
    return ",".join(f"{name}={value}" for name, value in knobs.items())


def layers(args):
    found = set()
    for path in args.from_cases:
        for case in json.loads(pathlib.Path(path).read_text()):
            if isinstance(case, dict) and case.get("dtype") in ("f16",
                                                                 "bf16"):
                found.add((case["m"], case["n"], case["k"], case["dtype"],
                           case.get("weight", "kn")))
    for spec in args.shape:
        dims, dtype, *weight = spec.split(":")
        m, n, k = (int(v) for v in dims.split("x"))
        found.add((m, n, k, dtype, weight[0] if weight else "kn"))
    return sorted(found)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old", required=True)
    p.add_argument("--new", required=True)
    p.add_argument("--from-cases", nargs="*", default=[])
    p.add_argument("--shape", action="append", default=[])
    p.add_argument("--out", required=True)
    args = p.parse_args()

    shapes = layers(args)
    if not shapes:
        p.error("no layers: give --from-cases or --shape")

    def both(shape):
        return shape, pick(args.old, *shape), pick(args.new, *shape)

    cases = []
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        for (m, n, k, dtype, weight), old, new in pool.map(both, shapes):
            if old == new:
                continue
            case = {"m": m, "n": n, "k": k, "dtype": dtype}
            if weight == "nk":
                case["weight"] = "nk"
            case["variants"] = {
                "old": {"knobs": old, "schedule": SCHEDULE},
                "new": {"knobs": new, "schedule": SCHEDULE},
                "cublaslt": {"contender": "cublaslt"}}
            cases.append(case)
            print(f"{m}x{n}x{k} {dtype} {weight}: {old} -> {new}", flush=True)
    pathlib.Path(args.out).write_text(json.dumps(cases, indent=1) + "\n")
    print(f"{len(shapes)} layers, {len(cases)} picks changed -> {args.out}")


if __name__ == "__main__":
    main()
