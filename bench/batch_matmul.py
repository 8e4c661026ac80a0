#!/usr/bin/env python3
"""Batched contractions (linalg.batch_matmul + ReLU) through Tessel's
schedules: compile on the CPU, check and time on the GPU.

  bench/batch_matmul.py prepare DIR     # CPU: tessel-opt on PATH or TESSEL_HOME
  bench/batch_matmul.py check DIR OUT   # GPU: tessel-run against the f64 reference
  bench/batch_matmul.py race DIR OUT    # GPU: Tessel vs torch.bmm + relu, compiled

Each case is relu(A[b] x B[b]) with B stored [b, k, n] ("kn") or [b, n, k]
("nk", attention's Q K^T), compiled with the rule's knobs (no tuned
record). `race` times, with triton.testing.do_bench (CUDA events, L2
flushed, median), Tessel's kernel, eager `torch.relu(torch.bmm(a, b))` and
torch.compile(mode="max-autotune-no-cudagraphs") of it, each output
checked against an f64 reference first.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))

import case_kernels  # noqa: E402

# name: (schedule, batch, m, n, k, dtype, B layout, references)
CASES = {
    "wgmma-f16-kn-4x200x136x72": ("wgmma", 4, 200, 136, 72, "f16", "kn", ("cpu", "gpu")),
    "wgmma-bf16-nk-6x77x100x131": ("wgmma", 6, 77, 100, 131, "bf16", "nk", ("cpu", "gpu")),
    "mma-f16-nk-5x129x65x96": ("mma", 5, 129, 65, 96, "f16", "nk", ("cpu", "gpu")),
    "simt-f32-kn-3x96x80x40": ("simt", 3, 96, 80, 40, "f32", "kn", ("cpu", "gpu")),
    # Attention-like: 64 heads x batch, sequence 512, head dimension 64.
    "wgmma-f16-nk-64x512x512x64": ("wgmma", 64, 512, 512, 64, "f16", "nk", ("gpu",)),
    "wgmma-f16-kn-64x512x64x512": ("wgmma", 64, 512, 64, 512, "f16", "kn", ("gpu",)),
    "wgmma-f16-kn-16x1024x1024x1024": ("wgmma", 16, 1024, 1024, 1024, "f16", "kn", ("gpu",)),
    "wgmma-bf16-kn-8x2048x2048x2048": ("wgmma", 8, 2048, 2048, 2048, "bf16", "kn", ("gpu",)),
    "wgmma-bf16-nk-4x4096x4096x1024": ("wgmma", 4, 4096, 4096, 1024, "bf16", "nk", ("gpu",)),
}
RACED = [n for n, c in CASES.items() if c[1] * c[2] * c[3] * c[4] >= 2**30]


def batch_ir(b, m, n, k, dtype, layout):
    """relu(A[b] x B[b]) as linalg.batch_matmul (B [b, k, n]) or a generic
    contraction with B [b, n, k], into a tensor of the input type."""
    t = {"f16": "f16", "bf16": "bf16", "f32": "f32"}[dtype]
    bshape = f"{b}x{k}x{n}" if layout == "kn" else f"{b}x{n}x{k}"
    ext = "" if t == "f32" else "\n    %af = arith.extf %x : {0} to f32\n    %bf = arith.extf %y : {0} to f32".format(t)
    a, bb = ("%x", "%y") if t == "f32" else ("%af", "%bf")
    if layout == "kn":
        mm = (f"  %mm = linalg.batch_matmul ins(%a, %b : tensor<{b}x{m}x{k}x{t}>, "
              f"tensor<{bshape}x{t}>)\n      outs(%acc : tensor<{b}x{m}x{n}xf32>) "
              f"-> tensor<{b}x{m}x{n}xf32>\n")
    else:
        mm = f"""  %mm = linalg.generic {{
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}}
      ins(%a, %b : tensor<{b}x{m}x{k}x{t}>, tensor<{bshape}x{t}>)
      outs(%acc : tensor<{b}x{m}x{n}xf32>) {{
  ^bb0(%x: {t}, %y: {t}, %c: f32):{ext}
    %p = arith.mulf {a}, {bb} : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  }} -> tensor<{b}x{m}x{n}xf32>
"""
    trunc = ("    %t = arith.truncf %r : f32 to {0}\n    linalg.yield %t : {0}\n".format(t)
             if t != "f32" else "    linalg.yield %r : f32\n")
    return f"""// relu(A[b] x B[b]): {b} x {m}x{n}x{k} {dtype}, B stored {layout}.
