#!/usr/bin/env python3
"""Times the kernels of several tessel-opt builds against each other: the
same workloads, schedules and knobs (the tuned records, else the rule),
compiled by each build on the CPU, then run, checked and timed by one
tessel-run on the GPU in interleaved rounds.

    # CPU: compile each case with each build (name=path of its tessel-opt,
    # and optionally ",schedule" of the schedule library it applies)
    python3 bench/compare_builds.py prepare DIR --build old=/tmp/opt-old \\
        --build new=build/bin/tessel-opt
    # or one build's kernels with knobs changed (name=knobs given over the
    # chosen ones; each build is then compiled once per variant, into
    # <build>-<variant>):
    python3 bench/compare_builds.py prepare DIR --build b=build/bin/tessel-opt \
        --variant base= --variant persistent=persistent=1
    # GPU: round 1 checks every kernel against the f64 reference and times
    # it; later rounds only time
    # or each build's knob rule against the other's (no tuned records):
    python3 bench/compare_builds.py prepare DIR --rule --build old=... \
        --build new=...
    python3 bench/compare_builds.py run DIR OUT.json [--rounds 3]

DIR/<case>/<build>/ holds each kernel (PTX and launch.json). The output
lists every run and, per case, each build's time ratio to the first build
(first time / build time: above 1 is faster), by the best of its rounds'
medians (`ratio`) and by the median of them (`median_ratio`). Large
kernels run into the GPU's power limit within a round, so a round's first
kernel can be several percent faster than the same kernel later; builds
take turns in that place, and the median of rounds is the steadier
figure.
"""

import argparse
import itertools
import json
import math
import pathlib
import re
import shutil
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))

