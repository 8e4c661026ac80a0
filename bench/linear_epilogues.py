#!/usr/bin/env python3
"""Linear-layer workloads (bias, GELU, SiLU, the weight's layout) through
Tessel's schedules: compile on the CPU, check and time on the GPU.

  bench/linear_epilogues.py prepare DIR     # CPU: tessel-opt on PATH or TESSEL_HOME
  bench/linear_epilogues.py check DIR OUT   # GPU: tessel-run, CPU and GPU references
  bench/linear_epilogues.py race DIR OUT [KERNELS] [--cases RE] [--skip C,..] [--rounds N]
                                            # GPU: Tessel vs cuBLASLt's fused epilogue
                                            # (KERNELS: k, tuned, or "tuned,k": both
                                            # sets in one process; --cases: the raced
                                            # cases whose names match; --skip: contenders
                                            # left out, e.g. compile-max)
  bench/linear_epilogues.py variants DIR NAME=KNOBS...
                                            # CPU: each raced [n, k] case compiled again
                                            # with KNOBS (k=v,k=v, over the rule's) into
                                            # DIR/<case>/NAME, to race as a kernel set
  bench/linear_epilogues.py tune DIR DB [BUDGET]
                                            # GPU: tessel-tune the raced [n, k] cases
                                            # into DB, their winners into DIR/<case>/tuned
  bench/linear_epilogues.py mlp OUT         # GPU: an MLP of tessel.nn.Linear under torch.compile

`check` runs every kernel with tessel-run --json against the f64 reference
(CPU, GPU, or both for the small cases). `race` times the large cases
against `torch._addmm_activation(bias, x, W^T, use_gelu=...)` (cuBLASLt's
fused bias + ReLU / GELU-tanh epilogue), eager PyTorch and, for the weight
in PyTorch's layout, torch.compile(mode="max-autotune-no-cudagraphs") of
the same function, with triton.testing.do_bench (CUDA events, L2 flushed,
median), every output checked against an f64 reference first. The
contenders read the weight as Tessel's kernel does: W (n x k) through
W.t() for "nk", W^T stored (k x n) for "kn". `mlp` times Linear-GELU-Linear
with batch dimensions: eager PyTorch, its max-autotune compile, and the
same MLP of tessel.nn.Linear under torch.compile (graph breaks counted by
torch._dynamo.explain), outputs checked against f64.
"""

import json
import os
import pathlib
import re
import statistics
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))

from tessel import install  # noqa: E402

import case_kernels  # noqa: E402
from tessel.race import time_rounds  # noqa: E402
from tessel.workload import linear_ir  # noqa: E402

# Timing rounds of each race (bench/linear_epilogues.py race).
ROUNDS = 3

