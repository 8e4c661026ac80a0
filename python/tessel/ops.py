"""Tessel's kernels on PyTorch tensors.

    import torch, tessel
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    c = tessel.matmul_relu(a, b)        # == torch.relu(a @ b), one kernel
    w = torch.randn(1024, 4096, device="cuda", dtype=torch.float16)
    bias = torch.randn(1024, device="cuda", dtype=torch.float16)
    y = tessel.linear(a, w, bias, activation="gelu_tanh")
                                        # == F.gelu(F.linear(a, w, bias), approximate="tanh")

The kernel for each (shape, dtype, device) is compiled once per process
(and cached on disk), with the knobs tuned for the GPU when a tuning
database has them. Kernels run on the tensors' memory (their data_ptr) on
PyTorch's current stream; nothing is copied or synchronized.
"""

import math
import threading
from typing import Optional

from . import runtime
from .compiler import compile_linear, compile_matmul_relu
from .errors import TesselError
from .workload import check_activation

# torch dtype (as str(), so this module needs no torch import) -> Tessel's.
_DTYPES = {"torch.float16": "f16", "torch.bfloat16": "bf16",
           "torch.float32": "f32"}
_TORCH_NAMES = {v: k for k, v in _DTYPES.items()}


def _torch():
    try:
        import torch
    except ImportError:
        raise TesselError("tessel.matmul_relu needs PyTorch "
                          "(pip install torch)") from None
    return torch


def _direct(torch, tensors):
    """Whether a call on `tensors` (None entries ignored) launches the
    kernel itself rather than through its torch.library op: in eager mode,
    on plain tensors that need no gradient. The op's dispatch costs about
    35 us of host time per call (H100 host, torch 2.11;
    bench/results/call-overhead), more than the rest of the call. Tracing
    (torch.compile, FakeTensors), tensor subclasses and inputs that
    require grad still go through the op, so that tracers and autograd
    see it (it has no backward formula)."""
    is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling",
                           None)
    if is_compiling is not None and is_compiling():
        return False
    grad = torch.is_grad_enabled()
    plain = (torch.Tensor, torch.nn.Parameter)
    for t in tensors:
        if t is None:
            continue
        if type(t) not in plain or (grad and t.requires_grad):
            return False
    return True


def _check_tensor(name, t, torch):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got "
                        f"{type(t).__module__}.{type(t).__qualname__}")
    if t.dim() != 2:
        raise ValueError(f"{name} must be a matrix (2-D), got shape "
                         f"{tuple(t.shape)}")
    if str(t.dtype) not in _DTYPES:
        raise TypeError(f"{name} has dtype {t.dtype}; Tessel's matmul_relu "
                        "takes torch.float16, torch.bfloat16 or "
                        "torch.float32")


def _check_contiguous(name, t):
    if not t.is_contiguous():
        raise ValueError(f"{name} must be contiguous (row-major), got strides "
                         f"{t.stride()}; pass {name}.contiguous()")


def _layout(name, t, plain, transposed):
    """How the matrix `t` is stored: `plain` when row-major (contiguous),
    `transposed` when its transpose is (a view such as w.t() or
    x.transpose(0, 1) of a contiguous tensor); ValueError otherwise."""
    if t.is_contiguous():
        return plain
    if t.t().is_contiguous():
        return transposed
    raise ValueError(f"{name} must be contiguous or the transpose of a "
                     f"contiguous matrix, got shape {tuple(t.shape)} and "
                     f"strides {t.stride()}; pass {name}.contiguous()")


def _check_cuda(name, t):
    if not t.is_cuda:
        raise ValueError(f"{name} is on {t.device}; Tessel's kernels run on "
                         "CUDA tensors")


def _check_devices(named):
    """Each (name, tensor) of `named` whose tensor is not None is a CUDA
    tensor on the first one's device."""
    first, reference = named[0]
    for name, tensor in named:
        if tensor is not None:
            _check_cuda(name, tensor)
            if tensor.get_device() != reference.get_device():
                raise ValueError(f"{name} is on {tensor.device}, {first} on "
                                 f"{reference.device}")