# (name, kind, m, n, k, dtype, activation): ANCHORS.md's f16 shapes and the
# bf16 ones, the Linear shapes, a residue and a misaligned shape,
# thin and decode shapes (split-K), TF32 Linear layers ("tf32": f32
# inputs multiplied as TF32, no bias, W stored [n, k]) and FP32-accurate
# ones ("x3": 3xTF32, the same layers without tessel.allow_tf32).
CASES = [
    ("256x1024x1024-f16", "relu", 256, 1024, 1024, "f16", None),
    ("1024^3-f16", "relu", 1024, 1024, 1024, "f16", None),
    ("2048^3-f16", "relu", 2048, 2048, 2048, "f16", None),
    ("4096^3-f16", "relu", 4096, 4096, 4096, "f16", None),
    ("8192^3-f16", "relu", 8192, 8192, 8192, "f16", None),
    ("4096x4096x1024-f16", "relu", 4096, 4096, 1024, "f16", None),
    ("16384x1024x4096-f16", "relu", 16384, 1024, 4096, "f16", None),
    ("128x4096x4096-f16", "relu", 128, 4096, 4096, "f16", None),
    ("4096^3-bf16", "relu", 4096, 4096, 4096, "bf16", None),
    ("1000^3-f16", "relu", 1000, 1000, 1000, "f16", None),
    # Where 1000^3's rows on 16- but not 32-byte boundaries cost: A only
    # (K = 1000), B and C (N = 1000), C only (the weight [n, k] with
    # K = 1008), against the aligned twins.
    ("rows16-1008^3-f16", "relu", 1008, 1008, 1008, "f16", None),
    ("rows16-A-1000x1008x1000-f16", "relu", 1000, 1008, 1000, "f16", None),
    ("rows16-BC-1008x1000x1008-f16", "relu", 1008, 1000, 1008, "f16", None),
    ("rows16-linear-1008^3-f16-relu", "linear", 1008, 1008, 1008, "f16",
     "relu"),
    ("rows16-C-linear-1008x1000x1008-f16-relu", "linear", 1008, 1000, 1008,
     "f16", "relu"),
    ("rows16-1000^3-bf16", "relu", 1000, 1000, 1000, "bf16", None),
    ("rows16-1008^3-bf16", "relu", 1008, 1008, 1008, "bf16", None),
    ("rows16-600x1000x1400-f16", "relu", 600, 1000, 1400, "f16", None),
    ("rows16-1000x3000x1000-f16", "relu", 1000, 3000, 1000, "f16", None),
    ("rows16-tf32-1004^3-relu", "tf32", 1004, 1004, 1004, "f32", "relu"),
    ("rows16-x3-1004^3-relu", "x3", 1004, 1004, 1004, "f32", "relu"),
    ("2000x3000x1500-f16", "relu", 2000, 3000, 1500, "f16", None),
    ("linear-8192x4096x4096-bf16-gelu_tanh", "linear", 8192, 4096, 4096,
     "bf16", "gelu_tanh"),
    ("linear-8192x4096x4096-bf16-relu", "linear", 8192, 4096, 4096, "bf16",
     "relu"),
    ("linear-4096x14336x4096-f16-gelu_tanh", "linear", 4096, 14336, 4096,
     "f16", "gelu_tanh"),
    ("linear-4096x14336x4096-f16-relu", "linear", 4096, 14336, 4096, "f16",
     "relu"),
    ("8192^3-bf16", "relu", 8192, 8192, 8192, "bf16", None),
    ("64x4096x4096-f16", "relu", 64, 4096, 4096, "f16", None),
    ("1x8192x8192-f16", "relu", 1, 8192, 8192, "f16", None),
    ("32x8192x8192-f16", "relu", 32, 8192, 8192, "f16", None),
    ("8x8192x8192-f16", "relu", 8, 8192, 8192, "f16", None),
    ("128x8192x8192-f16", "relu", 128, 8192, 8192, "f16", None),
    # Decode-like layers of LLMs (M of 1 to 64 tokens, weights W stored
    # [n, k]), untuned: the rule's picks for memory-bound shapes.
    ("decode-1x4096x4096-f16", "linear", 1, 4096, 4096, "f16", None),
    ("decode-1x11008x4096-f16", "linear", 1, 11008, 4096, "f16", None),
    ("decode-1x4096x11008-f16", "linear", 1, 4096, 11008, "f16", None),
    ("decode-4x14336x4096-bf16", "linear", 4, 14336, 4096, "bf16", None),
    ("decode-16x4096x14336-bf16", "linear", 16, 4096, 14336, "bf16", None),
    ("decode-1x28672x8192-bf16", "linear", 1, 28672, 8192, "bf16", None),
    ("decode-64x8192x8192-f16", "linear", 64, 8192, 8192, "f16", None),
    ("decode-8x2048x2048-f16", "linear", 8, 2048, 2048, "f16", None),
    ("decode-32x8192x8192-f16", "linear", 32, 8192, 8192, "f16", None),
    ("decode-8x4096x8192-f16", "relu", 8, 4096, 8192, "f16", None),
    ("decode-2x8192x4096-bf16", "relu", 2, 8192, 4096, "bf16", None),
    # Held out of the streaming term's fit.
    ("holdout-1x5120x5120-bf16", "linear", 1, 5120, 5120, "bf16", None),
    ("holdout-8x13824x5120-f16", "linear", 8, 13824, 5120, "f16", None),
    ("holdout-2x6144x6144-f16", "relu", 2, 6144, 6144, "f16", None),
    ("holdout-48x3072x12288-bf16", "linear", 48, 3072, 12288, "bf16", None),
    # One of bench/any_shape.py's 300 shapes (A's rows on 16- but not
    # 32-byte boundaries).
    ("any-96x8579x4376-f16", "relu", 96, 8579, 4376, "f16", None),
    # Whole waves of 128x256 tiles on 132 SMs (1056 and 528 tiles) beside
    # the shapes above (1024 and 512 tiles: 7.76 and 3.88 waves).
    ("wave-linear-8448x4096x4096-bf16-relu", "linear", 8448, 4096, 4096,
     "bf16", "relu"),
    ("wave-4224x4096x4096-f16", "relu", 4224, 4096, 4096, "f16", None),
    ("tf32-2048^3-relu", "tf32", 2048, 2048, 2048, "f32", "relu"),
    # TF32 shapes of about one wave of 128x256 tiles (one tile per block).
    ("tf32-1024x4096x2048-relu", "tf32", 1024, 4096, 2048, "f32", "relu"),
    ("tf32-2048x2048x4096-relu", "tf32", 2048, 2048, 4096, "f32", "relu"),
    ("tf32-1536x2816x2048-relu", "tf32", 1536, 2816, 2048, "f32", "relu"),
    ("tf32-2048x1536x1024-relu", "tf32", 2048, 1536, 1024, "f32", "relu"),
    ("tf32-4096^3-relu", "tf32", 4096, 4096, 4096, "f32", "relu"),
    ("tf32-16384x1024x4096-relu", "tf32", 16384, 1024, 4096, "f32", "relu"),
    ("tf32-4096x4096x1024-relu", "tf32", 4096, 4096, 1024, "f32", "relu"),
    # FP32-accurate f32 (3xTF32) on ANCHORS.md's f32 shapes, W stored [n, k].
    ("x3-128x4096x4096-relu", "x3", 128, 4096, 4096, "f32", "relu"),
    ("x3-256x1024x1024-relu", "x3", 256, 1024, 1024, "f32", "relu"),
    ("x3-1024^3-relu", "x3", 1024, 1024, 1024, "f32", "relu"),
    ("x3-2048^3-relu", "x3", 2048, 2048, 2048, "f32", "relu"),
    ("x3-4096x4096x1024-relu", "x3", 4096, 4096, 1024, "f32", "relu"),
    ("x3-4096^3-relu", "x3", 4096, 4096, 4096, "f32", "relu"),
    ("x3-16384x1024x4096-relu", "x3", 16384, 1024, 4096, "f32", "relu"),
]


