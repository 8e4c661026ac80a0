#!/usr/bin/env python3
"""relu(A @ B) in each of the four operand layouts (A [m, k] or [k, m], B
[k, n] or [n, k]) through tessel.matmul_relu, untuned (the rule's knobs),
against cuBLASLt's fused ReLU (torch._addmm_activation(zero_bias, a, b))
on the same views: the layouts a user's transposed views give.

    bench/layouts.py OUT.json [--shapes 4096x4096x4096,...] [--dtypes f16,bf16]
        [--layouts mk:kn,km:kn,...] [--variant NAME=knob=v,...]

--variant also times, in the same rounds, the rule's kernel with those
knobs changed (as "tessel-NAME"), checked the same way.

Each layout's operands are views of contiguous tensors (x.t() for a
transposed one), read as stored by both contenders. Every Tessel output is
checked against relu(a @ b) in float64 first (relative Frobenius error
within the dtype's tolerance). Timing: triton.testing.do_bench medians
(CUDA events, L2 flushed), in ROUNDS rounds that rotate which contender
goes first (tessel.race.time_rounds); the median of the rounds is kept.
"""

import argparse
import json
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))

import tessel  # noqa: E402
from tessel.race import time_rounds  # noqa: E402

ROUNDS = 3
# The relative error a 16-bit kernel's output must stay within.
TOLERANCE = 1e-2
LAYOUTS = [("mk", "kn"), ("km", "kn"), ("mk", "nk"), ("km", "nk")]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--shapes", default="4096x4096x4096,2048x5120x5120,"
                   "1000x1000x1000,512x4096x11008")
    p.add_argument("--dtypes", default="f16,bf16")
    p.add_argument("--rep-ms", type=float, default=100)
    p.add_argument("--layouts", default=",".join(f"{a}:{b}" for a, b in LAYOUTS))
    p.add_argument("--variant", action="append", default=[])
    args = p.parse_args()
    import torch
    from triton.testing import do_bench
    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16}
    rows = []
    for shape in args.shapes.split(","):
        m, n, k = (int(v) for v in shape.split("x"))
        for dt in args.dtypes.split(","):
            for a_l, b_l in (l.split(":") for l in args.layouts.split(",")):
                torch.manual_seed(0)
                ta = torch.randn(*((m, k) if a_l == "mk" else (k, m)),
                                 device="cuda", dtype=dtypes[dt])
                tb = (torch.randn(*((k, n) if b_l == "kn" else (n, k)),
                                  device="cuda") / k ** 0.5).to(dtypes[dt])
                a = ta if a_l == "mk" else ta.t()
                b = tb if b_l == "kn" else tb.t()
                row = {"m": m, "n": n, "k": k, "dtype": dt,
                       "layout": f"A[{','.join(a_l)}] B[{','.join(b_l)}]"}
                t0 = time.time()
                kernel = tessel.get_kernel(m, n, k, dt, a=a_l, b=b_l)
                row["compile_s"] = round(time.time() - t0, 2)
                row["knobs"] = kernel.compiled.knobs
                row["schedule"] = pathlib.Path(str(kernel.compiled.schedule)).name
                c = tessel.matmul_relu(a, b)
                exact = torch.relu(a.double() @ b.double())
                err = ((c.double() - exact).norm() / exact.norm()).item()
                row["rel_error"] = err
                row["passed"] = err < TOLERANCE
                zero = torch.zeros(n, device="cuda", dtype=dtypes[dt])
                ready = {"tessel": lambda: tessel.matmul_relu(a, b),
                         "cublaslt": lambda: torch._addmm_activation(zero, a, b)}
                if not row["passed"]:
                    ready.pop("tessel")
                for variant in args.variant:
                    name, _, changes = variant.partition("=")
                    knobs = dict(kernel.compiled.knobs)
                    knobs.update(kv.split("=") for kv in changes.split(","))
                    try:
                        other = tessel.get_kernel(m, n, k, dt, a=a_l, b=b_l,
                                                  knobs=",".join(f"{kk}={v}" for kk, v in knobs.items()))
                    except tessel.TesselError as e:
                        row[f"tessel-{name}"] = {"error": str(e).splitlines()[0]}
                        continue
                    out = torch.empty(m, n, device="cuda", dtype=dtypes[dt])
                    launch = (lambda kk, o: lambda: kk._launch(torch, (ta, tb, o)))(other, out)
                    launch()
                    verr = ((out.double() - exact).norm() / exact.norm()).item()
                    if verr < TOLERANCE:
                        ready[f"tessel-{name}"] = launch
                    else:
                        row[f"tessel-{name}"] = {"error": f"wrong output {verr:.2e}"}
                times = time_rounds(ready, ROUNDS, lambda fn: do_bench(
                    fn, warmup=25, rep=args.rep_ms))
                flops = 2.0 * m * n * k
                for name, ts in times.items():
                    if isinstance(ts, Exception):
                        row[name] = {"error": str(ts)}
                        continue
                    ms = statistics.median(ts)
                    row[name] = {"ms": ms, "tflops": flops / ms / 1e9,
                                 "rounds_ms": ts}
                if "tflops" in row.get("tessel", {}) and \
                        "tflops" in row.get("cublaslt", {}):
                    row["ratio"] = row["tessel"]["tflops"] / row["cublaslt"]["tflops"]
                rows.append(row)
                others = " ".join(
                    f"{name} {row[name].get('tflops', 0):.0f}"
                    for name in row if name.startswith("tessel-"))
                print(f"{shape} {dt} {row['layout']}: {row['schedule']} "
                      f"err {err:.1e} tessel "
                      f"{row.get('tessel', {}).get('tflops', 0):.0f} cublaslt "
                      f"{row.get('cublaslt', {}).get('tflops', 0):.0f} TFLOP/s "
                      f"ratio {row.get('ratio', 0):.3f} knobs {row['knobs']} {others}",
                      flush=True)
    device = torch.cuda.get_device_name()
    pathlib.Path(args.out).write_text(json.dumps(
        {"device": device, "date": time.strftime("%Y-%m-%d"),
         "command": " ".join(sys.argv),
         "method": f"triton.testing.do_bench median (warmup 25 ms, rep "
                   f"{args.rep_ms} ms, L2 flushed), {ROUNDS} rotating rounds, "
                   "median; outputs checked against float64",
         "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
