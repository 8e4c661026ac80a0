import pytest

import tessel
from conftest import ROOT


def test_ir_is_the_bundled_example():
    text = (ROOT / "examples" / "matmul_relu_128x4096x4096_f16.mlir").read_text()
    assert tessel.matmul_relu_ir(128, 4096, 4096, "f16") == text


def test_f32_has_no_truncation():
    ir = tessel.matmul_relu_ir(64, 32, 16, "f32")
    assert "truncf" not in ir and "tensor<64x16xf32>" in ir


def test_key_matches_the_tuner():
    assert tessel.matmul_relu_key(4096, 1024, 512, "bf16") == \
        "matmul_relu 4096x1024x512 bf16->bf16 acc=f32"


@pytest.mark.parametrize("m,n,k,dtype,error", [
    (0, 8, 8, "f16", ValueError), (8, -1, 8, "f16", ValueError),
    (8, 8, 8.0, "f16", ValueError), (8, 8, True, "f16", ValueError),
    (8, 8, 8, "f64", TypeError), (8, 8, 8, "float16", TypeError)])
def test_bad_problems(m, n, k, dtype, error):
    with pytest.raises(error):
        tessel.matmul_relu_ir(m, n, k, dtype)