def relu_cases(prefix, shapes):
    """Cases of relu(A x B), B stored [k, n], named prefix-MxNxK-dtype."""
    return [(f"{prefix}-{m}x{n}x{k}-{dt}", "relu", m, n, k, dt, None)
            for m, n, k, dt in shapes]


# Shapes of about one wave of blocks, alone on their SMs (the rule's ring
# depth for such blocks).
CASES += relu_cases("onewave", [
    (1024, 1024, 1024, "bf16"), (256, 1024, 1024, "bf16"),
    (768, 1024, 1024, "f16"), (1024, 1024, 2048, "f16"),
    (512, 2048, 2048, "f16"), (1024, 1536, 1024, "f16"),
    (1024, 2048, 1024, "bf16"), (2048, 1024, 512, "f16"),
    (512, 1024, 4096, "f16"), (1536, 1024, 1024, "bf16")])
# Rows on 16- but not 32-byte boundaries where copying them is a question
# (bench/cases/copy-16b-rows*.json): A's (K % 16 == 8), an N-major B's
# (N % 16 == 8), both; a Linear layer's weight [n, k] and TF32's f32 rows.
CASES += relu_cases("copy16", [
    (2000, 4096, 1000, "f16"), (4000, 4096, 1000, "f16"),
    (8000, 4096, 3000, "f16"), (4000, 8192, 2008, "f16"),
    (2000, 2048, 5000, "f16"), (4096, 4096, 7000, "f16"),
    (1024, 4096, 3000, "f16"), (8000, 8000, 1000, "f16"),
    (4096, 1000, 4096, "f16"), (2048, 3000, 1024, "f16"),
    (4096, 5000, 2048, "f16"), (8192, 2008, 4096, "f16"),
    (2000, 1000, 2048, "f16"), (1536, 3000, 3072, "f16"),
    (3000, 3000, 3000, "f16"), (2008, 2008, 2008, "f16"),
    (4000, 3000, 1000, "f16"), (5000, 5000, 5000, "bf16")])
