#!/usr/bin/env python3
"""Compiles every example with a schedule's default knobs, runs it with
tessel-run (checked, timed) and compares with the anchors of ANCHORS.md.

    python3 bench/run_examples.py --tools tessel/bin --out results.json

Writes the raw results (JSON) and prints a Markdown table: Tessel's time and
TFLOP/s per shape, and its ratio to the best matmul+relu anchor (cuBLAS+relu,
Triton, torch.compile; for f32 the TF32 Triton row is excluded) measured on an
H100 with the same method (median, L2 flushed, 50 ms warm-up, 200 ms repeats).
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def shape_key(path):
    m = re.match(r"matmul_relu_(\d+)(?:x(\d+)x(\d+))?_(\w+)\.mlir", path.name)
    mm = int(m.group(1))
    n = int(m.group(2) or mm)
    k = int(m.group(3) or mm)
    return f"{mm}x{n}x{k}_{m.group(4)}", (mm, n, k, m.group(4))


def best_anchor(row, dtype):
    """Best matmul+relu anchor in TFLOP/s (strict-precision rows only)."""
    names = ["cublas+relu", "compile-max"] + (["triton"] if dtype != "f32" else [])
    return max(row[n] for n in names)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tools", default=str(ROOT / "build" / "bin"),
                   help="directory with tessel-opt and tessel-run")
    p.add_argument("--schedule", default=str(ROOT / "schedules" / "matmul_relu_simt.mlir"))
    p.add_argument("--knobs", default="", help="knob overrides for every shape")
    p.add_argument("--db", default="", help="take each shape's knobs from this tuning database")
    p.add_argument("--examples", nargs="*", help="example files (default: all)")
    p.add_argument("--chip", default="sm_90")
    p.add_argument("--out", default="results.json")
    args = p.parse_args()

    anchors = json.loads((ROOT / "bench" / "anchors.json").read_text())["rows"]
    examples = [pathlib.Path(e) for e in args.examples] if args.examples else \
        sorted((ROOT / "examples").glob("matmul_relu_*.mlir"))
    tools = pathlib.Path(args.tools)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for ex in examples:
            key, (m, n, k, dt) = shape_key(ex)
            outdir = pathlib.Path(tmp) / key
            sched = f"schedule={args.schedule}" + (f" knobs={args.knobs}" if args.knobs else "") \
                + (f" db={args.db}" if args.db else "")
            compile_cmd = [str(tools / "tessel-opt"), str(ex),
                           f"--tessel-apply-schedule={sched}",
                           f"--tessel-lower-to-ptx=chip={args.chip}",
                           f"--tessel-export-kernels=dir={outdir}", "-o", "/dev/null"]
            c = subprocess.run(compile_cmd, capture_output=True, text=True)
            if c.returncode != 0:
                results.append({"shape": key, "status": "compile-error", "error": c.stderr})
                print(f"{key}: compile error\n{c.stderr}", file=sys.stderr)
                continue
            r = subprocess.run([str(tools / "tessel-run"), str(outdir / "matmul_relu.launch.json"),
                                "--json"], capture_output=True, text=True)
            if r.returncode not in (0, 2):
                results.append({"shape": key, "status": "run-error", "error": r.stderr})
                print(f"{key}: run error\n{r.stderr}", file=sys.stderr)
                continue
            res = json.loads(r.stdout)
            res.update({"shape": key, "m": m, "n": n, "k": k, "dtype": dt,
                        "status": "ok" if res["passed"] else "wrong-output"})
            if key in anchors:
                best = best_anchor(anchors[key], dt)
                res["best_anchor_tflops"] = best
                res["ratio_to_best_anchor"] = res["tflops"] / best
            results.append(res)
            print(f"{key}: {res['median_ms']:.4f} ms {res['tflops']:.1f} TFLOP/s "
                  f"{'PASS' if res['passed'] else 'FAIL'} rel.err {res['relative_error']:.2e}",
                  file=sys.stderr, flush=True)

    pathlib.Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    device = next((r["device"] for r in results if "device" in r), "?")
    print(f"\nDevice: {device}; schedule {pathlib.Path(args.schedule).name}, "
          f"knobs: {args.knobs or ('tuned, from ' + args.db if args.db else 'defaults')}\n")
    print("| shape (MxNxK) | dtype | check (rel. error) | median ms | TFLOP/s | best anchor TFLOP/s | ratio |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        if r["status"] in ("ok", "wrong-output"):
            print(f"| {r['m']}x{r['n']}x{r['k']} | {r['dtype']} | "
                  f"{'pass' if r['passed'] else 'FAIL'} ({r['relative_error']:.1e}) | "
                  f"{r['median_ms']:.3f} | {r['tflops']:.1f} | "
                  f"{r.get('best_anchor_tflops', '-')} | {r.get('ratio_to_best_anchor', 0):.3f} |")
        else:
            print(f"| {r['shape']} | | {r['status']} | | | | |")
    return 0 if all(r["status"] == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