def _current_stream(torch, index):
    """PyTorch's current CUDA stream on GPU `index`, as a CUstream int.
    torch._C._cuda_getCurrentRawStream (what Triton's launcher calls) takes
    about 0.2 us; torch.cuda.current_stream(...).cuda_stream about 5
    (H100 host, bench/results/call-overhead)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(index)
    return torch.cuda.current_stream(index).cuda_stream


class Kernel:
    """One compiled function loaded on one GPU, callable on tensors whose
    shapes and dtypes are those it was compiled for."""

    def __init__(self, compiled, device):
        self.compiled = compiled
        self.device = device
        self.spec = runtime.FunctionSpec(compiled.launch_file)
        self.function = runtime.Function(device, self.spec)

    def __call__(self, *tensors):
        """Launches on `tensors` (one per argument, results included, as
        torch tensors on this kernel's GPU) on the current stream."""
        torch = _torch()
        args = self.spec.arguments
        if len(tensors) != len(args):
            raise TypeError(f"{self.spec.name} takes {len(args)} tensors, "
                            f"{len(tensors)} given")
        for i, (t, arg) in enumerate(zip(tensors, args)):
            name = f"argument #{i}"
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor")
            if t.shape != arg.shape or \
                    _DTYPES.get(str(t.dtype)) != arg.dtype:
                raise ValueError(
                    f"{name} is {tuple(t.shape)} {t.dtype}; the kernel was "
                    f"compiled for {arg.shape} {_TORCH_NAMES.get(arg.dtype, arg.dtype)}")
            _check_contiguous(name, t)
            _check_cuda(name, t)
            if t.get_device() != self.device.ordinal:
                raise ValueError(f"{name} is on {t.device}; this kernel is "
                                 f"loaded on cuda:{self.device.ordinal}")
        self._launch(torch, tensors)

    def _launch(self, torch, tensors):
        """Launches on tensors already checked against the kernel."""
        self.function.launch([t.data_ptr() for t in tensors],
                             _current_stream(torch, tensors[0].get_device()))


_kernels = {}
_kernels_lock = threading.Lock()


def _cached_kernel(problem, compile_fn, device_ordinal, knobs, schedule,
                   databases):
    """The Kernel of `problem` (a hashable description) on GPU
    `device_ordinal`, compiled by compile_fn(**options) and loaded on first
    use."""
    key = (problem, device_ordinal,
           tuple(sorted(dict(knobs).items())) if isinstance(knobs, dict)
           else knobs, str(schedule) if schedule else None,
           tuple(map(str, databases)) if databases is not None else None)
    with _kernels_lock:
        kernel = _kernels.get(key)
    if kernel is None:
        device = runtime.Device.get(device_ordinal)
        compiled = compile_fn(schedule=schedule, knobs=knobs,
                              device=device.key, databases=databases,
                              chip=device.chip, sm_count=device.sm_count)
        kernel = Kernel(compiled, device)
        with _kernels_lock:
            kernel = _kernels.setdefault(key, kernel)
    return kernel


def get_kernel(m, n, k, dtype, device_ordinal=0, *, knobs=None,
               schedule=None, databases=None, a="mk", b="kn"):
    """The Kernel for relu(A x B) with A m x k, B k x n in `dtype` ("f16",
    "bf16", "f32"), A stored `a` ("mk" or "km") and B `b` ("kn" or "nk"),
    on GPU `device_ordinal`, compiled and loaded on first use: for any
    shape, with the knobs tuned for that GPU where a record exists, else
    the rule's (see compile_matmul_relu)."""
    return _cached_kernel(
        ("matmul_relu", m, n, k, dtype, a, b),
        lambda **o: compile_matmul_relu(m, n, k, dtype, a=a, b=b, **o),
        device_ordinal, knobs, schedule, databases)


def get_linear_kernel(m, n, k, dtype, device_ordinal=0, *, bias=True,
                      activation=None, knobs=None, schedule=None,
                      databases=None, allow_tf32=False, weight="nk"):
    """The Kernel for a Linear layer (see compile_linear: x m x k, the
    weight stored `weight`, "nk" (n x k) or "kn", an optional bias, an
    activation, f32 inputs multiplied as TF32 if `allow_tf32`) on GPU
    `device_ordinal`, compiled and loaded on first use."""
    allow_tf32 = bool(allow_tf32) and dtype == "f32"
    return _cached_kernel(
        ("linear", m, n, k, dtype, bool(bias), activation, allow_tf32,
         weight),
        lambda **o: compile_linear(m, n, k, dtype, bias=bias,
                                   activation=activation, weight=weight,
                                   allow_tf32=allow_tf32, **o),
        device_ordinal, knobs, schedule, databases)


# torch.ops.tessel.matmul_relu once registered (register_torch_ops); None
# before, False where this PyTorch has no torch.library.custom_op (< 2.4).
# _linear_op: torch.ops.tessel.linear, registered with it.
_op = None
_linear_op = None
_op_lock = threading.Lock()


def register_torch_ops():
    """Registers `torch.ops.tessel.matmul_relu(a, b)` and
    `torch.ops.tessel.linear(x, weight, bias, activation)` (torch.library
    custom ops with fake kernels, so torch.compile traces calls to them,
    and to tessel.matmul_relu and tessel.linear, without a graph break) and
    returns matmul_relu's; None on a PyTorch without
    torch.library.custom_op. Importing tessel after torch registers them;
    so does the first eager call of tessel.matmul_relu or tessel.linear."""
    global _op
    with _op_lock:
        if _op is None:
            _op = _make_op(_torch()) or False
    return _op or None


def _make_op(torch):
    library = getattr(torch, "library", None)
    if not hasattr(library, "custom_op"):
        return None

    @library.custom_op("tessel::matmul_relu", mutates_args=())
    def op(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return _matmul_relu(a, b)

    @op.register_fake
    def _(a, b):
        # What the eager kernel checks that shapes and dtypes can tell.
        _check_operands(a, b, torch)
        return a.new_empty((a.shape[0], b.shape[1]))

    @library.custom_op("tessel::linear", mutates_args=())
    def linear_op(x: torch.Tensor, weight: torch.Tensor,
                  bias: Optional[torch.Tensor] = None,
                  activation: Optional[str] = None) -> torch.Tensor:
        return _linear(x, weight, bias, activation)

    @linear_op.register_fake
    def _(x, weight, bias=None, activation=None):
        _check_linear(x, weight, bias, activation, torch)
        return x.new_empty((*x.shape[:-1], weight.shape[0]))

    global _linear_op
    _linear_op = linear_op
    return op


def _check_operands(a, b, torch):
    """The checks of a and b that need no GPU; returns (m, n, k)."""
    _check_tensor("a", a, torch)
    _check_tensor("b", b, torch)
    if a.dtype != b.dtype:
        raise TypeError(f"a and b must have the same dtype, got {a.dtype} "
                        f"and {b.dtype}")
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2:
        raise ValueError(f"a is {m}x{k} and b is {k2}x{n}: a's columns must "
                         "equal b's rows")
    if 0 in (m, n, k):
        raise ValueError(f"empty matmul ({m}x{n}x{k}) is not supported")
    return m, n, k


def matmul_relu(a, b, *, out=None, knobs=None, schedule=None,
                databases=None):
    """relu(a @ b) for 2-D CUDA tensors a (m x k) and b (k x n) of the same
    dtype (float16, bfloat16 or float32; f32 accumulation), computed by
    Tessel's kernel for that shape on a's GPU, on the current stream. Each
    of a and b is contiguous or the transpose of a contiguous matrix (such
    as x.t()); the kernel reads it as stored.

    out: an m x n contiguous tensor of the same dtype and device to write
    (default: a new one). knobs/schedule/databases: see compile_matmul_relu.
    Raises TypeError/ValueError for unsupported arguments, TesselError when
    compiling or launching fails.

    Without out/knobs/schedule/databases, on PyTorch 2.4 or later, the call
    goes through torch.ops.tessel.matmul_relu, which torch.compile traces
    into its graph, when torch.compile traces it, on tensor subclasses, or
    on inputs that require grad; in eager mode otherwise it launches the
    kernel directly (the op's dispatch would cost more host time than the
    rest of the call).
    """
    if out is None and knobs is None and schedule is None and \
            databases is None:
        op = _op if _op is not None else register_torch_ops()
        # Anything but two tensors gets the eager path's TypeError, not
        # the dispatcher's schema error.
        torch = _torch()
        if op and isinstance(a, torch.Tensor) and \
                isinstance(b, torch.Tensor) and not _direct(torch, (a, b)):
            return op(a, b)
    return _matmul_relu(a, b, out=out, knobs=knobs, schedule=schedule,
                        databases=databases)


def _matmul_relu(a, b, *, out=None, knobs=None, schedule=None,
                 databases=None):
    torch = _torch()
    m, n, k = _check_operands(a, b, torch)
    a_stored = _layout("a", a, "mk", "km")
    b_stored = _layout("b", b, "kn", "nk")
    if out is not None:
        _check_tensor("out", out, torch)
        if out.dtype != a.dtype or tuple(out.shape) != (m, n):
            raise ValueError(f"out must be {m}x{n} {a.dtype}, got "
                             f"{tuple(out.shape)} {out.dtype}")
        if not out.is_contiguous():
            # Not "pass out.contiguous()": the kernel would write a copy.
            raise ValueError(f"out must be contiguous (row-major), got "
                             f"strides {out.stride()}: the kernel writes C "
                             f"[m, n] in place, and a transposed or strided "
                             f"view of it is not supported")
    # Device checks last: everything above is checkable without a GPU.
    _check_devices((("a", a), ("b", b), ("out", out)))
    if out is None:
        out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    kernel = get_kernel(m, n, k, _DTYPES[str(a.dtype)], a.device.index or 0,
                        knobs=knobs, schedule=schedule, databases=databases,
                        a=a_stored, b=b_stored)
    # The checks above cover Kernel.__call__'s: the kernel was chosen by
    # a's shape, dtype and device.
    kernel._launch(torch, (a, b, out))
    return out


def _check_linear(x, weight, bias, activation, torch):
    """The checks of tessel.linear's arguments that need no GPU; returns
    (m, n, k): x's rows (its leading dimensions flattened), out_features,
    in_features."""
    check_activation(activation)
    for name, t in (("x", x), ("weight", weight)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got "
                            f"{type(t).__module__}.{type(t).__qualname__}")
    if bias is not None and not isinstance(bias, torch.Tensor):
        raise TypeError(f"bias must be a torch.Tensor or None, got "
                        f"{type(bias).__module__}.{type(bias).__qualname__}")
    if x.dim() < 1:
        raise ValueError("x must have at least one dimension (..., "
                         "in_features), got a scalar")
    if weight.dim() != 2:
        raise ValueError(f"weight must be (out_features, in_features), got "
                         f"shape {tuple(weight.shape)}")
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        if t is not None and str(t.dtype) not in _DTYPES:
            raise TypeError(f"{name} has dtype {t.dtype}; Tessel's linear "
                            "takes torch.float16, torch.bfloat16 or "
                            "torch.float32")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.dtype != x.dtype:
            raise TypeError(f"{name} has dtype {t.dtype} and x {x.dtype}: "
                            "they must be the same")
    n, k = weight.shape
    if x.shape[-1] != k:
        raise ValueError(f"x is {tuple(x.shape)} and weight is {n}x{k}: x's "
                         "last dimension must equal weight's in_features "
                         f"({k})")
    if bias is not None and tuple(bias.shape) != (n,):
        raise ValueError(f"bias must have shape ({n},) (out_features), got "
                         f"{tuple(bias.shape)}")
    if n == 0 or k == 0:
        raise ValueError(f"empty weight ({n}x{k}) is not supported")
    return math.prod(x.shape[:-1]), n, k


def linear(x, weight, bias=None, activation=None, *, knobs=None,
           schedule=None, databases=None):
    """activation(x @ weight.T + bias), as torch.nn.functional.linear then
    the activation, in one Tessel kernel: x (..., in_features), weight
    (out_features, in_features), bias (out_features,) or None, all CUDA
    tensors of one dtype (float16, bfloat16 or float32; f32 accumulation).
    activation: None, "relu", "gelu" (erf), "gelu_tanh" (PyTorch's
    approximate="tanh") or "silu". Returns a new (..., out_features)
    tensor. x must be contiguous; weight contiguous or the transpose of
    a contiguous (in_features, out_features) matrix. An x with no rows
    gives an empty result. float32 on Hopper runs on tensor cores with FP32-level
    accuracy (3xTF32), or as TF32 when torch.backends.cuda.matmul.allow_tf32
    is set (docs/f32.md).

    knobs/schedule/databases: see compile_matmul_relu. Raises
    TypeError/ValueError for unsupported arguments (before any GPU work),
    TesselError when compiling or launching fails. Without them, on PyTorch
    2.4 or later, the call goes through torch.ops.tessel.linear, which
    torch.compile traces into its graph, as matmul_relu's does (in eager
    mode on plain tensors that need no gradient, the kernel is launched
    directly).
    """
    if knobs is None and schedule is None and databases is None:
        if _op is None:
            register_torch_ops()
        torch = _torch()
        if _linear_op and isinstance(x, torch.Tensor) and \
                isinstance(weight, torch.Tensor) and \
                (bias is None or isinstance(bias, torch.Tensor)) and \
                (activation is None or isinstance(activation, str)) and \
                not _direct(torch, (x, weight, bias)):
            return _linear_op(x, weight, bias, activation)
    return _linear(x, weight, bias, activation, knobs=knobs,
                   schedule=schedule, databases=databases)


def _linear(x, weight, bias, activation, *, knobs=None, schedule=None,
            databases=None):
    torch = _torch()
    m, n, k = _check_linear(x, weight, bias, activation, torch)
    _check_contiguous("x", x)
    w_stored = _layout("weight", weight, "nk", "kn")
    if bias is not None:
        _check_contiguous("bias", bias)
    _check_devices((("x", x), ("weight", weight), ("bias", bias)))
    out = torch.empty((*x.shape[:-1], n), dtype=x.dtype, device=x.device)
    if m == 0:
        return out
    # f32 follows PyTorch's own switch for TF32 matmuls (off by default):
    # off, tensor cores keep FP32-level accuracy (3xTF32).
    kernel = get_linear_kernel(
        m, n, k, _DTYPES[str(x.dtype)], x.device.index or 0,
        bias=bias is not None, activation=activation, knobs=knobs,
        schedule=schedule, databases=databases,
        allow_tf32=torch.backends.cuda.matmul.allow_tf32, weight=w_stored)
    args = (x, weight) + ((bias,) if bias is not None else ()) + (out,)
    kernel._launch(torch, args)
    return out
