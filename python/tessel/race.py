"""Races Tessel's tuned matmul+ReLU against cuBLAS, Triton and torch.compile
on one GPU, in one process, on the same inputs.

    tessel race --out bench/results/race            # ANCHORS.md shapes
    tessel race --dtypes f16 --shapes 4096x4096x4096 --out /tmp/r
    tessel race --replot r-f16.json r-f32.json --out race   # no GPU

(`python3 -m tessel race`, or bench/race.py in a checkout, are the same.)

For each shape and dtype, contenders compute C = relu(A @ B) (A MxK, B KxN,
row-major, output in the input dtype, f32 accumulation):
  tessel         tessel.matmul_relu's kernel: the schedule's knobs tuned for
                 this GPU when a tuning database has them (JSON says which)
  tessel-rule    the same without tuning databases: the knobs the rule picks
                 for the shape (docs/knob-rule.md); not raced by default
  tessel-shipped the same with only the records shipped with the schedules
                 (schedules/tuned/), not the user's database: a new tuning
                 against the shipped one; not raced by default
  cublas+relu    torch.relu(a @ b): cuBLAS, then an elementwise kernel
  cublaslt       cuBLASLt's matmul with its fused ReLU epilogue
                 (torch._addmm_activation(zero_bias, a, b)), the strongest
                 contender in ../shared/ANCHORS.md
  triton         a Triton matmul with the ReLU fused, autotuned over 10 configs
  torch.compile  torch.compile(mode="max-autotune-no-cudagraphs") of the same
Every output is checked against an f64 reference (relative Frobenius error
<= 1e-2 for f16/bf16, 1e-5 for f32) before its time counts. Times are
triton.testing.do_bench medians (CUDA events, 50 ms warm-up, 200 ms of
repeats, L2 flushed before each), the method of ../shared/ANCHORS.md,
taken in --rounds rounds (default 3) that each start with another
contender, and a contender's time is the median of its rounds: timed
first, a large kernel finds the GPU below its power limit (8192^3 ran up
to 10% faster first than second).
f32 runs in strict FP32 for everyone (no TF32: cuBLAS, Triton's tl.dot and
torch.compile alike). Writes race.json (every measurement, status and error)
and race.png, and prints a Markdown table.
"""

import argparse
import datetime
import json
import math
import pathlib
import statistics
import sys
import time
import traceback

from . import install
from .workload import anchor_shapes

CONTENDERS = ["tessel", "cublas+relu", "cublaslt", "triton", "torch.compile"]
# Raced when asked for (--contenders), in this order.
KNOWN = ["tessel", "tessel-rule", "tessel-shipped"] + CONTENDERS[1:]
TOLERANCE = {"f16": 1e-2, "bf16": 1e-2, "f32": 1e-5}
COLORS = {"tessel": "#d62728", "tessel-rule": "#ff9896", "tessel-shipped": "#e377c2",
          "cublas+relu": "#1f77b4", "cublaslt": "#17becf",
          "triton": "#2ca02c",
          "torch.compile": "#9467bd"}


def shape_label(m, n, k):
    return f"{m}³" if m == n == k else f"{m}x{n}x{k}"


# --------------------------------------------------------------------------
# Contenders
# --------------------------------------------------------------------------

