"""lit configuration for users' own tests of Tessel pipelines and schedules.

A test folder needs only this `lit.cfg.py`:

    import tessel.lit
    tessel.lit.configure(config, lit_config)

and runs with `tessel lit FOLDER` (or `python3 -m tessel lit FOLDER`, or
plain `lit FOLDER` where this package is importable). Tests are `.mlir`
and `.test` files whose RUN lines use `tessel-opt`, `tessel-run`,
`FileCheck`, `not`, `count` and `split-file` by name (their folders lead
PATH) and these substitutions:

    %tessel_schedules   the schedule libraries (matmul_relu_wgmma.mlir, ...)
    %tessel_home        the Tessel checkout, bundle or install prefix in use

A GPU that the CUDA driver can use adds the feature `cuda-gpu`
(`REQUIRES: cuda-gpu`), ptxas on PATH the feature `ptxas`.
"""

import ctypes
import glob
import os
import pathlib
import shutil

from . import install
from .errors import TesselError

LLVM_TOOLS = ("FileCheck", "not", "count", "split-file")


def has_cuda_gpu():
    """A usable NVIDIA GPU: the driver library loads and reports a device."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return False
    return count.value > 0


def llvm_tools_dir():
    """A folder holding FileCheck and not: $TESSEL_LLVM_TOOLS, PATH, a
    bundle's test-tools/, or Debian's LLVM (newest first)."""
    env = os.environ.get("TESSEL_LLVM_TOOLS")
    candidates = [pathlib.Path(env)] if env else []
    found = shutil.which("FileCheck")
    if found:
        candidates.append(pathlib.Path(found).parent)
    h = install.home()
    if h:
        candidates.append(h / "test-tools")
    candidates += [pathlib.Path(d) for d in sorted(
        glob.glob("/usr/lib/llvm-*/bin"),
        key=lambda d: int(d.split("-")[-1].split("/")[0]), reverse=True)]
    for d in candidates:
        if (d / "FileCheck").is_file() and (d / "not").is_file():
            return d
    raise TesselError(
        "cannot find FileCheck and not (looked in: " +
        ", ".join(map(str, candidates)) + "); install llvm-22-tools or set "
        "TESSEL_LLVM_TOOLS to the folder that holds them")


def configure(config, lit_config=None):
    """Makes `config` (a lit TestingConfig) run a user's Tessel tests."""
    import lit.formats

    opt = install.tool("tessel-opt")
    tools = [opt.parent, llvm_tools_dir()]
    try:
        tools.append(install.tool("tessel-run").parent)
    except TesselError:
        pass  # Tests without tessel-run still run.
    if config.name in ("", "<unnamed>"):
        config.name = "tessel-user"
    if config.test_format is None:
        config.test_format = lit.formats.ShTest(execute_external=False)
    if not config.suffixes:
        config.suffixes = {".mlir", ".test"}
    config.excludes = list(config.excludes or []) + ["Inputs", "lit.cfg.py"]

    path = os.pathsep.join(
        [str(d) for d in dict.fromkeys(tools)] +
        [p for p in os.environ.get("PATH", "").split(os.pathsep) if p])
    config.environment["PATH"] = path
    for var in ("HOME", "TMPDIR", "TESSEL_HOME", "TESSEL_CACHE",
                "TESSEL_CAPI_LIBRARY", "CUDA_VISIBLE_DEVICES"):
        if var in os.environ:
            config.environment[var] = os.environ[var]
    # Variables captured under one CHECK-LABEL do not leak into the next.
    config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

    config.substitutions.append(
        ("%tessel_schedules", str(install.schedules_dir())))
    home = install.home()
    config.substitutions.append(("%tessel_home", str(home or opt.parents[1])))

    if has_cuda_gpu():
        config.available_features.add("cuda-gpu")
    if shutil.which("ptxas"):
        config.available_features.add("ptxas")
    if lit_config is not None:
        lit_config.note(f"tessel-opt: {opt}")
