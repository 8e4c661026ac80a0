#!/usr/bin/env python3
"""Summarizes swap-AB measurements (bench/compare_variants.py JSON) for the
layers whose knob-rule pick is swapped: for each file, the rows where the
current rule picks swap_ab = 1 and the measured swapped variant has exactly
those knobs, the unswapped variant's time over the swapped one's, and
cuBLASLt's fused epilogue against both.

    python3 bench/swap_ab_summary.py DIR/held2.json:old:new DIR/grid.json:noswap:rule

Each argument is FILE:UNSWAPPED:SWAPPED (variant names; SWAPPED may list
several, comma-separated, of which the one with the rule's knobs counts). Needs
build/bin/tessel-opt (the rule's picks, tessel-apply-schedule only).
"""

import json
import math
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
from tessel.workload import matmul_relu_ir  # noqa: E402

OPT = ROOT / "build" / "bin" / "tessel-opt"
SCHEDULE = ROOT / "schedules" / "matmul_relu_wgmma.mlir"


def rule_pick(m, n, k, dtype, weight, opt=OPT, schedule=SCHEDULE):
    """The rule's knobs ({name: value string}) for matmul_relu at the shape,
    as tessel-opt `opt` picks them with `schedule`; weight 'nk' stores B
    [n, k]. Raises RuntimeError with tessel-opt's diagnostic where it
    picks none (bench/rule_diff_cases.py calls it too)."""
    ir = matmul_relu_ir(m, n, k, dtype, b=weight or "kn")
    r = subprocess.run([str(opt), "-", f"--tessel-apply-schedule=schedule={schedule}"],
                       input=ir, capture_output=True, text=True)
    found = re.search(r"knobs = \{([^}]*)\}", r.stdout)
    if r.returncode != 0 or not found:
        raise RuntimeError(f"{m}x{n}x{k} {dtype} {weight or 'kn'}: "
                           f"{r.stderr.strip()[:300]}")
    return {name: value.split(" : ")[0] for name, value in
            (kv.split(" = ") for kv in found.group(1).split(", "))}


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    gains, contender_before, contender_after = [], [], []
    for spec in sys.argv[1:]:
        path, unswapped, swapped = spec.rsplit(":", 2)
        rows = json.loads(pathlib.Path(path).read_text())["rows"]
        file_gains = []
        for r in rows:
            v = r["variants"]
            pick = rule_pick(r["m"], r["n"], r["k"], r["dtype"], r.get("weight"))
            if pick.get("swap_ab") != "1":
                continue
            match = [name for name in swapped.split(",")
                     if all(str(v[name].get("knobs", {}).get(knob)) == value
                            for knob, value in pick.items())]
            if not match:
                continue
            ms = v[match[0]]["ms"]
            gain = v[unswapped]["ms"] / ms
            file_gains.append(gain)
            contender_before.append(v["cublaslt"]["ms"] / v[unswapped]["ms"])
            contender_after.append(v["cublaslt"]["ms"] / ms)
            print(f"  {r['m']}x{r['n']}x{r['k']} {r['dtype']} {r.get('weight') or 'kn'}: "
                  f"{gain:.3f}x")
        if file_gains:
            print(f"{path}: {len(file_gains)} layers, {geomean(file_gains):.3f}x "
                  f"({min(file_gains):.3f}-{max(file_gains):.3f}, "
                  f"{sum(g >= 0.98 for g in file_gains)} at >= 0.98x)")
        gains += file_gains
    if gains:
        print(f"all: {len(gains)} layers, {geomean(gains):.3f}x; against cuBLASLt "
              f"{geomean(contender_before):.3f}x -> {geomean(contender_after):.3f}x")


if __name__ == "__main__":
    sys.exit(main())