CASES += [
    ("copy16-linear-4000x4096x1000-f16-relu", "linear", 4000, 4096, 1000,
     "f16", "relu"),
    ("copy16-linear-8192x2008x4104-bf16-gelu_tanh", "linear", 8192, 2008,
     4104, "bf16", "gelu_tanh"),
    ("copy16-tf32-2000x4096x1004-relu", "tf32", 2000, 4096, 1004, "f32",
     "relu"),
]


def prepare(args):
    from tessel import compiler, install
    # NAME=OPT[,SCHEDULE]: a build's tessel-opt, and the schedule library
    # it applies (default: the installed ones for the case).
    builds = {name: tuple(spec.split(",", 1)) if "," in spec else (spec, None)
              for name, spec in (b.split("=", 1) for b in args.build)}
    variants = dict(v.split("=", 1) for v in args.variant) or {"": ""}
    out = pathlib.Path(args.dir)
    cases = CASES
    if args.shapes:
        # Ad hoc cases instead of CASES: relu(A x B), B stored [k, n], or
        # with ":nk" a Linear layer with a bias and ReLU, its weight [n, k].
        cases = []
        for spec in args.shapes.split(","):
            dims, dtype, *layout = spec.split(":")
            m, n, k = (int(d) for d in dims.split("x"))
            cases += ([(f"linear-{m}x{n}x{k}-{dtype}-relu", "linear", m, n,
                        k, dtype, "relu")] if layout == ["nk"] else
                      relu_cases("shape", [(m, n, k, dtype)]))
    for name, kind, m, n, k, dtype, act in cases:
        if args.cases and not re.search(args.cases, name):
            continue
        for (build, (opt, schedule)), (variant, knobs) in itertools.product(
                builds.items(), variants.items()):
            # Each build's tessel-opt compiles; the kernel cache keys on the
            # binary, so builds never share a kernel.
            install.tool = (lambda path: lambda tool: pathlib.Path(path)
                            if tool == "tessel-opt" else None)(opt)
            def compile(knobs):
                # --rule: no tuned records, the knob rule picks (for an
                # H100's 132 SMs).
                where = (dict(databases=[], sm_count=132) if args.rule
                         else {})
                if schedule:
                    where["schedule"] = schedule
                if kind == "relu":
                    return compiler.compile_matmul_relu(
                        m, n, k, dtype, chip="sm_90a", knobs=knobs or None,
                        **where)
                return compiler.compile_linear(
                    m, n, k, dtype, bias=kind == "linear", activation=act,
                    chip="sm_90a", knobs=knobs or None,
                    allow_tf32=kind == "tf32", **where)
            # A variant changes the knobs chosen for the case (the tuned
            # record's, else the rule's) where it names them; where that
            # needs more shared memory than a block has, with fewer stages.
            chosen = dict(compile(None).knobs)
            given = dict(kv.split("=", 1) for kv in knobs.split(",") if kv)
            knobs = dict(chosen, **given)
            kernel = None
            while True:
                try:
                    kernel = compile(knobs)
                    break
                except Exception as e:  # tessel.TesselError
                    stages = int(knobs.get("stages", 0))
                    if ("shared memory" in str(e) and "stages" not in given
                            and stages > 2):
                        knobs["stages"] = str(stages - 1)
                        continue
                    # A variant the schedule refuses for this case (e.g.
                    # cluster = 2 with a tuned split_k) is left out.
                    if not variant:
                        raise
                    print(f"{name} {build}-{variant}: refused: "
                          f"{str(e).splitlines()[0][:200]}", flush=True)
                    break
            if kernel is None:
                continue
            if variant:
                build = f"{build}-{variant}"
            dest = out / name / build
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(kernel.directory, dest)
            print(f"{name} {build}: {pathlib.Path(kernel.schedule).name} "
                  f"{kernel.knobs} ({kernel.knob_source})", flush=True)


