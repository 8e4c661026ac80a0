#!/usr/bin/env python3
"""Times variants of one kernel against each other, in one process, on the
same inputs: each variant is a schedule and/or knobs for a shape. Every
output is poisoned with NaN first and checked against a float64 reference
before its time counts; each time is the median of the do_bench medians of
--rounds interleaved rounds (3), each round starting one variant later
(rotated order), after the case's first kernel has run for about 100 ms.
(With two rounds in a fixed order and the lower of the two kept, the
first variant of a case ran up to 10% faster than the same kernel timed
last, on an H200 on kernels of 150 us or more: it alone ran on a GPU not
yet hot. bench/results/hopper-v2, "Stream-K".)

    python3 bench/compare_variants.py --cases cases.json --out OUT.json [--rounds N]

cases.json is a list of cases:

    [{"m": 2000, "n": 3000, "k": 1500, "dtype": "f16",
      "variants": {"old": {"knobs": "tile_m=128,tile_n=128,stages=4,group_m=8"},
                   "new": {"knobs": "tile_m=128,tile_n=192,stages=4,group_m=8",
                           "schedule": "schedules/matmul_relu_wgmma.mlir"}}}]

A case with "weight": "nk" is a Linear layer with ReLU, its weight stored
[n, k] (K-major B; tessel.compile_linear), and no bias unless the case
has "bias": true (cuBLASLt then adds the same bias). A variant without
"knobs" takes the rule's (no tuning records are read).
A variant {"contender": "cublaslt"} times cuBLASLt's fused ReLU
(`torch._addmm_activation(zero_bias, a, b)`) on the same inputs, checked
like the others.
The output lists each case's variants (knobs applied, launches, ms,
TFLOP/s, error) and the time ratio of each variant to the first one
(first time / variant time: above 1 is faster).
"""

import argparse
import concurrent.futures
import datetime
import json
import math
import os
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))
from any_shape import bench_ms, check  # noqa: E402


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()

    import torch
    import triton
    import tessel
    from tessel import runtime

    torch.backends.cuda.matmul.allow_tf32 = False
    warnings.simplefilter("ignore", tessel.TesselWarning)
    device = runtime.Device.get(0)
    cases = json.loads(pathlib.Path(args.cases).read_text())
    tdts = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

    def compile_variant(case, v):
        schedule = v.get("schedule")
        options = dict(
            schedule=str(ROOT / schedule) if schedule else None,
            knobs=v.get("knobs"), databases=[], device=device.key,
            chip=device.chip, sm_count=device.sm_count)
        m, n, k, dtype = case["m"], case["n"], case["k"], case["dtype"]
        if case.get("weight", "kn") == "nk":
            return tessel.compile_linear(m, n, k, dtype,
                                         bias=bool(case.get("bias")),
                                         activation="relu", weight="nk",
                                         **options)
        return tessel.compile_matmul_relu(m, n, k, dtype, **options)

    # Every kernel is compiled first, on all the host's cores (tessel-opt
    # runs in a process of its own), then loaded, checked and timed one
    # case at a time.
    pool = concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1)
    compiled = {(i, name): pool.submit(compile_variant, case, v)
                for i, case in enumerate(cases)
                for name, v in case["variants"].items()
                if not v.get("contender")}
    rows = []
    for i, case in enumerate(cases):
        m, n, k, dtype = case["m"], case["n"], case["k"], case["dtype"]
        nk = case.get("weight", "kn") == "nk"
        a = torch.randn(m, k, device="cuda", dtype=tdts[dtype])
        # b: the kernel's second operand ([n, k] for a Linear weight);
        # bt: the same matrix as [k, n], for the reference and cuBLASLt.
        b = torch.randn(*((n, k) if nk else (k, n)), device="cuda",
                        dtype=tdts[dtype])
        bt = b.t() if nk else b
        c = torch.empty(m, n, device="cuda", dtype=tdts[dtype])
        # A Linear layer's bias (only with the weight [n, k]).
        bias = (torch.randn(n, device="cuda", dtype=tdts[dtype])
                if nk and case.get("bias") else None)
        ref = a.double() @ bt.double()
        ref = torch.relu(ref if bias is None else ref + bias.double())
        row = {"m": m, "n": n, "k": k, "dtype": dtype,
               "weight": "nk" if nk else "kn", "bias": bias is not None,
               "variants": {}}
        extra = () if bias is None else (bias,)
        kernels = {}
        for name, v in case["variants"].items():
            out = row["variants"][name] = {}
            try:
                # timed(): the call that is timed; run(): it, leaving the
                # output in c to be checked.
                if v.get("contender") == "cublaslt":
                    # The layer's bias, or a zero one for plain ReLU.
                    addend = (bias if bias is not None else
                              torch.zeros(n, device="cuda", dtype=tdts[dtype]))
                    timed = (lambda z=addend:
                             torch._addmm_activation(z, a, bt))
                    run = (lambda t=timed: c.copy_(t()))
                    out.update(contender="cublaslt")
                elif v.get("contender"):
                    raise ValueError(f"unknown contender {v['contender']!r}")
                else:
                    comp = compiled[(i, name)].result()
                    kern = tessel.Kernel(comp, device)
                    timed = run = (lambda kern=kern: kern(a, b, *extra, c))
                    out.update(knobs=comp.knobs, source=comp.knob_source,
                               launches=len(json.loads(
                                   comp.launch_file.read_text())["launches"]))
                c.fill_(float("nan"))
                run()
                torch.cuda.synchronize()
                ok, err, why = check(c, ref, dtype, torch)
                out.update(rel_error=err, passed=bool(ok))
                if ok:
                    kernels[name] = timed
                else:
                    out["error"] = why or f"relative error {err:.3g}"
            except Exception as e:  # noqa: BLE001
                out.update(passed=False, error=str(e)[-800:])
        times = {name: [] for name in kernels}
        names = list(kernels)
        if names:
            # The GPU hot before the first round, as it is after it.
            triton.testing.do_bench(kernels[names[0]], warmup=0, rep=100)
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                times[name].append(bench_ms(kernels[name], triton))
        first = next(iter(case["variants"]))
        for name, ts in times.items():
            out = row["variants"][name]
            out["ms"] = sorted(ts)[len(ts) // 2]
            out["rounds_ms"] = ts
            out["tflops"] = 2.0 * m * n * k / out["ms"] / 1e9
        base = row["variants"][first].get("ms")
        for name in times:
            if base:
                row["variants"][name]["vs_first"] = \
                    base / row["variants"][name]["ms"]
        rows.append(row)
        print(f"{m}x{n}x{k} {dtype}{' nk' if nk else ''}: " + ", ".join(
            f"{name} {v.get('ms', 0) * 1e3:.1f} us"
            f" x{v.get('vs_first', 0):.3f}" if v.get("passed")
            else f"{name} FAILED {v.get('error', '')[:200]}"
            for name, v in row["variants"].items()), flush=True)
    names = list(cases[0]["variants"]) if cases else []
    summary = {name: geomean([r["variants"].get(name, {}).get("vs_first")
                              for r in rows]) for name in names[1:]}
    failed = sum(not v.get("passed") for r in rows
                 for v in r["variants"].values())
    meta = {"device": device.name, "date": datetime.date.today().isoformat(),
            "torch": torch.__version__, "command": " ".join(sys.argv),
            "cases": args.cases, "summary": summary, "failed": failed,
            "rows": rows}
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(meta, indent=1) + "\n")
    print("geomean vs first: " + ", ".join(
        f"{k} {v:.3f}" for k, v in summary.items()) + f"; {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