# name: (schedule, m, n, k, dtype, bias, activation, weight, references)
CASES = {
    "simt-f32-nk-bias-gelu_tanh-200x300x136":
        ("simt", 200, 300, 136, "f32", True, "gelu_tanh", "nk", ("cpu", "gpu")),
    "simt-f32-kn-silu-257x129x65":
        ("simt", 257, 129, 65, "f32", False, "silu", "kn", ("cpu", "gpu")),
    "simt-bf16-nk-bias-gelu-333x555x777":
        ("simt", 333, 555, 777, "bf16", True, "gelu", "nk", ("cpu", "gpu")),
    "simt-f32-nk-bias-relu-1024x1024x1024":
        ("simt", 1024, 1024, 1024, "f32", True, "relu", "nk", ("gpu",)),
    "mma-f16-kn-bias-gelu_tanh-200x300x136":
        ("mma", 200, 300, 136, "f16", True, "gelu_tanh", "kn", ("cpu", "gpu")),
    "mma-bf16-kn-silu-1024x1024x1024":
        ("mma", 1024, 1024, 1024, "bf16", False, "silu", "kn", ("gpu",)),
    "mma-f16-kn-bias-relu-1000x1000x1000":
        ("mma", 1000, 1000, 1000, "f16", True, "relu", "kn", ("gpu",)),
    "wgmma-f16-kn-bias-relu-200x300x136":
        ("wgmma", 200, 300, 136, "f16", True, "relu", "kn", ("cpu", "gpu")),
    "wgmma-bf16-kn-bias-gelu-1000x1000x1000":
        ("wgmma", 1000, 1000, 1000, "bf16", True, "gelu", "kn", ("gpu",)),
    "wgmma-bf16-kn-bias-gelu_tanh-777x333x555":
        ("wgmma", 777, 333, 555, "bf16", True, "gelu_tanh", "kn", ("cpu", "gpu")),
    # The shapes (tokens x in -> out), B stored [k, n].
    "wgmma-bf16-kn-bias-gelu_tanh-8192x4096x4096":
        ("wgmma", 8192, 4096, 4096, "bf16", True, "gelu_tanh", "kn", ("gpu",)),
    "wgmma-bf16-kn-bias-relu-8192x4096x4096":
        ("wgmma", 8192, 4096, 4096, "bf16", True, "relu", "kn", ("gpu",)),
    "wgmma-f16-kn-bias-relu-4096x14336x4096":
        ("wgmma", 4096, 14336, 4096, "f16", True, "relu", "kn", ("gpu",)),
    "wgmma-f16-kn-bias-gelu_tanh-4096x14336x4096":
        ("wgmma", 4096, 14336, 4096, "f16", True, "gelu_tanh", "kn", ("gpu",)),
    "wgmma-f16-kn-relu-4096x4096x4096":
        ("wgmma", 4096, 4096, 4096, "f16", False, "relu", "kn", ("gpu",)),
    # The weight stored [n, k] (PyTorch's layout): K-major B.
    "wgmma-f16-nk-bias-relu-200x300x136":
        ("wgmma", 200, 300, 136, "f16", True, "relu", "nk", ("cpu", "gpu")),
    "wgmma-bf16-nk-bias-gelu_tanh-777x333x555":
        ("wgmma", 777, 333, 555, "bf16", True, "gelu_tanh", "nk", ("cpu", "gpu")),
    "wgmma-f16-nk-bias-silu-1000x1000x1000":
        ("wgmma", 1000, 1000, 1000, "f16", True, "silu", "nk", ("gpu",)),
    "wgmma-bf16-nk-bias-gelu-513x1030x2001":
        ("wgmma", 513, 1030, 2001, "bf16", True, "gelu", "nk", ("gpu",)),
    "wgmma-f16-nk-bias-relu-300x600x1001":
        ("wgmma", 300, 600, 1001, "f16", True, "relu", "nk", ("cpu", "gpu")),
    "mma-f16-nk-bias-gelu_tanh-200x300x136":
        ("mma", 200, 300, 136, "f16", True, "gelu_tanh", "nk", ("cpu", "gpu")),
    "mma-bf16-nk-bias-relu-777x333x555":
        ("mma", 777, 333, 555, "bf16", True, "relu", "nk", ("cpu", "gpu")),
    "mma-f16-nk-silu-1024x1024x1024":
        ("mma", 1024, 1024, 1024, "f16", False, "silu", "nk", ("gpu",)),
    "wgmma-bf16-nk-bias-gelu_tanh-8192x4096x4096":
        ("wgmma", 8192, 4096, 4096, "bf16", True, "gelu_tanh", "nk", ("gpu",)),
    "wgmma-bf16-nk-bias-relu-8192x4096x4096":
        ("wgmma", 8192, 4096, 4096, "bf16", True, "relu", "nk", ("gpu",)),
    "wgmma-f16-nk-bias-relu-4096x14336x4096":
        ("wgmma", 4096, 14336, 4096, "f16", True, "relu", "nk", ("gpu",)),
    "wgmma-f16-nk-bias-gelu_tanh-4096x14336x4096":
        ("wgmma", 4096, 14336, 4096, "f16", True, "gelu_tanh", "nk", ("gpu",)),
    "wgmma-f16-nk-relu-4096x4096x4096":
        ("wgmma", 4096, 4096, 4096, "f16", False, "relu", "nk", ("gpu",)),
}
RACED = [name for name, c in CASES.items() if c[1] * c[2] * c[3] >= 2**36]


