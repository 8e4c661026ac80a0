#!/usr/bin/env python3
"""Compiles a schedule for many shapes, dtypes and knob points, runs every
kernel with tessel-run (output checked against a float64 reference, NaN
poison catching unwritten elements) and reports what failed.

    # shapes x dtypes with the knobs the compiler picks:
    python3 bench/check_shapes.py --tools tessel/bin --chip sm_90a \\
        --schedule schedules/matmul_relu_wgmma.mlir \\
        --shapes 1000x1000x1000,77x1000x320 --dtypes f16,bf16 --out r.json
    # every point of the schedule's knob space at one shape (the sweep):
    python3 bench/check_shapes.py ... --shapes 520x392x200 --sweep
    # a Linear layer instead of relu(A @ B): bias, an activation, the
    # weight stored [n, k] (PyTorch's layout) or [k, n]:
    python3 bench/check_shapes.py ... --linear gelu_tanh --weight nk
    # a payload of your own (a batched contraction, ...); --shapes and
    # --dtypes only label it:
    python3 bench/check_shapes.py ... --input bmm.mlir --shapes 77x100x131 --sweep

Compiles in parallel (--jobs), runs each kernel in its own tessel-run
process with a time limit (one at a time, or --run-jobs at once for a
correctness sweep), so a crash or a hang is a recorded failure. A point the compiler refuses is recorded with its diagnostic
("refused"): the sweep's contract is that every point is refused up front
or correct. Exit status 1 when any kernel ran and failed its check, crashed
or hung.
"""

import argparse
import concurrent.futures
import itertools
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
from tessel.workload import linear_ir, matmul_relu_ir  # noqa: E402

_KNOB = re.compile(r'transform\.tune\.knob<"(\w+)">\s*=\s*(-?\d+)\s*:\s*i64\s*'
                   r'from\s+options\s*=\s*\[([^\]]*)\]')


def knob_space(schedule):
    """{name: [options]} of a schedule's integer knobs, in order."""
    space = {}
    for name, _, options in _KNOB.findall(pathlib.Path(schedule).read_text()):
        space[name] = [int(v) for v in options.split(",")]
    return space


def parse_shape(text):
    m, n, k = (int(v) for v in text.lower().split("x"))
    return m, n, k


def workload_ir(m, n, k, dtype, linear, payload=None, layout=("mk", "kn")):
    """The payload and its function's name: relu(A @ B) with A and B stored
    as `layout` says (("mk" or "km", "kn" or "nk")), or with `linear`
    = (activation, weight) a Linear layer with a bias, or the text of the
    file `payload` (its first function)."""
    if payload is not None:
        text = pathlib.Path(payload).read_text()
        return text, re.search(r"func\.func @(\w+)", text).group(1)
    if linear is None:
        return matmul_relu_ir(m, n, k, dtype, a=layout[0],
                              b=layout[1]), "matmul_relu"
    activation, weight = linear
    return linear_ir(m, n, k, dtype, bias=True,
                     activation=None if activation == "none" else activation,
                     weight=weight), "linear"


def compile_one(job, tools, schedule, chip, extra, workdir, linear=None,
                payload=None, layout=("mk", "kn")):
    (m, n, k), dtype, knobs = job
    name = f"{m}x{n}x{k}_{dtype}" + ("_" + knobs.replace(",", "_").replace("=", "")
                                     if knobs else "")
    d = pathlib.Path(workdir) / name
    d.mkdir(parents=True, exist_ok=True)
    src = d / "input.mlir"
    text, function = workload_ir(m, n, k, dtype, linear, payload, layout)
    src.write_text(text)
    options = f"schedule={schedule}" + (f" knobs={knobs}" if knobs else "") + extra
    cmd = [str(pathlib.Path(tools) / "tessel-opt"), str(src),
           f"--tessel-apply-schedule={options}",
           f"--tessel-lower-to-ptx=chip={chip}",
           f"--tessel-export-kernels=dir={d}", "-o", os.devnull]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    rec = {"m": m, "n": n, "k": k, "dtype": dtype, "knobs": knobs,
           "compile_s": round(time.time() - t0, 2), "dir": str(d),
           "launch": str(d / f"{function}.launch.json")}
    if r.returncode != 0:
        rec.update(status="refused", error=r.stderr.strip()[-2000:])
    else:
        spec = json.loads((d / f"{function}.launch.json").read_text())
        rec["applied_knobs"] = spec.get("schedule", {}).get("knobs", {})
        rec["knob_source"] = spec.get("schedule", {}).get("knob_source", "")
        rec["status"] = "compiled"
    return rec


