#!/usr/bin/env python3
"""The error of PTX's tanh.approx.f32 (what tessel-lower-math emits for an
f32 tanh whose result is rounded to 16 bits), measured on the GPU against
tanh in f64 over every f32 in [0, 16] (tanh is odd; past 16 it is 1 in
f32): about 1.1e9 values, in chunks. Also the worst distance of its result
rounded to bf16 and to f16 from the exact value, in units of that type's
spacing there (a correctly rounded result is within 0.5).

    python3 bench/tanh_approx_error.py OUT.json
"""

import json
import pathlib
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _tanh_approx(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n)
    y = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=f,f", [x],
                                  dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + i, y, mask=i < n)


def main(out):
    # Every non-negative f32 bit pattern up to 16.0 (tanh is odd), in chunks.
    last = torch.tensor([16.0]).view(torch.int32).item()
    chunk = 1 << 26
    worst = {"max_rel": 0.0, "at_rel": None, "max_abs": 0.0, "at_abs": None,
             "bf16_ulps": 0.0, "f16_ulps": 0.0}
    count = 0
    for start in range(0, last + 1, chunk):
        bits = torch.arange(start, min(start + chunk, last + 1),
                            device="cuda", dtype=torch.int32)
        x = bits.view(torch.float32)
        y = torch.empty_like(x)
        _tanh_approx[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        exact = torch.tanh(x.double())
        err = (y.double() - exact).abs()
        rel = torch.where(exact != 0, err / exact.abs(), err)
        i = int(rel.argmax())
        if rel[i].item() > worst["max_rel"]:
            worst["max_rel"], worst["at_rel"] = rel[i].item(), x[i].item()
        j = int(err.argmax())
        if err[j].item() > worst["max_abs"]:
            worst["max_abs"], worst["at_abs"] = err[j].item(), x[j].item()
        for name, dt, eps in (("bf16", torch.bfloat16, 2.0**-8),
                              ("f16", torch.float16, 2.0**-11)):
            # The 16-bit results' distance, in units of the 16-bit type's
            # spacing at the exact value, from the exact value.
            ulp = torch.clamp(exact.abs(), min=2.0**-14) * eps
            d = ((y.to(dt).double() - exact).abs() / ulp).max().item()
            worst[f"{name}_ulps"] = max(worst[f"{name}_ulps"], d)
        count += x.numel()
    report = {"device": torch.cuda.get_device_name(0),
              "values": count, "range": "every f32 in [0, 16] (tanh is odd)",
              **worst,
              "max_rel_log2": float(torch.tensor(worst["max_rel"]).log2())}
    print(json.dumps(report))
    pathlib.Path(out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
