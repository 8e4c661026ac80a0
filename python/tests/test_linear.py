"""tessel.linear's and tessel.nn.Linear's argument checks: they run before
any GPU work, so CPU tensors exercise all but the device checks."""

import pytest

import tessel

torch = pytest.importorskip("torch")
import tessel.nn  # noqa: E402  (imports torch)


def t(*shape, dtype=torch.float16):
    return torch.zeros(*shape, dtype=dtype)


@pytest.mark.parametrize("x,w,b,act,error,message", [
    ([[1.0]], t(4, 8), None, None, TypeError, "x must be a torch.Tensor, got builtins.list"),
    (t(2, 8), "w", None, None, TypeError, "weight must be a torch.Tensor"),
    (t(2, 8), t(4, 8), 1.0, None, TypeError, "bias must be a torch.Tensor or None, got builtins.float"),
    (t(2, 8), t(4, 8), None, "tanh", ValueError, "activation 'tanh' is not one of None, 'relu', 'gelu', 'gelu_tanh', 'silu'"),
    (torch.tensor(1.0, dtype=torch.float16), t(4, 8), None, None, ValueError, "x must have at least one dimension"),
    (t(2, 8), t(4, 8, 1), None, None, ValueError, r"weight must be \(out_features, in_features\), got shape \(4, 8, 1\)"),
    (t(2, 8, dtype=torch.float64), t(4, 8, dtype=torch.float64), None, None, TypeError,
     "x has dtype torch.float64; Tessel's linear takes"),
    (t(2, 8), t(4, 8, dtype=torch.bfloat16), None, None, TypeError,
     "weight has dtype torch.bfloat16 and x torch.float16: they must be the same"),
    (t(2, 8), t(4, 8), t(4, dtype=torch.float32), None, TypeError, "bias has dtype torch.float32"),
    (t(2, 3, 8), t(4, 6), None, None, ValueError,
     r"x is \(2, 3, 8\) and weight is 4x6: x's last dimension must equal weight's in_features \(6\)"),
    (t(2, 8), t(4, 8), t(8), None, ValueError, r"bias must have shape \(4,\) \(out_features\), got \(8,\)"),
    (t(2, 0), t(4, 0), None, None, ValueError, r"empty weight \(4x0\)"),
    (t(8, 2).t(), t(4, 8), None, None, ValueError, r"x must be contiguous \(row-major\)"),
    (t(2, 8), t(4, 16)[:, ::2], None, None, ValueError,
     "weight must be contiguous or the transpose of a contiguous matrix"),
    # A weight stored (in_features, out_features) and viewed transposed is
    # read as stored: it reaches the device check.
    (t(2, 8), t(8, 4).t(), None, None, ValueError, "x is on cpu"),
    (t(2, 8), t(4, 8), t(8)[::2], None, ValueError, "bias must be contiguous"),
    (t(2, 3, 8), t(4, 8), t(4), "gelu_tanh", ValueError, "x is on cpu; Tessel's kernels run on CUDA tensors"),
])
def test_bad_arguments(x, w, b, act, error, message):
    with pytest.raises(error, match=message):
        tessel.linear(x, w, b, act)


def test_module_holds_torch_linear_parameters():
    base = torch.nn.Linear(8, 4)
    layer = tessel.nn.Linear.from_torch(base, activation="silu")
    assert layer.weight is base.weight and layer.bias is base.bias
    assert layer.state_dict().keys() == base.state_dict().keys()
    assert "activation='silu'" in repr(layer)
    no_bias = tessel.nn.Linear.from_torch(torch.nn.Linear(8, 4, bias=False))
    assert no_bias.bias is None and no_bias.activation is None
    with pytest.raises(ValueError, match="x is on cpu"):
        layer(torch.zeros(3, 8))


def test_module_checks_its_activation_and_source():
    with pytest.raises(ValueError, match="activation 'tanh' is not one of"):
        tessel.nn.Linear(8, 4, activation="tanh")
    with pytest.raises(TypeError, match="expected a torch.nn.Linear, got Conv1d"):
        tessel.nn.Linear.from_torch(torch.nn.Conv1d(1, 1, 1))


def test_identity_epilogue_in_f32_survives_the_schedules():
    # No bias, no activation, f32: an identity epilogue would be erased
    # under the schedule's handles; linear_ir adds +0.0 (exact here).
    ir = tessel.linear_ir(8, 4, 16, "f32", bias=False, activation=None)
    assert "arith.addf %v, %fzero : f32" in ir
