# -*- Python -*-
# Lit configuration of the Tessel test suite.

import importlib.util
import os
import shutil
import subprocess
import sys

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
config.substitutions.append(("%tessel_obj", config.tessel_obj_root))
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
llvm_config.add_tool_substitutions(["tessel-db", "tessel-opt", "tessel-run"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tessel_tools_dir, append_path=True)


# The GPU test, shared with users' suites (python/tessel/lit.py).
sys.path.insert(0, os.path.join(config.tessel_src_root, "python"))
from tessel.lit import has_cuda_gpu  # noqa: E402

if has_cuda_gpu():
    config.available_features.add("cuda-gpu")
if shutil.which("ptxas"):
    config.available_features.add("ptxas")
# measure=mpi: mpirun, and a tessel-opt built with MPI (its --version says).
if shutil.which("mpirun") and "measure=worker|process|mpi" in subprocess.run(
        [os.path.join(config.tessel_tools_dir, "tessel-opt"), "--version"],
        capture_output=True, text=True).stdout:
    config.available_features.add("mpi")
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake")
# Building the Python wheel offline and installing it in a venv (Debian:
# python3-venv, python3-pip, python3-setuptools, python3-wheel).
if all(importlib.util.find_spec(m) for m in ("venv", "ensurepip", "pip",
                                            "setuptools", "wheel")):
    config.available_features.add("python-wheel")

# CI passes --param require_features=a,b: a missing one is an error, not
# a silently unsupported test.
for feature in lit_config.params.get("require_features", "").split(","):
    if feature and feature not in config.available_features:
        lit_config.fatal(f"feature '{feature}' is required (require_features) "
                         "but not available here")
