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


def test_transposed_layouts_key_as_the_tuner_does():
    # As tessel-opt --tessel-tune prints it for this IR (fake runner).
    assert tessel.matmul_relu_key(256, 256, 128, "f16", a="km", b="nk") == \
        ("matmul 256x256x128 f16->f16 acc=f32 layout=A[k,m],B[n,k] "
         "epilogue=constant 0;maximumf 0 1")
    ir = tessel.matmul_relu_ir(256, 512, 128, "f16", a="km", b="kn")
    assert "%A: tensor<128x256xf16>, %B: tensor<128x512xf16>" in ir
    assert "affine_map<(m, n, k) -> (k, m)>" in ir
    with pytest.raises(ValueError, match="A's layout 'mn'"):
        tessel.matmul_relu_ir(8, 8, 8, "f16", a="mn")


@pytest.mark.parametrize("m,n,k,dtype,error", [
    (0, 8, 8, "f16", ValueError), (8, -1, 8, "f16", ValueError),
    (8, 8, 8.0, "f16", ValueError), (8, 8, True, "f16", ValueError),
    (8, 8, 8, "f64", TypeError), (8, 8, 8, "float16", TypeError)])
def test_bad_problems(m, n, k, dtype, error):
    with pytest.raises(error):
        tessel.matmul_relu_ir(m, n, k, dtype)
