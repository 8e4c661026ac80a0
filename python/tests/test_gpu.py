"""tessel.matmul_relu on a GPU against torch.relu(a @ b) (skipped without)."""

import subprocess
import sys

import pytest

import tessel
from conftest import ROOT, requires_gpu

pytestmark = requires_gpu
torch = pytest.importorskip("torch")

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
