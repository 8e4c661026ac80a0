#!/usr/bin/env python3
"""A model of the 3xTF32 kernel's rounding (docs/f32.md), on the CPU, to
see which term of its error against f64 each choice moves before a GPU
run measures it.

    python3 bench/f32_split_error.py [M N K]      # default 64 1024 1024

The inputs are the race's (bench/f32_tensor_cores.py: standard normal, W
stored [n, k], ReLU after), the error its relative Frobenius norm against
f64. The model follows the kernel: hi is x with TF32's 13 missing
mantissa bits cleared (wgmma reads the TMA tile that way); lo = x - hi
(exact), stored as the variant says and truncated to TF32 by wgmma; each
K step of 32 issues four k8 slices of lo x hi, hi x lo, hi x hi into a
fresh partial, each instruction's sum truncated to f32 (what wgmma's
accumulator does, measured), and the partial is added to the total in
FP32. Measured errors it reproduces (H100 and H200): 5.6e-7 at
256x1024x1024 and 5.9e-7 at 4096^3 with lo truncated, 3.5e-7 and 4.0e-7
with lo rounded.

Each variant's error is printed beside cuBLAS-like FP32 (one sequential
FP32 sum, an upper estimate: cuBLAS measured 2.4e-7 at K = 1024 and
1.15e-6 at K = 4096).
"""

import sys

import numpy as np


def tf32_truncated(a):
    return (a.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def tf32_rounded(a):
    # Half a unit added to the magnitude bits, then truncated: round to
    # nearest, ties away from zero (what the kernel's `+ 4096` does).
    bits = a.view(np.uint32).astype(np.uint64) + 0x1000
    return (bits & 0xFFFFE000).astype(np.uint32).view(np.float32)


def f32_toward_zero(v):
    f = v.astype(np.float32)
    over = np.abs(f.astype(np.float64)) > np.abs(v)
    f[over] = np.nextafter(f[over], np.float32(0))
    return f


def relative_error(out, ref):
    out = np.maximum(out.astype(np.float64), 0)
    return np.linalg.norm(out - ref) / np.linalg.norm(ref)


def three_tf32(x, w, ref, hi_of, lo_of, step=32, products=((1, 0), (0, 1),
                                                            (0, 0))):
    """The kernel's sum: hi_of(x) as wgmma reads hi, lo_of(x - hi) as lo
    is stored; `step` columns of K per fresh partial."""
    xh, wh = hi_of(x), hi_of(w)
    parts = {0: (xh, wh), 1: (lo_of(x - xh), lo_of(w - wh))}
    m, n, k = x.shape[0], w.shape[0], x.shape[1]
    total = np.zeros((m, n), np.float32)
    for k0 in range(0, k, step):
        partial = np.zeros((m, n), np.float32)
        for kk in range(k0, min(k0 + step, k), 8):
            for pa, pb in products:
                a = tf32_truncated(np.ascontiguousarray(parts[pa][0][:, kk:kk + 8]))
                b = tf32_truncated(np.ascontiguousarray(parts[pb][1][:, kk:kk + 8]))
                partial = f32_toward_zero(
                    partial.astype(np.float64)
                    + a.astype(np.float64) @ b.astype(np.float64).T)
        total = (total + partial).astype(np.float32)
    return relative_error(total, ref)


def fp32_sequential(x, w, ref):
    acc = np.zeros((x.shape[0], w.shape[0]), np.float32)
    for k in range(x.shape[1]):
        acc = (acc + np.outer(x[:, k], w[:, k]).astype(np.float32)).astype(
            np.float32)
    return relative_error(acc, ref)


def main():
    m, n, k = (int(v) for v in sys.argv[1:4]) if len(sys.argv) >= 4 else (
        64, 1024, 1024)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    ref = np.maximum(x.astype(np.float64) @ w.astype(np.float64).T, 0)
    keep = lambda a: a  # noqa: E731 (stored as is; wgmma truncates)
    variants = [
        ("lo truncated by wgmma (before 2026-11-26)", tf32_truncated, keep, {}),
        ("lo rounded (the kernel)", tf32_truncated, tf32_rounded, {}),
        ("hi and lo rounded (hi stored too)", tf32_rounded, tf32_rounded, {}),
        ("lo rounded, partials of 64 K columns", tf32_truncated,
         tf32_rounded, {"step": 64}),
        ("lo truncated, lo x lo added", tf32_truncated, keep,
         {"products": ((1, 1), (1, 0), (0, 1), (0, 0))}),
    ]
    print(f"{m}x{n}x{k}: relative error against f64")
    for name, hi_of, lo_of, kw in variants:
        print(f"  {name:45s} {three_tf32(x, w, ref, hi_of, lo_of, **kw):.2e}")
    print(f"  {'FP32, one sequential sum':45s} {fp32_sequential(x, w, ref):.2e}")


if __name__ == "__main__":
    main()
