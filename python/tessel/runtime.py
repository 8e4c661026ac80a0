"""ctypes binding of Tessel's runtime C API (include/tessel-c/Runtime.h).

    spec = FunctionSpec("out/matmul_relu.launch.json")   # no GPU needed
    dev = Device.get(0)                                   # opens the GPU
    fn = Function(dev, spec)
    fn.launch([a_ptr, b_ptr, c_ptr], stream)              # CUstream or 0

Every failure raises TesselError with the runtime's message.
"""

import atexit
import ctypes
import dataclasses
import threading

from . import install
from .errors import TesselError

_lock = threading.Lock()
_lib = None
# Set when the interpreter exits: objects collected after that free nothing
# through the C API. The process's end releases its GPU resources, and
# PyTorch may have torn down the CUDA context by then (bench/race.py died of
# SIGSEGV at exit when a kernel's modules were unloaded into it).
_exiting = False


@atexit.register
def _at_exit():
    global _exiting
    _exiting = True


def _declare(lib):
    c = ctypes
    sigs = {
        "tesselGetVersion": (c.c_char_p, []),
        "tesselGetLastError": (c.c_char_p, []),
        "tesselFunctionSpecRead": (c.c_int, [c.c_char_p, c.POINTER(c.c_void_p)]),
        "tesselFunctionSpecDestroy": (None, [c.c_void_p]),
        "tesselFunctionSpecGetName": (c.c_char_p, [c.c_void_p]),
        "tesselFunctionSpecGetNumArguments": (c.c_int, [c.c_void_p]),
        "tesselFunctionSpecGetArgumentType": (c.c_char_p, [c.c_void_p, c.c_int]),
        "tesselFunctionSpecGetArgumentRank": (c.c_int, [c.c_void_p, c.c_int]),
        "tesselFunctionSpecGetArgumentDim": (c.c_int64, [c.c_void_p, c.c_int, c.c_int]),
        "tesselFunctionSpecIsArgumentWritten": (c.c_int, [c.c_void_p, c.c_int]),
        "tesselDeviceOpen": (c.c_int, [c.c_int, c.POINTER(c.c_void_p)]),
        "tesselDeviceClose": (None, [c.c_void_p]),
        "tesselDeviceGetName": (c.c_char_p, [c.c_void_p]),
        "tesselDeviceGetChip": (c.c_char_p, [c.c_void_p]),
        "tesselDeviceGetMultiprocessorCount": (c.c_int, [c.c_void_p]),
        "tesselFunctionLoad": (c.c_int, [c.c_void_p, c.c_void_p, c.c_char_p,
                                         c.POINTER(c.c_void_p)]),
        "tesselFunctionDestroy": (None, [c.c_void_p]),
        "tesselFunctionLaunch": (c.c_int, [c.c_void_p, c.POINTER(c.c_uint64),
                                           c.c_int, c.c_void_p]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes


def _preload_bundled_libraries(directory):
    """In a bundle (scripts/make-bundle.sh), lib/ holds libLLVM and its own
    dependencies (libxml2, ICU, z3...). libTesselCAPI.so finds libLLVM
    beside it, but libLLVM's dependencies are searched on the system only
    (RUNPATH does not carry over), so load them first: a library already
    loaded satisfies later dependencies by name."""
    pending = sorted(p for p in directory.glob("lib*.so*")
                     if p.name != "libTesselCAPI.so")
    while pending:
        failed = []
        for path in pending:
            try:
                ctypes.CDLL(str(path))
            except OSError:
                failed.append(path)  # A dependency may not be loaded yet.
        if len(failed) == len(pending):
            return  # Loading libTesselCAPI.so reports what is missing.
        pending = failed


def library():
    """The loaded libTesselCAPI.so (loaded on first use)."""
    global _lib
    with _lock:
        if _lib is None:
            path = install.capi_library()
            try:
                if (path.parent / "libLLVM.so.22.1").is_file():
                    _preload_bundled_libraries(path.parent)
                lib = ctypes.CDLL(str(path))
                _declare(lib)
            except (OSError, AttributeError) as e:
                raise TesselError(f"cannot load Tessel's runtime library "
                                  f"'{path}': {e}") from None
            _lib = lib
        return _lib


def _check(status):
    if status != 0:
        raise TesselError(library().tesselGetLastError().decode())


def version():
    return library().tesselGetVersion().decode()


@dataclasses.dataclass(frozen=True)
class Argument:
    dtype: str      # "f16", "bf16", "f32", ...
    shape: tuple
    written: bool   # The function writes it (a result).


class FunctionSpec:
    """A host function's launch metadata, read and validated."""

    def __init__(self, path):
        lib = library()
        handle = ctypes.c_void_p()
        _check(lib.tesselFunctionSpecRead(str(path).encode(),
                                          ctypes.byref(handle)))
        self._handle = handle
        self.path = str(path)
        self.name = lib.tesselFunctionSpecGetName(handle).decode()
        args = []
        for i in range(lib.tesselFunctionSpecGetNumArguments(handle)):
            rank = lib.tesselFunctionSpecGetArgumentRank(handle, i)
            args.append(Argument(
                dtype=lib.tesselFunctionSpecGetArgumentType(handle, i).decode(),
                shape=tuple(lib.tesselFunctionSpecGetArgumentDim(handle, i, d)
                            for d in range(rank)),
                written=bool(lib.tesselFunctionSpecIsArgumentWritten(handle, i))))
        self.arguments = tuple(args)

    def __del__(self):
        if getattr(self, "_handle", None) and _lib is not None and not _exiting:
            _lib.tesselFunctionSpecDestroy(self._handle)


class Device:
    """A GPU, through its primary context (the one PyTorch uses)."""

    _open = {}

    def __init__(self, ordinal):
        lib = library()
        handle = ctypes.c_void_p()
        _check(lib.tesselDeviceOpen(int(ordinal), ctypes.byref(handle)))
        self._handle = handle
        self.ordinal = ordinal
        self.name = lib.tesselDeviceGetName(handle).decode()
        self.chip = lib.tesselDeviceGetChip(handle).decode()
        self.sm_count = lib.tesselDeviceGetMultiprocessorCount(handle)

    @classmethod
    def get(cls, ordinal=0):
        """The process-wide Device for `ordinal`, opened on first use."""
        with _lock:
            device = cls._open.get(ordinal)
        if device is None:
            device = cls(ordinal)
            with _lock:
                device = cls._open.setdefault(ordinal, device)
        return device

    @property
    def key(self):
        """How tuning databases name it: "NVIDIA H100 80GB HBM3 (sm_90)"."""
        return f"{self.name} ({self.chip})"

    def __del__(self):
        if getattr(self, "_handle", None) and _lib is not None and not _exiting:
            _lib.tesselDeviceClose(self._handle)


class Function:
    """A host function's kernels, loaded on a device."""

    def __init__(self, device, spec, directory=None):
        handle = ctypes.c_void_p()
        _check(library().tesselFunctionLoad(
            device._handle, spec._handle,
            str(directory).encode() if directory is not None else None,
            ctypes.byref(handle)))
        self._handle = handle
        self.device = device  # Outlives the function.
        self.spec = spec

    def launch(self, pointers, stream=0):
        """Enqueues the kernels on `stream` (a CUstream as an int; 0 is the
        legacy default stream); `pointers[i]` is argument i's address."""
        array = (ctypes.c_uint64 * len(pointers))(*pointers)
        _check(_lib.tesselFunctionLaunch(self._handle, array, len(pointers),
                                         stream or None))

    def __del__(self):
        if getattr(self, "_handle", None) and _lib is not None and not _exiting:
            _lib.tesselFunctionDestroy(self._handle)
