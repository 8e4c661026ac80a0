#!/usr/bin/env python3
"""Sums up a change of the knob rule measured with bench/compare_variants.py:
for each case of a rule-change file (variants "old" and "new", each the
knobs one build's rule picks, as bench/cases/rule-change-final.json), the
fastest time measured for each knob set over the given runs (any
variant name whose knobs are the same), then new/old speed and both
against cuBLASLt, in geometric mean, per weight and over all.

    python3 bench/rule_change_summary.py CASES.json RUN.json[.xz] ...
"""

import argparse
import json
import lzma
import math
import pathlib


def load(path):
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def knob_key(knobs):
    if isinstance(knobs, str):
        knobs = dict(kv.split("=") for kv in knobs.split(",") if kv)
    return ",".join(f"{k}={v}" for k, v in sorted(knobs.items()))


def shape_key(case):
    return (case["m"], case["n"], case["k"], case["dtype"],
            case.get("weight", "kn"))


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases")
    p.add_argument("runs", nargs="+")
    args = p.parse_args()
    times = {}
    for run in args.runs:
        for row in load(run)["rows"]:
            for name, v in row["variants"].items():
                if not v.get("passed", True):
                    continue
                what = knob_key(v["knobs"]) if "knobs" in v else "cublaslt"
                times.setdefault((shape_key(row), what), []).append(v["ms"])
    rows = []
    for case in load(args.cases):
        key = shape_key(case)
        old = times.get((key, knob_key(case["variants"]["old"]["knobs"])))
        new = times.get((key, knob_key(case["variants"]["new"]["knobs"])))
        lt = times.get((key, "cublaslt"))
        if not (old and new and lt):
            print(f"{key}: not measured")
            continue
        old, new, lt = min(old), min(new), min(lt)
        rows.append((key, old / new, lt / old, lt / new))
    if not rows:
        return
    by_weight = {}
    for row in rows:
        by_weight.setdefault(row[0][1:3], []).append(row)

    def line(name, rs):
        ms = [r[0][0] for r in rs]
        print(f"{name}: {len(rs)} layers of {min(ms)}-{max(ms)} rows, new/old "
              f"{geomean([r[1] for r in rs]):.3f} "
              f"({min(r[1] for r in rs):.2f}-{max(r[1] for r in rs):.2f}); "
              f"cuBLASLt time / ours {geomean([r[2] for r in rs]):.3f} -> "
              f"{geomean([r[3] for r in rs]):.3f}")

    for (n, k), rs in sorted(by_weight.items()):
        line(f"{n}x{k}", rs)
    line("all", rows)


if __name__ == "__main__":
    main()