def make_triton_kernel():
    import triton
    import triton.language as tl

    configs = [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": 8},
                             num_stages=s, num_warps=w)
               for bm, bn, bk, s, w in [
                   (128, 256, 64, 3, 8), (256, 128, 64, 3, 8),
                   (64, 256, 32, 4, 4), (128, 128, 64, 4, 8),
                   (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                   (64, 128, 32, 4, 4), (128, 32, 32, 4, 4),
                   (64, 32, 32, 5, 2), (32, 64, 32, 5, 2)]]

    @triton.autotune(configs=configs, key=["M", "N", "K", "IEEE"])
    @triton.jit
    def matmul_relu_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                           stride_am, stride_ak, stride_bk, stride_bn,
                           stride_cm, stride_cn, IEEE: tl.constexpr,
                           BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr, GROUP: tl.constexpr):
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BM)
        num_n = tl.cdiv(N, BN)
        group = GROUP * num_n
        first_m = (pid // group) * GROUP
        size_m = min(num_m - first_m, GROUP)
        pid_m = first_m + ((pid % group) % size_m)
        pid_n = (pid % group) // size_m
        offs_m = (pid_m * BM + tl.arange(0, BM)) % M
        offs_n = (pid_n * BN + tl.arange(0, BN)) % N
        offs_k = tl.arange(0, BK)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - kk * BK, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - kk * BK, other=0.0)
            if IEEE:
                acc = tl.dot(a, b, acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b, acc)
            a_ptrs += BK * stride_ak
            b_ptrs += BK * stride_bk
        c = tl.maximum(acc, 0.0).to(c_ptr.dtype.element_ty)
        rows = pid_m * BM + tl.arange(0, BM)
        cols = pid_n * BN + tl.arange(0, BN)
        c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
        tl.store(c_ptrs, c, mask=(rows[:, None] < M) & (cols[None, :] < N))

    def run(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
        matmul_relu_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                                 b.stride(0), b.stride(1), c.stride(0),
                                 c.stride(1), IEEE=str(a.dtype) == "torch.float32")
        return c

    run.kernel = matmul_relu_kernel
    return run


def contender_fns(name, a, b, dtype, torch, triton_run):
    """(setup description, fn) for one contender on a and b (of `dtype`:
    "f16", ...); fn returns C."""
    m, n = a.shape[0], b.shape[1]
    if name in ("tessel", "tessel-rule", "tessel-shipped"):
        from .ops import get_kernel
        databases = (None if name == "tessel" else [] if name == "tessel-rule"
                     else sorted((install.schedules_dir() / "tuned")
                                 .glob("*.json")))
        kernel = get_kernel(m, n, a.shape[1], dtype, a.device.index or 0,
                            databases=databases)
        out = torch.empty(m, n, dtype=a.dtype, device=a.device)
        home = install.home()
        source = kernel.compiled.source
        info = {"knobs": kernel.compiled.knobs, "knob_source":
                source.replace(f"{home}/", "") if home else source,
                "schedule": pathlib.Path(kernel.compiled.schedule).name}

        def fn():
            kernel(a, b, out)
            return out
        return info, fn
    if name == "cublas+relu":
        return {}, lambda: torch.relu(a @ b)
    if name == "cublaslt":
        # ReLU in cuBLASLt's epilogue; the bias is zero (one row, broadcast).
        zero = torch.zeros(n, dtype=a.dtype, device=a.device)
        return {}, lambda: torch._addmm_activation(zero, a, b, use_gelu=False)
    if name == "triton":
        out = torch.empty(m, n, dtype=a.dtype, device=a.device)
        fn = lambda: triton_run(a, b, out)
        fn()  # Autotunes (benchmarks every config) on first call.
        return {"config": str(triton_run.kernel.best_config)}, fn
    if name == "torch.compile":
        compiled = torch.compile(lambda x, y: torch.relu(x @ y),
                                 mode="max-autotune-no-cudagraphs",
                                 dynamic=False)
        compiled(a, b)  # Compiles and autotunes.
        return {}, lambda: compiled(a, b)
    raise ValueError(name)


