# -*- Python -*-
# Lit configuration of the Tessel test suite.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TESSEL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessel_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tessel_src", config.tessel_src_root))
config.substitutions.append(("%tessel_tools", config.tessel_tools_dir))
config.substitutions.append(
    ("%schedules", os.path.join(config.tessel_src_root, "schedules")))
config.substitutions.append(
    ("%examples", os.path.join(config.tessel_src_root, "examples")))

# Variables captured under one CHECK-LABEL do not leak into the next.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tessel_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tessel-opt", "tessel-run"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tessel_tools_dir, append_path=True)


def has_cuda_gpu():
    """A usable NVIDIA GPU: the driver library loads and reports a device."""
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return False
    return count.value > 0


if has_cuda_gpu():
    config.available_features.add("cuda-gpu")
if shutil.which("ptxas"):
    config.available_features.add("ptxas")
