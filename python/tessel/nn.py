"""Tessel's Linear layer as a torch.nn.Module.

    import torch, tessel.nn
    layer = tessel.nn.Linear.from_torch(torch.nn.Linear(4096, 4096).cuda().half(),
                                        activation="gelu_tanh")
    y = layer(x)    # == F.gelu(torch_layer(x), approximate="tanh"), one kernel

Importing this module imports PyTorch (the rest of the package does not)
and registers torch.ops.tessel.*, so that torch.compile traces these
modules whatever the order of the imports.
"""

import torch

from .ops import linear, register_torch_ops
from .workload import check_activation

register_torch_ops()


class Linear(torch.nn.Linear):
    """torch.nn.Linear followed by an optional activation (None, "relu",
    "gelu", "gelu_tanh", "silu"), computed by one Tessel kernel per input
    shape: bias and activation are fused into the matmul's epilogue. Its
    parameters, state dict and construction are torch.nn.Linear's; inputs
    are CUDA tensors (..., in_features) of the parameters' dtype (float16,
    bfloat16 or float32)."""

    def __init__(self, in_features, out_features, bias=True, activation=None,
                 device=None, dtype=None):
        check_activation(activation)
        super().__init__(in_features, out_features, bias=bias, device=device,
                         dtype=dtype)
        self.activation = activation

    @classmethod
    def from_torch(cls, layer, activation=None):
        """A Linear with `layer`'s (a torch.nn.Linear) parameters, shared
        with it (not copied), on its device and in its dtype."""
        if not isinstance(layer, torch.nn.Linear):
            raise TypeError(f"expected a torch.nn.Linear, got "
                            f"{type(layer).__qualname__}")
        new = cls(layer.in_features, layer.out_features,
                  bias=layer.bias is not None, activation=activation,
                  device="meta", dtype=layer.weight.dtype)
        new.weight = layer.weight
        new.bias = layer.bias
        return new

    def forward(self, x):
        return linear(x, self.weight, self.bias, self.activation)

    def extra_repr(self):
        return (super().extra_repr()
                + (f", activation={self.activation!r}" if self.activation else ""))
