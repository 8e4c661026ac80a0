#!/usr/bin/env python3
"""How good are knobs chosen without tuning? On ANCHORS.md's shapes (f16,
bf16, f32), times in one process, on the same inputs, the kernel with the
shipped tuned record, the rule's kernel, and the nearest tuned record's
(leave-one-out: the shape's own records are removed first), with every
output checked against f64.

    python3 bench/untuned_vs_tuned.py --out bench/results/any-shape/untuned
"""

import argparse
import datetime
import json
import math
import pathlib
import sys
import tempfile
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
from tessel.workload import anchor_shapes  # noqa: E402

TOLERANCE = {"f16": 1e-2, "bf16": 1e-2, "f32": 1e-5}


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtypes", default="f16,bf16,f32")
    p.add_argument("--out", required=True)
    args = p.parse_args()

    import torch
    import triton
    import tessel
    from tessel import runtime

    torch.backends.cuda.matmul.allow_tf32 = False
    warnings.simplefilter("ignore", tessel.TesselWarning)
    device = runtime.Device.get(0)
    tmp = pathlib.Path(tempfile.mkdtemp())
    rows = []
    for dtype in args.dtypes.split(","):
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16,
               "f32": torch.float32}[dtype]
        schedule = tessel.default_schedule(dtype, device.chip)
        shipped = tessel.default_databases([schedule])
        for (m, n, k) in anchor_shapes(dtype):
            workload = tessel.matmul_relu_key(m, n, k, dtype)
            # The shipped records without this workload's.
            loo = tmp / f"loo-{dtype}-{m}x{n}x{k}.json"
            merged = {"format": "tessel-tuning-db", "version": 1, "records": []}
            for db in shipped:
                d = json.loads(pathlib.Path(db).read_text())
                merged["records"] += [r for r in d["records"]
                                      if r["workload"] != workload]
            loo.write_text(json.dumps(merged))
            a = torch.randn(m, k, device="cuda", dtype=tdt)
            b = torch.randn(k, n, device="cuda", dtype=tdt)
            c = torch.empty(m, n, device="cuda", dtype=tdt)
            ref = torch.relu(a.double() @ b.double())
            row = {"m": m, "n": n, "k": k, "dtype": dtype}
            variants = {
                "tuned": dict(databases=shipped),
                "rule": dict(databases=[]),
                "nearest": dict(databases=[loo], defaults="nearest"),
            }
            for name, kw in variants.items():
                try:
                    comp = tessel.compile_matmul_relu(
                        m, n, k, dtype, schedule=schedule, device=device.key,
                        chip=device.chip, sm_count=device.sm_count, **kw)
                    kern = tessel.Kernel(comp, device)
                    kern(a, b, c)
                    torch.cuda.synchronize()
                    err = ((c.double() - ref).norm() / ref.norm()).item()
                    ok = err <= TOLERANCE[dtype] and not torch.isnan(c).any()
                    ms = triton.testing.do_bench(lambda: kern(a, b, c), warmup=25,
                                                 rep=100, return_mode="median")
                    row[name] = {"knobs": comp.knobs, "source": comp.knob_source,
                                 "ms": ms, "tflops": 2.0 * m * n * k / ms / 1e9,
                                 "rel_error": err, "passed": bool(ok)}
                except Exception as e:  # noqa: BLE001
                    row[name] = {"error": str(e)[-800:], "passed": False}
            for name in ("rule", "nearest"):
                if row[name].get("passed") and row["tuned"].get("passed"):
                    row[f"{name}_vs_tuned"] = row["tuned"]["ms"] / row[name]["ms"]
            rows.append(row)
            print(f"{m}x{n}x{k} {dtype}: tuned {row['tuned'].get('tflops', 0):.1f} "
                  f"({row['tuned'].get('source', '')[:40]}), rule "
                  f"{row['rule'].get('tflops', 0):.1f} x{row.get('rule_vs_tuned', 0):.2f}, "
                  f"nearest {row['nearest'].get('tflops', 0):.1f} "
                  f"x{row.get('nearest_vs_tuned', 0):.2f}", flush=True)
    summary = {name: geomean([r.get(f"{name}_vs_tuned") for r in rows])
               for name in ("rule", "nearest")}
    for dtype in args.dtypes.split(","):
        for name in ("rule", "nearest"):
            summary[f"{name}_{dtype}"] = geomean(
                [r.get(f"{name}_vs_tuned") for r in rows if r["dtype"] == dtype])
    meta = {"device": device.name, "date": datetime.date.today().isoformat(),
            "torch": torch.__version__, "command": " ".join(sys.argv),
            "summary": summary, "rows": rows}
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print("geomean vs tuned: " + ", ".join(f"{k} {v:.3f}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