def run_one(rec, tools, timeout, rep_ms):
    spec = rec["launch"]
    cmd = [str(pathlib.Path(tools) / "tessel-run"), str(spec), "--json",
           "--warmup-ms", "2", "--rep-ms", str(rep_ms)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        rec.update(status="hang", error=f"no answer in {timeout} s")
        return rec
    if r.returncode not in (0, 2):
        rec.update(status="run-error", error=(r.stderr or r.stdout).strip()[-2000:])
        return rec
    res = json.loads(r.stdout)
    rec.update({k: res[k] for k in ("passed", "relative_error", "nan_count",
                                     "median_ms", "tflops", "device")
                if k in res})
    rec["status"] = "ok" if res.get("passed") else "wrong-output"
    return rec


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tools", default=str(ROOT / "build" / "bin"))
    p.add_argument("--schedule", required=True)
    p.add_argument("--chip", default="sm_90")
    p.add_argument("--shapes", help="MxNxK,MxNxK,...")
    p.add_argument("--input", metavar="MLIR",
                   help="sweep this payload (a batched contraction, ...) "
                        "instead of generated ones; --shapes and --dtypes "
                        "then only label the records")
    p.add_argument("--dtypes", default="f16")
    p.add_argument("--knobs", action="append", default=[],
                   help="a knob point name=v,... (repeatable); default: the "
                        "compiler's choice")
    p.add_argument("--sweep", action="store_true",
                   help="every point of the schedule's knob space")
    p.add_argument("--fix", action="append", default=[],
                   help="with --sweep, hold a knob at one value (name=value)")
    p.add_argument("--extra", default="", help="more tessel-apply-schedule options")
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    p.add_argument("--run-jobs", type=int, default=1,
                   help="kernels checked at once (each in its own process; "
                        "for correctness sweeps, not for timing)")
    p.add_argument("--timeout", type=int, default=60)
    p.add_argument("--rep-ms", type=float, default=10)
    p.add_argument("--compile-only", action="store_true")
    p.add_argument("--linear", metavar="ACTIVATION",
                   help="a Linear layer with a bias and this activation "
                        "(none, relu, gelu, gelu_tanh, silu) instead of "
                        "relu(A @ B)")
    p.add_argument("--weight", choices=("nk", "kn"), default="nk",
                   help="with --linear, how the weight is stored")
    p.add_argument("--layout", default="mk:kn",
                   help="relu(A @ B)'s operands as stored, A:B: mk or km, "
                        "kn or nk (default mk:kn)")
    p.add_argument("--out", default="check.json")
    args = p.parse_args()

    if not args.shapes and not args.input:
        p.error("give --shapes or --input")
    shapes = [parse_shape(s) for s in (args.shapes or "0x0x0").split(",")]
    dtypes = args.dtypes.split(",")
    points = args.knobs or [""]
    if args.sweep:
        space = knob_space(args.schedule)
        for item in args.fix:
            name, value = item.split("=")
            space[name] = [int(value)]
        points = [",".join(f"{n}={v}" for n, v in zip(space, combo))
                  for combo in itertools.product(*space.values())]
    jobs = list(itertools.product(shapes, dtypes, points))
    extra = (" " + args.extra) if args.extra else ""
    linear = (args.linear, args.weight) if args.linear else None
    print(f"{len(jobs)} kernels ({len(shapes)} shapes x {len(dtypes)} dtypes x "
          f"{len(points)} knob points)", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as workdir:
        t0 = time.time()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            recs = list(pool.map(lambda j: compile_one(
                j, args.tools, args.schedule, args.chip, extra, workdir,
                linear, args.input, tuple(args.layout.split(":"))), jobs))
        compiled = [r for r in recs if r["status"] == "compiled"]
        print(f"compiled {len(compiled)}, refused {len(recs) - len(compiled)} "
              f"in {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
        if not args.compile_only:
            with concurrent.futures.ThreadPoolExecutor(args.run_jobs) as pool:
                list(pool.map(lambda rec: run_one(rec, args.tools, args.timeout,
                                                  args.rep_ms), compiled))
            for rec in compiled:
                if rec["status"] != "ok":
                    print(f"  {rec['m']}x{rec['n']}x{rec['k']} {rec['dtype']} "
                          f"{rec['knobs']}: {rec['status']} "
                          f"{rec.get('error', rec.get('relative_error', ''))}"[:400],
                          file=sys.stderr, flush=True)
        for rec in recs:
            rec.pop("dir", None)
            rec.pop("launch", None)
    pathlib.Path(args.out).write_text(json.dumps(recs, indent=1) + "\n")
    counts = {}
    for r in recs:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print("status: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    bad = [r for r in recs if r["status"] in ("wrong-output", "run-error", "hang")]
    for r in bad[:40]:
        print(f"  FAIL {r['m']}x{r['n']}x{r['k']} {r['dtype']} {r['knobs']}: "
              f"{r['status']} {str(r.get('error', r.get('relative_error', '')))[:300]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
