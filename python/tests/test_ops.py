"""tessel.matmul_relu's argument checks: they run before any GPU work, so
CPU tensors exercise all but the device checks."""

import pytest

import tessel

torch = pytest.importorskip("torch")


def t(*shape, dtype=torch.float16):
    return torch.zeros(*shape, dtype=dtype)


@pytest.mark.parametrize("a,b,error,message", [
    ([[1.0]], t(4, 4), TypeError, "a must be a torch.Tensor, got builtins.list"),
    (t(4, 4), None, TypeError, "b must be a torch.Tensor"),
    (t(2, 4, 4), t(4, 4), ValueError, r"a must be a matrix \(2-D\), got shape \(2, 4, 4\)"),
    (t(4), t(4, 4), ValueError, "a must be a matrix"),
    (t(4, 4, dtype=torch.float64), t(4, 4, dtype=torch.float64), TypeError,
     "a has dtype torch.float64; Tessel's matmul_relu takes"),
    (t(4, 4, dtype=torch.int32), t(4, 4, dtype=torch.int32), TypeError, "torch.int32"),
    (t(4, 4), t(4, 4, dtype=torch.bfloat16), TypeError, "same dtype"),
    (t(4, 8), t(4, 4), ValueError, "a is 4x8 and b is 4x4: a's columns must equal b's rows"),
    (t(0, 4), t(4, 4), ValueError, "empty matmul"),
    (t(4, 16)[:, ::2], t(8, 4), ValueError,
     r"a must be contiguous or the transpose of a contiguous matrix, got shape \(4, 8\) and strides \(16, 2\)"),
    (t(4, 8), t(8, 8)[:, ::2], ValueError, "b must be contiguous or the transpose"),
    # Transposed views are read as stored: they reach the device check.
    (t(8, 4).t(), t(8, 4), ValueError, "a is on cpu"),
    (t(4, 8), t(4, 8).t(), ValueError, "a is on cpu"),
    (t(4, 8), t(8, 4), ValueError, "a is on cpu; Tessel's kernels run on CUDA tensors"),
])
def test_bad_arguments(a, b, error, message):
    with pytest.raises(error, match=message):
        tessel.matmul_relu(a, b)


@pytest.mark.parametrize("out,message", [
    (t(4, 4), r"out must be 4x8 torch.float16, got \(4, 4\) torch.float16"),
    (t(4, 8, dtype=torch.float32), r"got \(4, 8\) torch.float32"),
    ("c", "out must be a torch.Tensor"),
    (t(8, 4).t(), r"out must be contiguous \(row-major\), got strides \(1, 4\): the kernel writes C"),
])
def test_bad_out(out, message):
    with pytest.raises((TypeError, ValueError), match=message):
        tessel.matmul_relu(t(4, 16), t(16, 8), out=out)


def test_valid_cpu_arguments_reach_the_device_check():
    with pytest.raises(ValueError, match="a is on cpu"):
        tessel.matmul_relu(t(4, 16), t(16, 8), out=t(4, 8))


def test_torch_op_only_where_custom_op_exists():
    # On PyTorch < 2.4 (Debian's 1.13) there is no op to register, and
    # tessel.matmul_relu stays the eager function.
    op = tessel.register_torch_ops()
    assert (op is None) == (not hasattr(torch.library, "custom_op"))


def test_eager_calls_skip_the_op_only_on_plain_tensors_without_grad():
    # The custom op's dispatch costs more host time than the rest of an
    # eager call, so plain tensors that need no gradient launch directly;
    # anything autograd or a tracer must see goes through the op.
    from tessel.ops import _direct

    a, b = t(4, 8), t(8, 4)
    assert _direct(torch, (a, b, None))
    w = torch.nn.Parameter(t(8, 4))
    assert not _direct(torch, (a, w))  # requires grad, grad mode on
    with torch.no_grad():
        assert _direct(torch, (a, w))
    assert not _direct(torch, (a, b.requires_grad_()))

    class Sub(torch.Tensor):
        pass

    assert not _direct(torch, (a, t(8, 4).as_subclass(Sub)))
