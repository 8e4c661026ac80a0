"""tessel.matmul_relu on a GPU against torch.relu(a @ b) (skipped without)."""

import subprocess
import sys

import pytest

import tessel
from conftest import ROOT, requires_gpu

pytestmark = requires_gpu
torch = pytest.importorskip("torch")
import tessel.nn  # noqa: E402  (imports torch)

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
# Tuned shapes (f16: every ANCHORS.md shape has a record for the H100) and
# untuned ones (schedule defaults).
SHAPES = [(1024, 1024, 1024), (256, 1024, 1024), (128, 4096, 4096),
          (4096, 4096, 1024), (512, 384, 256)]


@pytest.fixture(autouse=True)
def _full_precision_cublas():
    # The reference: cuBLAS in strict FP32 (no TF32) with f32 reductions.
    m = torch.backends.cuda.matmul
    names = ["allow_tf32", "allow_fp16_reduced_precision_reduction",
             "allow_bf16_reduced_precision_reduction"]
    saved = [getattr(m, n) for n in names]
    for n in names:
        setattr(m, n, False)
    yield
    for n, v in zip(names, saved):
        setattr(m, n, v)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_exact_on_small_integers(m, n, k, dtype):
    # Integers in [-3, 3]: every product and partial sum is exact in f32, so
    # Tessel and cuBLAS must agree to the last bit, whatever their order.
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randint(-3, 4, (m, k), device="cuda", generator=g).to(DTYPES[dtype])
    b = torch.randint(-3, 4, (k, n), device="cuda", generator=g).to(DTYPES[dtype])
    c = tessel.matmul_relu(a, b)
    torch.testing.assert_close(c, torch.relu(a @ b), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("m,n,k", SHAPES[:3])
def test_random_normal_within_dtype_tolerance(m, n, k, dtype):
    # Random normal inputs scaled so outputs are O(1): the difference to
    # cuBLAS is the accumulation order only, within torch.testing's default
    # tolerance for the dtype.
    g = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn(m, k, device="cuda", generator=g, dtype=DTYPES[dtype])
    b = (torch.randn(k, n, device="cuda", generator=g) / k ** 0.5).to(DTYPES[dtype])
    c = tessel.matmul_relu(a, b)
    ref = torch.relu(a @ b)
    torch.testing.assert_close(c, ref)
    exact = torch.relu(a.double() @ b.double())
    err = ((c.double() - exact).norm() / exact.norm()).item()
    # Output rounding (16-bit) or f32 accumulation over K terms (f32).
    assert err < {"f16": 1e-3, "bf16": 8e-3, "f32": 1e-5}[dtype]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("m,n,k", [(512, 384, 256), (200, 304, 136),
                                   (77, 100, 131), (1000, 1000, 1000)])
@pytest.mark.parametrize("a_t,b_t", [(True, False), (False, True),
                                     (True, True)])
def test_transposed_views_are_read_as_stored(m, n, k, dtype, a_t, b_t):
    # a = x.t() of a contiguous k x m x (A stored [k, m]) and b = w.t() of
    # a contiguous n x k w (B [n, k]): each layout's kernel on every
    # schedule it picks (wgmma, mma.sync, SIMT; misaligned rows at
    # 77x100x131), exact on small integers.
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    ints = lambda *s: torch.randint(-3, 4, s, device="cuda",
                                    generator=g).to(DTYPES[dtype])
    a = ints(k, m).t() if a_t else ints(m, k)
    b = ints(n, k).t() if b_t else ints(k, n)
    c = tessel.matmul_relu(a, b)
    torch.testing.assert_close(c, torch.relu(a @ b), rtol=0, atol=0)


@pytest.mark.parametrize("schedule", ["matmul_relu_mma.mlir",
                                      "matmul_relu_simt.mlir"])
def test_transposed_a_on_each_schedule(schedule):
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randint(-3, 4, (136, 200), device="cuda",
                      generator=g).half().t()
    b = torch.randint(-3, 4, (136, 304), device="cuda", generator=g).half()
    c = tessel.matmul_relu(a, b, schedule=ROOT / "schedules" / schedule)
    torch.testing.assert_close(c, torch.relu(a @ b), rtol=0, atol=0)


def test_out_and_current_stream():
    a = torch.randn(1024, 1024, device="cuda", dtype=torch.float16)
    b = torch.randn(1024, 1024, device="cuda", dtype=torch.float16)
    out = torch.full((1024, 1024), float("nan"), device="cuda", dtype=torch.float16)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        # A long kernel queued first on the side stream: Tessel's must run
        # after it, on the same stream, or it would read unfinished inputs.
        a.mul_(1.0)
        for _ in range(20):
            b.mul_(1.0)
        r = tessel.matmul_relu(a, b, out=out)
    stream.synchronize()
    assert r is out
    torch.testing.assert_close(out, torch.relu(a @ b), rtol=1e-3, atol=1e-2)


def test_stream_k_flags_left_zero_for_each_stream():
    # Stream-K (persistent = 2) keeps its flags across calls, per stream:
    # each call's finishers clear the flags they read, so the next call
    # there needs no memset. Every tile of 1000x1096x1032 is shared (72
    # tiles of 128x128 on 132 SMs); successive calls on two streams, each
    # on new inputs, must all be exact.
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("stream-K is a wgmma (sm_90a) kernel")
    knobs = {"tile_m": 128, "tile_n": 128, "stages": 4, "group_m": 8,
             "persistent": 2, "split_k": 1, "cluster": 1}
    side = torch.cuda.Stream()
    g = torch.Generator(device="cuda").manual_seed(3)
    for i in range(6):
        a = torch.randint(-3, 4, (1000, 1032), device="cuda",
                          generator=g).half()
        b = torch.randint(-3, 4, (1032, 1096), device="cuda",
                          generator=g).half()
        stream = side if i % 2 else torch.cuda.current_stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            c = tessel.matmul_relu(a, b, knobs=knobs)
        torch.cuda.current_stream().wait_stream(stream)
        torch.testing.assert_close(c, torch.relu(a @ b), rtol=0, atol=0)


def test_stream_k_in_a_cuda_graph():
    # Captured into a CUDA graph, a stream-K call keeps no flags across
    # calls: the graph allocates and zeroes its own at each replay. Replays
    # on new inputs (copied into the captured ones) must all be exact.
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("stream-K is a wgmma (sm_90a) kernel")
    knobs = {"tile_m": 128, "tile_n": 128, "stages": 4, "group_m": 8,
             "persistent": 2, "split_k": 1, "cluster": 1}
    g = torch.Generator(device="cuda").manual_seed(5)
    def inputs():
        return (torch.randint(-3, 4, (1000, 1032), device="cuda",
                              generator=g).half(),
                torch.randint(-3, 4, (1032, 1096), device="cuda",
                              generator=g).half())
    a, b = inputs()
    out = torch.empty(1000, 1096, device="cuda", dtype=torch.float16)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up: compiles and loads the kernel
        tessel.matmul_relu(a, b, out=out, knobs=knobs)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tessel.matmul_relu(a, b, out=out, knobs=knobs)
    for _ in range(3):
        na, nb = inputs()
        a.copy_(na)
        b.copy_(nb)
        out.fill_(float("nan"))
        graph.replay()
        torch.testing.assert_close(out, torch.relu(na @ nb), rtol=0, atol=0)


def test_kernel_reports_its_knobs():
    k = tessel.get_kernel(1024, 1024, 1024, "f16")
    assert k.compiled.source.startswith(("tuned: ", "defaults"))
    # On Hopper the wgmma schedule (no tile_k: 64 is fixed), mma.sync elsewhere.
    assert set(k.compiled.knobs) >= {"tile_m", "tile_n", "stages"}


def test_misaligned_view_is_refused():
    base = torch.zeros(1024 * 1024 + 1, device="cuda", dtype=torch.float16)
    a = base[1:].view(1024, 1024)  # 2-byte offset: kernels assume 16
    b = torch.zeros(1024, 1024, device="cuda", dtype=torch.float16)
    with pytest.raises(tessel.TesselError, match="not aligned to 16 bytes"):
        tessel.matmul_relu(a, b)


def test_opening_a_device_leaves_the_thread_context_alone():
    # In a fresh process no context is current; opening a Tessel device must
    # not make one current (on a multi-GPU host that would switch PyTorch's
    # current device).
    code = f"""
import ctypes, sys
sys.path.insert(0, {str(ROOT / "python")!r})
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
ctx = ctypes.c_void_p()
assert cuda.cuCtxGetCurrent(ctypes.byref(ctx)) == 0 and ctx.value is None
from tessel import runtime
runtime.Device.get(0)
assert cuda.cuCtxGetCurrent(ctypes.byref(ctx)) == 0
print("current:", ctx.value)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "current: None"


custom_op = pytest.mark.skipif(not hasattr(torch.library, "custom_op"),
                               reason="torch.library.custom_op: PyTorch 2.4+")


@custom_op
def test_torch_op_passes_opcheck():
    # Schema, fake (meta) kernel and eager kernel agree.
    op = tessel.register_torch_ops()
    assert op is not None and torch.ops.tessel.matmul_relu is not None
    a = torch.randn(77, 40, device="cuda", dtype=torch.float16)
    b = torch.randn(40, 96, device="cuda", dtype=torch.float16)
    torch.library.opcheck(torch.ops.tessel.matmul_relu.default, (a, b))


@custom_op
def test_eager_calls_launch_directly_unless_autograd_needs_the_op(monkeypatch):
    # Plain tensors without grad: the kernel is launched without the op's
    # dispatch; inputs that require grad go through the op. Both compute
    # the same, on PyTorch's current stream (a side stream here).
    op = tessel.register_torch_ops()
    through_op = []
    real = tessel.ops._matmul_relu

    def counting(*args, **kwargs):
        import traceback
        through_op.append(any("custom_op" in f.filename or "_library" in
                              f.filename for f in traceback.extract_stack()))
        return real(*args, **kwargs)

    monkeypatch.setattr(tessel.ops, "_matmul_relu", counting)
    a = torch.randn(77, 40, device="cuda", dtype=torch.float16)
    b = torch.randn(40, 96, device="cuda", dtype=torch.float16)
    want = torch.relu(a.double() @ b.double())
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        direct = tessel.matmul_relu(a, b)
    side.synchronize()
    via_op = tessel.matmul_relu(a, b.clone().requires_grad_())
    assert op is not None and through_op == [False, True]
    for got in (direct, via_op.detach()):
        err = ((got.double() - want).norm() / want.norm()).item()
        assert err < 1e-2, err


@custom_op
@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_torch_compile_traces_without_graph_breaks(dtype):
    # A Linear-like block around Tessel's kernel: torch.compile keeps it in
    # one graph (fullgraph=True fails on any break) and computes the same.
    torch._dynamo.reset()

    def block(x, w, bias):
        return tessel.matmul_relu(x, w) * 0.5 + bias

    x = torch.randn(300, 128, device="cuda", dtype=DTYPES[dtype])
    w = torch.randn(128, 200, device="cuda", dtype=DTYPES[dtype])
    bias = torch.randn(200, device="cuda", dtype=DTYPES[dtype])
    explained = torch._dynamo.explain(block)(x, w, bias)
    assert explained.graph_break_count == 0 and explained.graph_count == 1
    compiled = torch.compile(block, fullgraph=True)
    got = compiled(x, w, bias)
    want = torch.relu(x.double() @ w.double()) * 0.5 + bias.double()
    tol = 1e-2 if dtype != "f32" else 1e-5
    err = ((got.double() - want).norm() / want.norm()).item()
    assert err < tol, err


_ACT = {None: lambda v: v, "relu": torch.relu,
        "gelu": lambda v: torch.nn.functional.gelu(v),
        "gelu_tanh": lambda v: torch.nn.functional.gelu(v, approximate="tanh"),
        "silu": torch.nn.functional.silu}


@pytest.mark.parametrize("dtype,x_shape,out_features,activation,bias", [
    ("bf16", (8, 64, 256), 384, "gelu_tanh", True),   # wgmma, batch dims
    ("f16", (200, 136), 72, "relu", True),             # partial tiles
    ("f16", (77, 131), 100, "silu", True),             # odd K: misaligned rows
    ("bf16", (3, 5, 96), 40, "gelu", False),
    ("f16", (64,), 64, None, True),                    # 1-D input
    ("f32", (96, 40), 80, "gelu_tanh", True),          # SIMT
    ("f32", (33, 17), 9, None, False),                 # identity epilogue
])
def test_linear_matches_pytorch(dtype, x_shape, out_features, activation,
                                bias):
    dt = DTYPES[dtype]
    torch.manual_seed(0)
    layer = torch.nn.Linear(x_shape[-1], out_features, bias=bias,
                            device="cuda", dtype=dt)
    x = torch.randn(*x_shape, device="cuda", dtype=dt)
    got = tessel.linear(x, layer.weight, layer.bias, activation)
    assert got.shape == (*x_shape[:-1], out_features) and got.dtype == dt
    want = _ACT[activation](torch.nn.functional.linear(
        x.double(), layer.weight.double(),
        layer.bias.double() if bias else None))
    err = ((got.double() - want).norm() / want.norm()).item()
    assert err < (1e-2 if dtype != "f32" else 1e-5), err


@pytest.mark.parametrize("dtype", ["bf16", "f32"])
def test_linear_weight_viewed_transposed(dtype):
    # A weight kept (in_features, out_features) and passed as w.t(): the
    # kernel reads B [k, n] as stored.
    dt = DTYPES[dtype]
    torch.manual_seed(1)
    x = torch.randn(300, 700, device="cuda", dtype=dt)
    w_kn = torch.randn(700, 520, device="cuda", dtype=dt) / 700 ** 0.5
    b = torch.randn(520, device="cuda", dtype=dt)
    got = tessel.linear(x, w_kn.t(), b, "gelu_tanh")
    want = _ACT["gelu_tanh"](torch.nn.functional.linear(
        x.double(), w_kn.t().double(), b.double()))
    err = ((got.double() - want).norm() / want.norm()).item()
    assert err < (1e-2 if dtype != "f32" else 1e-5), err


def test_linear_with_no_rows():
    w = torch.randn(16, 32, device="cuda", dtype=torch.float16)
    y = tessel.linear(torch.empty(0, 32, device="cuda", dtype=torch.float16), w)
    assert y.shape == (0, 16)


@custom_op
def test_linear_op_passes_opcheck():
    tessel.register_torch_ops()
    x = torch.randn(2, 33, 40, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(96, 40, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(96, device="cuda", dtype=torch.bfloat16)
    torch.library.opcheck(torch.ops.tessel.linear.default,
                          (x, w, b, "gelu_tanh"))
    torch.library.opcheck(torch.ops.tessel.linear.default, (x, w, None, None))


@custom_op
@pytest.mark.parametrize("dtype", ["bf16", "f32"])
def test_mlp_under_torch_compile_has_no_graph_breaks(dtype):
    # Linear-GELU-Linear with batch dimensions, built from torch.nn.Linear
    # modules: one graph, and the same result as eager PyTorch.
    torch._dynamo.reset()
    dt = DTYPES[dtype]
    torch.manual_seed(0)
    fc1 = torch.nn.Linear(256, 1024, device="cuda", dtype=dt)
    fc2 = torch.nn.Linear(1024, 256, device="cuda", dtype=dt)
    mlp = torch.nn.Sequential(
        tessel.nn.Linear.from_torch(fc1, activation="gelu_tanh"),
        tessel.nn.Linear.from_torch(fc2))
    x = torch.randn(4, 100, 256, device="cuda", dtype=dt)
    with torch.no_grad():  # Tessel's ops have no backward (inference).
        explained = torch._dynamo.explain(mlp)(x)
        assert explained.graph_break_count == 0 and explained.graph_count == 1
        got = torch.compile(mlp, fullgraph=True)(x)
        want = fc2(torch.nn.functional.gelu(fc1(x), approximate="tanh"))
    err = ((got.double() - want.double()).norm()
           / want.double().norm()).item()
    assert err < (2e-2 if dtype != "f32" else 1e-4), err


@custom_op
def test_one_graph_when_tessel_is_imported_before_torch():
    # In a fresh process that imports tessel first, tessel.nn registers the
    # ops on import: tracing the first call does not break the graph to
    # register them.
    code = f"""
import sys
sys.path.insert(0, {str(ROOT / "python")!r})
import tessel
import torch
import tessel.nn
layer = tessel.nn.Linear(64, 32, activation="silu", device="cuda",
                         dtype=torch.float16)
x = torch.randn(5, 64, device="cuda", dtype=torch.float16)
with torch.no_grad():
    e = torch._dynamo.explain(layer)(x)
print("breaks", e.graph_break_count, "graphs", e.graph_count)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "breaks 0 graphs 1"


def test_process_exits_cleanly_with_kernels_alive(tmp_path):
    # Kernels still loaded when the interpreter exits, with PyTorch's CUDA
    # state torn down around them: bench/race.py died of SIGSEGV there.
    code = (
        "import torch, tessel\n"
        "a = torch.randn(256, 128, device='cuda', dtype=torch.float16)\n"
        "b = torch.randn(128, 512, device='cuda', dtype=torch.float16)\n"
        "keep = [tessel.matmul_relu(a, b), tessel.matmul_relu(b.t().contiguous(), a.t().contiguous())]\n"
        "torch.cuda.synchronize()\n"
        "print('done')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            text=True, cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().endswith("done")