func.func @bmm(%a: tensor<{b}x{m}x{k}x{t}>, %b: tensor<{bshape}x{t}>, %out: tensor<{b}x{m}x{n}x{t}>) -> tensor<{b}x{m}x{n}x{t}> {{
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<{b}x{m}x{n}xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<{b}x{m}x{n}xf32>) -> tensor<{b}x{m}x{n}xf32>
{mm}  %y = linalg.generic {{
      indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%mm : tensor<{b}x{m}x{n}xf32>) outs(%out : tensor<{b}x{m}x{n}x{t}>) {{
  ^bb0(%v: f32, %o: {t}):
    %r = arith.maximumf %v, %zero : f32
{trunc}  }} -> tensor<{b}x{m}x{n}x{t}>
  return %y : tensor<{b}x{m}x{n}x{t}>
}}
"""


def prepare(directory):
    case_kernels.prepare(directory, (
        (name, schedule, batch_ir(b, m, n, k, dtype, layout))
        for name, (schedule, b, m, n, k, dtype, layout, _) in CASES.items()))


def check(directory, out):
    case_kernels.check(directory, out,
                       ((name, case[-1]) for name, case in CASES.items()),
                       "bmm", 36)


def race(directory, out):
    import torch
    from triton.testing import do_bench
    from tessel import runtime

    device = runtime.Device.get(0)
    torch_dtype = {"f16": torch.float16, "bf16": torch.bfloat16,
                   "f32": torch.float32}
    rows = []
    for name in RACED:
        _, bt, m, n, k, dtype, layout, _ = CASES[name]
        d = pathlib.Path(directory) / name / "k"
        spec = runtime.FunctionSpec(d / "bmm.launch.json")
        fn = runtime.Function(device, spec)
        dt = torch_dtype[dtype]
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(bt, m, k, device="cuda", dtype=dt, generator=g)
        stored = (torch.randn(bt, k, n, device="cuda", dtype=dt, generator=g)
                  if layout == "kn" else
                  torch.randn(bt, n, k, device="cuda", dtype=dt, generator=g))
        stored /= k**0.5
        bmat = stored if layout == "kn" else stored.transpose(1, 2)
        y = torch.empty(bt, m, n, device="cuda", dtype=dt)
        stream = torch.cuda.current_stream().cuda_stream
        ptrs = [a.data_ptr(), stored.data_ptr(), y.data_ptr()]

        def tessel_fn():
            fn.launch(ptrs, stream)

        def eager(a, b):
            return torch.relu(torch.bmm(a, b))

        torch._dynamo.reset()
        compiled = torch.compile(eager, mode="max-autotune-no-cudagraphs")
        contenders = {"tessel": (tessel_fn, lambda: y),
                      "eager": (lambda: eager(a, bmat), None),
                      "compile-max": (lambda: compiled(a, bmat), None)}
        ref = torch.relu(torch.bmm(a.double(), bmat.double()))
        row = {"case": name, "knobs": json.loads(
                   (d / "bmm.launch.json").read_text())["schedule"]["knobs"],
               "batch": bt, "m": m, "n": n, "k": k, "dtype": dtype,
               "b_stored": layout}
        flops = 2 * bt * m * n * k
        for cname, (f, result) in contenders.items():
            r = f()
            torch.cuda.synchronize()
            outv = result() if result else r
            err = ((outv.double() - ref).norm() / ref.norm()).item()
            ms = do_bench(f, warmup=50, rep=200)
            row[cname] = {"ms": ms, "tflops": flops / ms / 1e9,
                          "rel_error": err, "passed": err <= 1e-2}
        for c in ("eager", "compile-max"):
            row[f"tessel_vs_{c}"] = row["tessel"]["tflops"] / row[c]["tflops"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    report = {"device": torch.cuda.get_device_name(0),
              "torch": torch.__version__,
              "method": "triton.testing.do_bench median (warmup 50 ms, rep "
                        "200 ms, L2 flushed); outputs checked against f64 "
                        "(relative Frobenius error <= 1e-2)",
              "knobs": "defaults=rule (no tuned record of these workloads)",
              "rows": rows}
    pathlib.Path(out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    {"prepare": prepare, "check": check, "race": race}[command](*rest)