def race_one(m, n, k, dtype, contenders, args, torch, triton_run, do_bench):
    tdtype = {"f16": torch.float16, "bf16": torch.bfloat16,
              "f32": torch.float32}[dtype]
    g = torch.Generator(device="cuda").manual_seed(args.seed)
    a = torch.randn(m, k, device="cuda", dtype=tdtype, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=tdtype, generator=g)
    ref = torch.relu(a.double() @ b.double())
    ref_norm = ref.norm().item()
    flop = 2.0 * m * n * k
    row = {"m": m, "n": n, "k": k, "dtype": dtype, "results": {}}
    # Phase 1: compile/autotune every contender and check its output.
    # Timing waits until all are ready, so that no compile work (e.g.
    # Inductor's worker pool starting) competes with a measurement.
    ready = {}
    for name in contenders:
        res = row["results"][name] = {"status": "ok"}
        t0 = time.perf_counter()
        try:
            info, fn = contender_fns(name, a, b, dtype, torch, triton_run)
            res.update(info)
            res["setup_s"] = round(time.perf_counter() - t0, 2)
            out = fn()
            torch.cuda.synchronize()
            nan = int(torch.isnan(out).sum().item())
            err = ((out.double() - ref).norm().item() / ref_norm)
            res["rel_error"] = err
            if nan or not math.isfinite(err) or err > TOLERANCE[dtype]:
                res["status"] = "wrong-output"
                res["nan_count"] = nan
            else:
                ready[name] = fn
        except Exception as e:  # A contender's failure is a result.
            res["status"] = "error"
            res["error"] = f"{type(e).__name__}: {e}"[:2000]
            traceback.print_exc()
    # Phase 2: time the correct ones.
    torch.cuda.synchronize()
    time.sleep(args.settle_s)
    timed = time_rounds(
        ready, args.rounds,
        lambda fn: do_bench(fn, warmup=args.warmup_ms, rep=args.rep_ms,
                            return_mode="median"))
    for name in contenders:
        res = row["results"][name]
        if name in timed:
            times = timed[name]
            if isinstance(times, Exception):
                res["status"] = "error"
                res["error"] = f"{type(times).__name__}: {times}"[:2000]
            else:
                res["round_ms"] = times
                res["ms"] = ms = statistics.median(times)
                res["tflops"] = flop / (ms * 1e-3) / 1e12
        shown = f"{res['tflops']:7.1f} TFLOP/s" if "tflops" in res else res["status"]
        print(f"  {dtype} {shape_label(m, n, k):>15} {name:>14}: {shown}",
              file=sys.stderr, flush=True)
    score(row)
    return row


def time_rounds(ready, rounds, bench):
    """Times each of `ready` (name -> function, in racing order) `rounds`
    times with `bench` (function -> ms), round r starting with its r-th
    contender (then the next, wrapping around): a large kernel timed first
    finds the GPU below its power limit and runs several percent faster
    than later in the round, so every contender takes that place in turn.
    Returns name -> the list of its times, or the exception that stopped
    it (it is not timed again)."""
    names = list(ready)
    out = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names) if names else 0
        for name in names[shift:] + names[:shift]:
            if isinstance(out[name], Exception):
                continue
            try:
                out[name].append(bench(ready[name]))
            except Exception as e:  # A contender's failure is a result.
                out[name] = e
    return out


def score(row):
    """Adds best_other and Tessel's ratio to it (None when missing)."""
    res = row["results"]
    others = {n: r["tflops"] for n, r in res.items()
              if not n.startswith("tessel") and "tflops" in r}
    row["best_other"] = max(others, key=others.get) if others else None
    t = res.get("tessel", {}).get("tflops")
    row["ratio"] = t / others[row["best_other"]] if t and others else None


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def table(report):
    names = [c for c in KNOWN if any(c in r["results"] for r in report["rows"])]
    lines = ["| dtype | M | N | K | " + " | ".join(names) +
             " | Tessel / best other | Tessel's knobs |",
             "|---" * (len(names) + 6) + "|"]
    for r in report["rows"]:
        cells = []
        for name in names:
            res = r["results"].get(name, {})
            cells.append(f"{res['tflops']:.1f}" if "tflops" in res
                         else res.get("status", "-"))
        ratio = f"**{r['ratio']:.2f}** ({r['best_other']})" if r["ratio"] else "-"
        src = r["results"].get("tessel", {}).get("knob_source", "-")
        src = "tuned" if src.startswith("tuned") else src
        lines.append(f"| {r['dtype']} | {r['m']} | {r['n']} | {r['k']} | " +
                     " | ".join(cells) + f" | {ratio} | {src} |")
    ratios = [r["ratio"] for r in report["rows"] if r["ratio"]]
    if ratios:
        geo = math.exp(statistics.fmean(math.log(x) for x in ratios))
        lines.append(f"\nTFLOP/s (2·M·N·K / median time). Geometric mean of "
                     f"Tessel / best other: **{geo:.3f}** over {len(ratios)} rows.")
    return "\n".join(lines)


