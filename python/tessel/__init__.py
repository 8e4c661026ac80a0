"""Tessel from Python: compile, tune and run Tessel's GPU kernels.

    import torch, tessel
    c = tessel.matmul_relu(a, b)     # relu(a @ b) on CUDA tensors
    y = tessel.linear(x, w, b, activation="gelu_tanh")
                                     # gelu(x @ w.T + b), one kernel
    import tessel.nn                 # tessel.nn.Linear, a torch.nn.Module

Compiling and tuning drive tessel-opt; running goes through Tessel's runtime
(libTesselCAPI.so, loaded with ctypes). PyTorch is imported only by the
functions that take tensors.
"""

import sys as _sys

from .compiler import (CompiledKernel, TesselWarning, compile_linear,
                       compile_matmul_relu, default_databases, default_schedule, default_schedules,
                       tune_matmul_relu, user_database)
from .database import Database, Record
from .errors import TesselError
from .ops import (Kernel, get_kernel, get_linear_kernel, linear, matmul_relu,
                  register_torch_ops)
from .workload import ACTIVATIONS, DTYPES, linear_ir, matmul_relu_ir, matmul_relu_key

__version__ = "0.1.0"

# torch.ops.tessel.matmul_relu, for torch.compile, when PyTorch is loaded
# already (this package does not load it itself: its tools need no torch).
if "torch" in _sys.modules:
    register_torch_ops()

__all__ = [
    "ACTIVATIONS", "CompiledKernel", "DTYPES", "Database", "Kernel", "Record",
    "TesselError", "TesselWarning", "compile_linear", "compile_matmul_relu",
    "default_databases", "default_schedule", "default_schedules",
    "get_kernel", "get_linear_kernel", "linear", "linear_ir", "matmul_relu",
    "matmul_relu_ir", "matmul_relu_key", "register_torch_ops",
    "tune_matmul_relu", "user_database",
]