def prepare(directory):
    case_kernels.prepare(directory, (
        (name, schedule,
         linear_ir(m, n, k, dtype, bias=bias, activation=act, weight=weight))
        for name, (schedule, m, n, k, dtype, bias, act, weight, _)
        in CASES.items()))


def check(directory, out):
    case_kernels.check(directory, out,
                       ((name, case[-1]) for name, case in CASES.items()),
                       "linear", 48)


def compile_raced_nk(directory, kernels, first_pass):
    """Runs tessel-opt on each raced case with the weight [n, k]:
    first_pass(schedule path) (the pass that chooses the knobs), then the
    lowering, exporting the kernels into DIR/<case>/`kernels`; returns
    [(case, CompletedProcess)]."""
    tessel_opt = install.tool("tessel-opt")
    schedules = install.schedules_dir()
    done = []
    for name in RACED:
        schedule, *_, weight, _ = CASES[name]
        if weight != "nk":
            continue
        d = pathlib.Path(directory) / name
        done.append((name, subprocess.run(
            [str(tessel_opt), str(d / "in.mlir"),
             first_pass(f"{schedules}/matmul_relu_{schedule}.mlir"),
             "--tessel-lower-to-ptx=chip=sm_90a",
             f"--tessel-export-kernels=dir={d / kernels}", "-o", os.devnull],
            capture_output=True, text=True)))
    return done


def tune(directory, db, budget="24"):
    """Tunes each raced case with the weight [n, k] (wgmma's knobs, the
    evolutionary search, `budget` candidates, every one checked against
    f64) into the database `db`, and exports the winner's kernels into
    DIR/<case>/tuned (race DIR OUT tuned races them)."""
    for name, p in compile_raced_nk(
            directory, "tuned",
            lambda schedule: f"--tessel-tune=schedule={schedule} "
                             f"strategy=evolutionary budget={int(budget)} "
                             f"seed=1 db={db} chip=sm_90a"):
        lines = (p.stdout + p.stderr).strip().splitlines()
        print(name, "rc", p.returncode, *(lines[-3:] if lines else []),
              sep="\n  ", flush=True)


def variants(directory, *points):
    """Compiles each raced case with the weight [n, k] once per point
    NAME=KNOBS (knob=value pairs separated by commas, given over the rule's
    picks) into DIR/<case>/NAME: kernel sets for `race DIR OUT k,NAME,...`.
    A point the schedule refuses for a case is reported and skipped."""
    for point in points:
        set_name, _, knobs = point.partition("=")
        for name, p in compile_raced_nk(
                directory, set_name,
                lambda schedule: f"--tessel-apply-schedule=schedule="
                                 f"{schedule} defaults=rule knobs={knobs}"):
            errors = [line for line in p.stderr.splitlines()
                      if "error:" in line]
            print(name, set_name, "ok" if p.returncode == 0 else
                  "refused: " + (errors or ["exit %d" % p.returncode])[0],
                  flush=True)


def spec_knobs(d):
    """The knob values a launch file records."""
    spec = json.loads((d / "linear.launch.json").read_text())
    return spec.get("schedule", {}).get("knobs")


