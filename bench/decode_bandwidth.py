#!/usr/bin/env python3
"""What bandwidth a decode-shaped matmul (M = 1..128, N = K = 8192, f16,
B stored [k, n]) can reach on this GPU, and with which access pattern:
issue 15 asks Tessel for 90% of the measured copy bandwidth there, and
cuBLASLt reaches 76%.

Measured in one process (triton.testing.do_bench medians, L2 flushed by
do_bench between runs): PyTorch's copy of B (read + write), its sum of B
(read), cuBLASLt's fused ReLU (`torch._addmm_activation`), and a grid of
Triton kernels that stream B in [BK, BN] tiles, each program a column
block and a share of K (split-K, f32 atomics into a zeroed buffer; the
ReLU and the conversion are left out, so these bound what a streaming
kernel of that shape can move), and at M = 1 Triton kernels that read
whole rows of B (each program a range of K and every column). Each
Triton output is checked against
torch's matmul.

    python3 bench/decode_bandwidth.py --out decode-bandwidth.json
"""

import argparse
import itertools
import json
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ms", default="1,32,128")
    p.add_argument("--rows-only", action="store_true",
                   help="M = 1, only the kernels that read whole rows")
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--k", type=int, default=8192)
    p.add_argument("--out", required=True)
    args = p.parse_args()

    import torch
    import triton
    import triton.language as tl
    from triton.testing import do_bench

    @triton.jit
    def stream(a, b, c, M, N, K, k_share,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_n = tl.program_id(0)
        pid_k = tl.program_id(1)
        rn = pid_n * BN + tl.arange(0, BN)
        rm = tl.arange(0, BM)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        k0 = pid_k * k_share
        for kk in range(0, k_share, BK):
            rk = k0 + kk + tl.arange(0, BK)
            bt = tl.load(b + rk[:, None] * N + rn[None, :])
            at = tl.load(a + rm[:, None] * K + rk[None, :],
                         mask=rm[:, None] < M, other=0.0)
            if BM >= 16:
                acc += tl.dot(at, bt)
            else:
                acc += tl.sum(at.to(tl.float32)[:, :, None] *
                              bt.to(tl.float32)[None, :, :], axis=1)
        tl.atomic_add(c + rm[:, None] * N + rn[None, :], acc,
                      mask=rm[:, None] < M)

    @triton.jit
    def rows(a, b, c, K, k_share, N: tl.constexpr, BK: tl.constexpr):
        # M = 1: each program reads whole rows of B (a range of K, every
        # column: contiguous N * 2 bytes per row) into one accumulator of
        # N columns, then adds it into c.
        pid = tl.program_id(0)
        rn = tl.arange(0, N)
        acc = tl.zeros((N,), dtype=tl.float32)
        k0 = pid * k_share
        for kk in range(0, k_share, BK):
            rk = k0 + kk + tl.arange(0, BK)
            bt = tl.load(b + rk[:, None] * N + rn[None, :])
            at = tl.load(a + rk)
            acc += tl.sum(at.to(tl.float32)[:, None] * bt.to(tl.float32),
                          axis=0)
        tl.atomic_add(c + rn, acc)

    dev = "cuda"
    n, k = args.n, args.k
    torch.manual_seed(0)
    b = torch.randn(k, n, device=dev, dtype=torch.float16) / 64
    bench = lambda fn: do_bench(fn, warmup=25, rep=200)
    copy_ms = bench(lambda: b.clone())
    sum_ms = bench(lambda: b.sum())
    out = {"device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "triton": triton.__version__,
           "n": n, "k": k,
           "copy_tb_s": 2 * b.numel() * 2 / copy_ms / 1e9,
           "sum_read_tb_s": b.numel() * 2 / sum_ms / 1e9, "m": {}}
    print(f"copy {out['copy_tb_s']:.2f} TB/s (read + write), "
          f"sum {out['sum_read_tb_s']:.2f} TB/s (read)", flush=True)
    for m in map(int, args.ms.split(",")):
        a = torch.randn(m, k, device=dev, dtype=torch.float16) / 64
        ref = (a.float() @ b.float())
        bytes_moved = (m * k + k * n + m * n) * 2
        zero = torch.zeros(n, device=dev, dtype=torch.float16)
        lt_ms = bench(lambda: torch._addmm_activation(zero, a, b))
        row = {"cublaslt_us": lt_ms * 1e3,
               "cublaslt_tb_s": bytes_moved / lt_ms / 1e9, "triton": []}
        bm = triton.next_power_of_2(m)

        def measure(params, launch):
            """Checks and times launch(c) into a zeroed f32 c (the zeroing
            is in each run's time, and taken out), a row of row["triton"]
            described by params; a config Triton cannot compile is
            reported and left out."""
            c = torch.zeros(m, n, device=dev, dtype=torch.float32)

            def run():
                c.zero_()
                launch(c)
            try:
                run()
                torch.cuda.synchronize()
            except Exception as e:
                print(f"M={m} {params}: {str(e).splitlines()[0][:80]}",
                      flush=True)
                return
            err = ((c - ref).norm() / ref.norm()).item()
            t = max(bench(run) - bench(lambda: c.zero_()), 1e-6)
            row["triton"].append(dict(params, us=t * 1e3,
                                      tb_s=bytes_moved / t / 1e9,
                                      rel_error=err, passed=err < 1e-2))

        tiles = itertools.product((64, 128, 256), (64, 128), (1, 2, 4, 8),
                                  (4, 8), (3, 4))
        for bn, bk, splits, warps, stages in [] if args.rows_only else tiles:
            if bm * bn > 128 * 256 or (bm < 16 and bn * bk > 128 * 128):
                continue
            if k % (splits * bk):
                continue
            measure({"bn": bn, "bk": bk, "splits": splits, "warps": warps,
                     "stages": stages},
                    lambda c: stream[(n // bn, splits)](
                        a, b, c, m, n, k, k // splits, BM=bm, BN=bn, BK=bk,
                        num_warps=warps, num_stages=stages))
        whole_rows = itertools.product((1, 2, 4), (128, 256, 512),
                                       (4, 8, 16), (2, 3))
        for bk, programs, warps, stages in whole_rows if m == 1 else []:
            measure({"rows": True, "bk": bk, "programs": programs,
                     "warps": warps, "stages": stages},
                    lambda c: rows[(programs,)](
                        a, b, c, k, k // programs, N=n, BK=bk,
                        num_warps=warps, num_stages=stages))
        ok = [r for r in row["triton"] if r["passed"]]
        best = max(ok, key=lambda r: r["tb_s"]) if ok else None
        row["triton_best"] = best
        out["m"][str(m)] = row
        print(f"M={m}: cuBLASLt {row['cublaslt_us']:.1f} us "
              f"{row['cublaslt_tb_s']:.2f} TB/s; Triton best "
              + (f"{best['us']:.1f} us {best['tb_s']:.2f} TB/s {best}"
                 if best else "none"), flush=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
