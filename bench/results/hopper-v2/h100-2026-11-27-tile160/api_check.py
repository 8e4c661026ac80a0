import torch, tessel, json, triton
torch.manual_seed(0)
for (m, n, k, dt, act) in [(2048, 5120, 5120, torch.bfloat16, "gelu_tanh"), (1024, 5120, 5120, torch.float16, "relu"), (2048, 11008, 4096, torch.bfloat16, "silu")]:
    x = torch.randn(m, k, device="cuda", dtype=dt)
    w = torch.randn(n, k, device="cuda", dtype=dt) / k ** 0.5
    b = torch.randn(n, device="cuda", dtype=dt)
    y = tessel.linear(x, w, b, activation=act)
    z = x.double() @ w.double().t() + b.double()
    ref = {"relu": torch.relu, "gelu_tanh": lambda t: torch.nn.functional.gelu(t, approximate="tanh"), "silu": torch.nn.functional.silu}[act](z)
    err = ((y.double() - ref).norm() / ref.norm()).item()
    dname = {torch.bfloat16: "bf16", torch.float16: "f16"}[dt]
    knobs = tessel.get_linear_kernel(m, n, k, dname, 0, bias=True, activation=act).compiled.knobs
    t = triton.testing.do_bench(lambda: tessel.linear(x, w, b, activation=act), rep=100, return_mode="median")
    use_gelu = act == "gelu_tanh"
    tl = triton.testing.do_bench(lambda: torch._addmm_activation(b, x, w.t(), use_gelu=use_gelu), rep=100, return_mode="median") if act != "silu" else float("nan")
    print(f"{m}x{n}x{k} {dt} {act} {knobs.get('tile_m')}x{knobs.get('tile_n')}: rel err {err:.2e}, tessel {t*1e3:.1f} us ({2*m*n*k/t/1e9:.0f} TFLOP/s), cuBLASLt fused {tl*1e3:.1f} us", flush=True)