def race(directory, out, kernels="k", *options):
    import torch
    from triton.testing import do_bench
    from tessel import runtime

    device = runtime.Device.get(0)
    torch_dtype = {"f16": torch.float16, "bf16": torch.bfloat16,
                   "f32": torch.float32}
    opts = dict(zip(options[::2], options[1::2]))
    case_re = re.compile(opts.get("--cases", ""))
    skip = set(filter(None, opts.get("--skip", "").split(",")))
    rounds = int(opts.get("--rounds", ROUNDS))
    rows = []
    # "tuned,k": the first set is "tessel"; each other set races as
    # "tessel-<set>" in the same process, not counted among the others.
    sets = kernels.split(",")
    for name in RACED:
        if not case_re.search(name):
            continue
        _, m, n, k, dtype, bias, act, weight, _ = CASES[name]
        d = pathlib.Path(directory) / name / sets[0]
        if not (d / "linear.launch.json").is_file():
            continue
        spec = runtime.FunctionSpec(d / "linear.launch.json")
        fn = runtime.Function(device, spec)
        more = {s: pathlib.Path(directory) / name / s for s in sets[1:]
                if (pathlib.Path(directory) / name / s
                    / "linear.launch.json").is_file()}
        dt = torch_dtype[dtype]
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(m, k, device="cuda", dtype=dt, generator=g)
        w = torch.randn(n, k, device="cuda", dtype=dt, generator=g) / k**0.5
        # What the contenders multiply by: W.t() (a view) for the weight
        # in PyTorch's layout, W^T stored for "kn".
        wt = w.t() if weight == "nk" else w.t().contiguous()
        b = torch.randn(n, device="cuda", dtype=dt, generator=g)
        y = torch.empty(m, n, device="cuda", dtype=dt)
        args = [x, w if weight == "nk" else wt] + ([b] if bias else []) + [y]
        stream = torch.cuda.current_stream().cuda_stream
        ptrs = [t.data_ptr() for t in args]

        def tessel_fn():
            fn.launch(ptrs, stream)

        zero = torch.zeros(n, device="cuda", dtype=dt)
        bb = b if bias else zero
        gelu = act == "gelu_tanh"

        def act_fn(v):
            return (torch.nn.functional.gelu(v, approximate="tanh") if gelu
                    else torch.relu(v))

        contenders = {"tessel": (tessel_fn, lambda: y)}
        for s_name, s_dir in more.items():
            s_fn = runtime.Function(device, runtime.FunctionSpec(
                s_dir / "linear.launch.json"))
            s_y = torch.empty(m, n, device="cuda", dtype=dt)
            s_ptrs = ptrs[:-1] + [s_y.data_ptr()]
            contenders[f"tessel-{s_name}"] = (
                lambda s_fn=s_fn, s_ptrs=s_ptrs: s_fn.launch(s_ptrs, stream),
                lambda s_y=s_y: s_y)
        if act in ("relu", "gelu_tanh") and "cublaslt" not in skip:
            contenders["cublaslt"] = (
                lambda: torch._addmm_activation(bb, x, wt, use_gelu=gelu), None)
        if "eager" not in skip:
            contenders["eager"] = (lambda: act_fn(torch.addmm(bb, x, wt)),
                                   None)
        if (weight == "nk" and act in ("relu", "gelu_tanh")
                and "compile-max" not in skip):
            torch._dynamo.reset()
            compiled = torch.compile(
                lambda x, w, b: act_fn(torch.nn.functional.linear(x, w, b)),
                mode="max-autotune-no-cudagraphs")
            contenders["compile-max"] = (lambda: compiled(x, w, bb), None)
        ref = act_fn(torch.addmm(bb.double(), x.double(), wt.double()))
        row = {"case": name, "knobs": spec_knobs(d),
               **{f"knobs-{s_name}": spec_knobs(s_dir)
                  for s_name, s_dir in more.items()},
               "m": m, "n": n, "k": k, "dtype": dtype,
               "bias": bias, "activation": act, "weight_stored": weight}
        for cname, (f, result) in contenders.items():
            r = f()
            torch.cuda.synchronize()
            outv = result() if result else r
            err = ((outv.double() - ref).norm() / ref.norm()).item()
            row[cname] = {"rel_error": err, "passed": err <= 1e-2}
        # Each contender timed in `rounds` rounds, each round started by
        # another (a kernel timed first runs faster below the power limit);
        # its time is the median of its rounds.
        times = time_rounds({c: f for c, (f, _) in contenders.items()},
                            rounds, lambda f: do_bench(f, warmup=50, rep=200))
        for cname, ts in times.items():
            if isinstance(ts, Exception):
                raise ts  # A contender that cannot be timed stops the race.
            ms = statistics.median(ts)
            row[cname].update(ms=ms, rounds_ms=ts,
                              tflops=2 * m * n * k / ms / 1e9)
        best = max((row[c]["tflops"] for c in contenders
                    if not c.startswith("tessel") and row[c]["passed"]),
                   default=0)
        row["tessel_vs_best"] = row["tessel"]["tflops"] / best if best else None
        for c in ("cublaslt", "compile-max", *(f"tessel-{x}" for x in more)):
            if c in row:
                row[f"tessel_vs_{c}"] = (row["tessel"]["tflops"]
                                         / row[c]["tflops"])
        rows.append(row)
        print(json.dumps(row), flush=True)
    report = {"device": torch.cuda.get_device_name(0),
              "torch": torch.__version__,
              "method": "triton.testing.do_bench median (warmup 50 ms, rep "
                        f"200 ms, L2 flushed), in {rounds} rounds that each "
                        "start with another contender, the median of the "
                        "rounds; outputs checked against f64 (relative "
                        "Frobenius error <= 1e-2)",
              "knobs": ("defaults=rule (no tuned record of these workloads)"
                        if kernels == "k" else
                        f"the winners of `tune` ({kernels}/)"),
              "knob_values": {r["case"]: r.get("knobs") for r in rows},
              "rows": rows}
    pathlib.Path(out).write_text(json.dumps(report, indent=1) + "\n")


