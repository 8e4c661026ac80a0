#!/usr/bin/env python3
"""What the L2 flush between timed runs costs a memory-bound kernel.

triton.testing.do_bench (ANCHORS.md's method, race.py's) flushes L2 before
each timed run by zeroing a 256 MB buffer. Those stores leave L2 full of
dirty lines, and the timed kernel's own reads must evict them: it is
charged for writing back up to the L2's size of another kernel's stores.
A compute-bound kernel hides that; a kernel that streams its operands
from HBM (decode shapes, 128x4096x4096) may not.

Each case is timed (CUDA events around the call, median of --reps runs)
with four flushes before every run:
  dotbench  triton.testing.do_bench itself (its own zeroing flush)
  dirty     the same flush in this script's loop: zero a 256 MB buffer
  clean     zero it, then read another 256 MB buffer (torch.sum), so the
            dirty lines are written back before the timed run and L2
            holds clean lines of a buffer the kernel never reads
  none      no flush (the operands may be in L2)
The contenders: PyTorch's copy and sum of B (read + write, read), Triton
kernels that only read B (each program sums contiguous blocks of 4 to 16
K elements, grid-strided, 4 to 16 programs per SM: what a kernel that
streams B can read),
cuBLASLt's fused ReLU (torch._addmm_activation) and tessel.matmul_relu;
every matmul output (and the read kernel's sum) is checked first.

    python3 bench/l2_flush_probe.py --shapes 1x8192x8192,128x4096x4096 \\
        --out probe.json
"""

import argparse
import json
import statistics
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="1x8192x8192,8x8192x8192,"
                   "32x8192x8192,128x8192x8192,64x4096x4096,128x4096x4096")
    p.add_argument("--dtype", default="f16")
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("--out", required=True)
    args = p.parse_args()

    import torch
    import triton
    import triton.language as tl
    import tessel

    @triton.jit
    def read_sum(x, part, n, BLOCK: tl.constexpr):
        # Program p sums blocks p, p + grid, ... of x into part[p].
        pid = tl.program_id(0)
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(pid * BLOCK, n, tl.num_programs(0) * BLOCK):
            acc += tl.load(x + start + tl.arange(0, BLOCK)).to(tl.float32)
        tl.store(part + pid, tl.sum(acc, axis=0))

    sms = torch.cuda.get_device_properties(0).multi_processor_count

    tdt = {"f16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    mb256 = int(256e6) // 4
    dirty_buf = torch.empty(mb256, dtype=torch.int32, device="cuda")
    read_buf = torch.ones(mb256, dtype=torch.int32, device="cuda")
    flushes = {
        "dirty": lambda: dirty_buf.zero_(),
        "clean": lambda: (dirty_buf.zero_(), read_buf.sum()),
        "none": lambda: None,
    }

    def timed(fn, flush):
        if flush == "dobench":
            return triton.testing.do_bench(fn, warmup=25, rep=100,
                                           return_mode="median")
        f = flushes[flush]
        for _ in range(5):
            f()
            fn()
        ts = []
        for _ in range(args.reps):
            f()
            s = torch.cuda.Event(enable_timing=True)
            e = torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            ts.append(s.elapsed_time(e))
        return statistics.median(ts)

    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "triton": triton.__version__, "dtype": args.dtype, "cases": []}
    for shape in args.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        torch.manual_seed(0)
        a = torch.randn(m, k, device="cuda", dtype=tdt) / 8
        b = torch.randn(k, n, device="cuda", dtype=tdt) / 8
        c = torch.empty(m, n, device="cuda", dtype=tdt)
        zero = torch.zeros(n, device="cuda", dtype=tdt)
        ref = torch.relu(a.double() @ b.double())
        checked = {}
        contenders = {
            "copy_b": (lambda: b.clone(), 2 * k * n * 2),
            "sum_b": (lambda: b.sum(), k * n * 2),
        }
        # Read kernels: (elements per block, warps, programs per SM).
        total = b.float().sum().item()
        for block, warps, per_sm in ((4096, 4, 16), (8192, 4, 8),
                                     (16384, 8, 4)):
            grid = per_sm * sms
            part = torch.zeros(grid, device="cuda", dtype=torch.float32)
            launch = (lambda block=block, warps=warps, grid=grid, part=part:
                      read_sum[(grid,)](b, part, b.numel(), BLOCK=block,
                                        num_warps=warps))
            launch()
            name = f"read_b_{block // 1024}k"
            checked[name] = (abs(part.sum().item() - total)
                             / max(abs(total), 1))
            contenders[name] = (launch, k * n * 2)
        contenders.update({
            "cublaslt": (lambda: torch._addmm_activation(zero, a, b),
                         (m * k + k * n + m * n) * 2),
            "tessel": (lambda: tessel.matmul_relu(a, b, out=c),
                       (m * k + k * n + m * n) * 2),
        })
        for name in ("cublaslt", "tessel"):
            got = contenders[name][0]()
            got = c if got is None else got
            err = ((got.double() - ref).norm() / ref.norm()).item()
            checked[name] = err
            if not err < 1e-2:
                print(f"{shape} {name}: wrong output ({err})", flush=True)
                del contenders[name]
        row = {"shape": shape, "errors": checked, "us": {}, "tb_s": {}}
        for flush in ("dobench", "dirty", "clean", "none"):
            for name, (fn, nbytes) in contenders.items():
                ms = timed(fn, flush)
                row["us"].setdefault(name, {})[flush] = ms * 1e3
                row["tb_s"].setdefault(name, {})[flush] = nbytes / ms / 1e9
        out["cases"].append(row)
        for name in contenders:
            print(f"{shape:14s} {name:9s} " + "  ".join(
                f"{fl} {row['us'][name][fl]:7.1f} us {row['tb_s'][name][fl]:.2f} TB/s"
                for fl in row["us"][name]), flush=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