def plot(report, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dtypes = [d for d in ("f16", "bf16", "f32")
              if any(r["dtype"] == d for r in report["rows"])]
    names = [c for c in KNOWN if any(c in r["results"] for r in report["rows"])]
    widths = [sum(r["dtype"] == d for r in report["rows"]) for d in dtypes]
    fig, axes = plt.subplots(
        2, len(dtypes), figsize=(2.5 + 1.2 * sum(widths), 7.5),
        gridspec_kw={"height_ratios": [3, 1.4], "width_ratios": widths},
        squeeze=False)
    bar = 0.8 / len(names)
    for col, dtype in enumerate(dtypes):
        rows = [r for r in report["rows"] if r["dtype"] == dtype]
        labels = [shape_label(r["m"], r["n"], r["k"]) for r in rows]
        top, bottom = axes[0][col], axes[1][col]
        for i, name in enumerate(names):
            xs = [j + (i - (len(names) - 1) / 2) * bar for j in range(len(rows))]
            ys = [r["results"].get(name, {}).get("tflops", 0) for r in rows]
            top.bar(xs, ys, bar, label=name if col == 0 else None,
                    color=COLORS[name], edgecolor="black" if name == "tessel" else "none",
                    linewidth=0.8)
            for x, y, r in zip(xs, ys, rows):
                if name in r["results"] and not y:
                    top.text(x, 0, "✗", ha="center", va="bottom", color=COLORS[name])
        top.set_title(f"{dtype}{' (strict FP32, no TF32)' if dtype == 'f32' else ''}",
                      fontsize=11)
        top.set_xticks(range(len(rows)))
        top.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        top.grid(axis="y", alpha=0.3)
        if col == 0:
            top.set_ylabel("TFLOP/s (higher is better)")
        ratios = [r["ratio"] or 0 for r in rows]
        bottom.bar(range(len(rows)), ratios, 0.6, color=COLORS["tessel"],
                   edgecolor="black", linewidth=0.8)
        bottom.axhline(1.0, color="black", linewidth=1)
        for j, x in enumerate(ratios):
            bottom.text(j, x + 0.03, f"{x:.2f}" if x else "n/a", ha="center",
                        va="bottom", fontsize=8)
        bottom.set_ylim(0, max(1.25, max(ratios) + 0.25))
        bottom.set_xticks(range(len(rows)))
        bottom.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        bottom.grid(axis="y", alpha=0.3)
        if col == 0:
            bottom.set_ylabel("Tessel ÷ best other")
    ratios = [r["ratio"] for r in report["rows"] if r["ratio"]]
    geo = math.exp(statistics.fmean(math.log(x) for x in ratios)) if ratios else 0
    fig.suptitle(f"matmul + ReLU on {report['device']}: Tessel vs cuBLAS, Triton "
                 f"and torch.compile\n(median of CUDA-event timings, L2 flushed, "
                 f"outputs checked; geometric mean of Tessel ÷ best other: "
                 f"{geo:.2f})", fontsize=12)
    fig.legend(loc="upper right", ncol=len(names), fontsize=9,
               bbox_to_anchor=(0.99, 0.905))
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(report, out):
    out.parent.mkdir(parents=True, exist_ok=True)
    json_path, png_path = out.with_suffix(".json"), out.with_suffix(".png")
    json_path.write_text(json.dumps(report, indent=1) + "\n")
    print(table(report))
    try:
        plot(report, png_path)
        print(f"\nwrote {json_path} and {png_path}", file=sys.stderr)
    except ImportError:
        print(f"\nwrote {json_path}; no matplotlib here: make the plot with "
              f"--replot {json_path}", file=sys.stderr)


# --------------------------------------------------------------------------

def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        parts = item.lower().split("x")
        if len(parts) == 1:
            parts *= 3
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise argparse.ArgumentTypeError(f"bad shape '{item}': want MxNxK or N")
        shapes.append(tuple(int(p) for p in parts))
    return shapes


def main(argv=None, prog=None):
    p = argparse.ArgumentParser(prog=prog,
                                description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--dtypes", default="f16,f32",
                   help="comma-separated: f16, bf16, f32 (default: f16,f32)")
    p.add_argument("--shapes", type=parse_shapes,
                   help="MxNxK,... (default: ANCHORS.md's shapes of each dtype; "
                        "bf16 takes f16's)")
    p.add_argument("--contenders", default=",".join(CONTENDERS))
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("race"),
                   help="writes OUT.json and OUT.png")
    p.add_argument("--warmup-ms", type=float, default=50)
    p.add_argument("--rep-ms", type=float, default=200)
    p.add_argument("--rounds", type=int, default=3,
                   help="times each contender this many times, in turns that "
                        "start with each contender in rotation; its time is "
                        "the median of its rounds (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--settle-s", type=float, default=2.0,
                   help="pause between compiling and timing a shape")
    p.add_argument("--replot", nargs="+", type=pathlib.Path, metavar="JSON",
                   help="merge recorded results (a later file's row replaces "
                        "an earlier one of the same shape and dtype) and "
                        "redraw; no GPU needed")
    args = p.parse_args(argv)
    out = args.out.with_suffix("") if args.out.suffix in (".json", ".png") else args.out

    if args.replot:
        reports = [json.loads(f.read_text()) for f in args.replot]
        merged = dict(reports[0])
        # A later file's row replaces an earlier one of the same problem.
        rows = {}
        for rep in reports:
            for r in rep["rows"]:
                rows[(r["dtype"], r["m"], r["n"], r["k"])] = r
        merged["rows"] = list(rows.values())
        merged["runs"] = [{k: v for k, v in rep.items() if k != "rows"}
                          for rep in reports]
        for r in merged["rows"]:
            score(r)
        write_report(merged, out)
        return 0

    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    for d in dtypes:
        if d not in TOLERANCE:
            p.error(f"unknown dtype '{d}' (f16, bf16, f32)")
    if args.rounds < 1:
        p.error(f"--rounds {args.rounds}: at least 1")
    contenders = [c.strip() for c in args.contenders.split(",")]
    for c in contenders:
        if c not in KNOWN:
            p.error(f"unknown contender '{c}' ({', '.join(KNOWN)})")
    try:
        import torch
        import triton
        from triton.testing import do_bench
    except ImportError as e:
        p.exit(1, f"{p.prog}: needs PyTorch and Triton with a CUDA GPU: "
                  f"{e}\n")
    if not torch.cuda.is_available():
        p.exit(1, f"{p.prog}: no CUDA GPU visible to PyTorch\n")
    torch.backends.cuda.matmul.allow_tf32 = False  # f32 is strict FP32.
    torch.backends.cudnn.allow_tf32 = False
    from . import __version__

    report = {
        "tool": "tessel race", "command": " ".join(sys.argv),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__, "triton": triton.__version__,
        "cuda": torch.version.cuda, "tessel": __version__,
        "method": "triton.testing.do_bench median, warmup %g ms, rep %g ms, L2 "
                  "flushed, in %d rounds that start with each contender in "
                  "turn (the median of the rounds); outputs checked against "
                  "f64 (rel. Frobenius error <= %s)"
                  % (args.warmup_ms, args.rep_ms, args.rounds, TOLERANCE),
        "rows": [],
    }
    triton_run = make_triton_kernel() if "triton" in contenders else None
    for dtype in dtypes:
        shapes = args.shapes or anchor_shapes(dtype)
        for m, n, k in shapes:
            report["rows"].append(race_one(m, n, k, dtype, contenders, args,
                                           torch, triton_run, do_bench))
            # Partial results survive a timeout.
            out.parent.mkdir(parents=True, exist_ok=True)
            out.with_suffix(".json").write_text(json.dumps(report, indent=1))
    write_report(report, out)
    return 0