def mlp(out, tokens="4x2048", d_model="4096", hidden="16384", dtype="bf16"):
    """Linear-GELU(tanh)-Linear on x (batch..., d_model): eager PyTorch,
    torch.compile max-autotune of it, and the same layers as
    tessel.nn.Linear (GELU fused into the first) eager and under
    torch.compile (0 graph breaks expected)."""
    import torch
    from triton.testing import do_bench
    import tessel
    import tessel.nn

    batch = [int(v) for v in tokens.split("x")]
    d, h = int(d_model), int(hidden)
    dt = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    torch.manual_seed(0)
    fc1 = torch.nn.Linear(d, h, device="cuda", dtype=dt)
    fc2 = torch.nn.Linear(h, d, device="cuda", dtype=dt)
    gelu = torch.nn.GELU(approximate="tanh")
    eager = torch.nn.Sequential(fc1, gelu, fc2).eval()
    ours = torch.nn.Sequential(
        tessel.nn.Linear.from_torch(fc1, activation="gelu_tanh"),
        tessel.nn.Linear.from_torch(fc2)).eval()
    x = torch.randn(*batch, d, device="cuda", dtype=dt)
    flops = 2 * 2 * x.numel() // d * d * h
    rows = {}
    with torch.no_grad():
        F = torch.nn.functional
        ref = F.linear(
            gelu(F.linear(x.double(), fc1.weight.double(), fc1.bias.double())),
            fc2.weight.double(), fc2.bias.double())
        explained = torch._dynamo.explain(ours)(x)
        torch._dynamo.reset()
        variants = {
            "eager": eager,
            "compile-max": torch.compile(eager,
                                         mode="max-autotune-no-cudagraphs"),
            "tessel-eager": ours,
            "tessel-compiled": torch.compile(ours, fullgraph=True),
        }
        for name, fn in variants.items():
            y = fn(x)
            torch.cuda.synchronize()
            err = ((y.double() - ref).norm() / ref.norm()).item()
            ms = do_bench(lambda: fn(x), warmup=50, rep=200)
            rows[name] = {"ms": ms, "tflops": flops / ms / 1e9,
                          "rel_error": err, "passed": err <= 2e-2}
            print(name, json.dumps(rows[name]), flush=True)
    report = {"device": torch.cuda.get_device_name(0),
              "torch": torch.__version__,
              "mlp": f"x {tuple(x.shape)} {dtype}: Linear({d}, {h}) - "
                     f"GELU(tanh) - Linear({h}, {d})",
              "graph_breaks": explained.graph_break_count,
              "graphs": explained.graph_count,
              "method": "triton.testing.do_bench median (warmup 50 ms, rep "
                        "200 ms, L2 flushed); outputs against the MLP in f64",
              "rows": rows}
    pathlib.Path(out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    {"prepare": prepare, "check": check, "race": race, "tune": tune,
     "variants": variants, "mlp": mlp}[command](*rest)