def run(args):
    from case_kernels import tessel_run
    root = pathlib.Path(args.dir)
    runs, best, times = [], {}, {}
    for r in range(args.rounds):
        for case in sorted(p for p in root.iterdir() if p.is_dir()):
            # Each round starts a case with another build: a build measured
            # first finds the GPU cooler (large kernels run into the power
            # limit within a case's runs).
            builds = sorted(p for p in case.iterdir() if p.is_dir())
            shift = r % len(builds)
            for build in builds[shift:] + builds[:shift]:
                launch = next(build.glob("*.launch.json"))
                ref = "auto" if r == 0 else "none"
                res = tessel_run(launch, ref, args.rep_ms, args.l2_flush)
                res.update(case=case.name, build=build.name, round=r)
                runs.append(res)
                key = (case.name, build.name)
                if r == 0:
                    best[key] = {"passed": res.get("passed"),
                                 "error": res.get("relative_error"),
                                 "ms": res.get("median_ms")}
                ms = res.get("median_ms")
                if ms:
                    times.setdefault(key, []).append(ms)
                if ms and (best[key]["ms"] is None or ms < best[key]["ms"]):
                    best[key]["ms"] = ms
                print(f"round {r} {case.name:40s} {build.name:8s} "
                      + (f"{ms:.4f} ms"
                         + (f" passed={res.get('passed')}" if r == 0 else "")
                         if ms else f"ERROR {res.get('error', '')[:200]}"),
                      flush=True)
    cases = {}
    for (case, build), b in best.items():
        ts = times.get((case, build))
        b["median_ms"] = statistics.median(ts) if ts else None
        cases.setdefault(case, {})[build] = b
    summary = {}

    def ratio(first, b, key):
        return first[key] / b[key] if b[key] and first[key] else None

    for case, builds in cases.items():
        first = builds[min(builds)] if args.first is None else builds[args.first]
        summary[case] = {
            build: dict(b, ratio=ratio(first, b, "ms"),
                        median_ratio=ratio(first, b, "median_ms"))
            for build, b in builds.items()}
    names = sorted({b for bs in cases.values() for b in bs})
    geo, geo_median = {}, {}
    for build in names:
        for key, out in (("ratio", geo), ("median_ratio", geo_median)):
            rs = [s[build][key] for s in summary.values()
                  if s.get(build, {}).get(key)]
            out[build] = (math.exp(sum(map(math.log, rs)) / len(rs))
                          if rs else None)
    print("geomean time ratio (best of rounds):", geo)
    print("geomean time ratio (median of rounds):", geo_median)
    pathlib.Path(args.out).write_text(json.dumps(
        {"summary": summary, "geomean": geo, "geomean_median": geo_median,
         "runs": runs}, indent=1) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare")
    pp.add_argument("dir")
    pp.add_argument("--build", action="append", required=True,
                    help="NAME=PATH[,SCHEDULE] of a tessel-opt, and of "
                    "the schedule library it applies (repeatable)")
    pp.add_argument("--variant", action="append", default=[],
                    help="NAME=KNOBS given over the chosen ones, e.g. "
                    "persistent=1 (repeatable; empty KNOBS: none)")
    pp.add_argument("--cases", help="a regular expression: only the cases "
                    "whose names it matches (default: all)")
    pp.add_argument("--shapes", help="MxNxK:dtype[:nk],...: relu(A x B) "
                    "cases of these shapes (with :nk Linear layers with a "
                    "bias and ReLU, the weight stored [n, k]) instead of "
                    "the built-in ones")
    pp.add_argument("--rule", action="store_true",
                    help="ignore the tuned records: each build's knob rule "
                    "picks (132 SMs), to compare rules")
    pr = sub.add_parser("run")
    pr.add_argument("dir")
    pr.add_argument("out")
    pr.add_argument("--rounds", type=int, default=3)
    pr.add_argument("--rep-ms", type=int, default=100)
    pr.add_argument("--l2-flush", default="write",
                    choices=("read", "write", "none"),
                    help="tessel-run's L2 flush before each repeat")
    pr.add_argument("--first", help="the build ratios are taken against "
                    "(default: the first by name)")
    args = p.parse_args()
    prepare(args) if args.cmd == "prepare" else run(args)


if __name__ == "__main__":
    main()
