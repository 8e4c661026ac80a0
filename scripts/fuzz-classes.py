#!/usr/bin/env python3
"""Randomized campaign over the invalid-input classes of issue 18.

Each class generates random instances of one kind of invalid input (random
parameters drawn from inside the class, not one fixed example), runs the
tool on each, and checks the outcome. By default an instance passes when the
tool

  * exits with a status in 1..127 and is not killed by a signal,
  * finishes within --timeout seconds (otherwise it is a "hang"),
  * prints an `error:` diagnostic on stderr, and
  * prints none of the crash markers (PLEASE submit a bug report, LLVM ERROR,
    Stack dump, Assertion, AddressSanitizer, runtime error:).

Some classes check more (or something else): see --list. Runs are counted as
passed or failed; hangs and crashes are failures, counted separately too.

    scripts/fuzz-classes.py --list
    scripts/fuzz-classes.py --count 20 --json /tmp/fc.json
    scripts/fuzz-classes.py --classes zero-dim,deep-json --seed 7 --keep /tmp/fc-fail

Instance I of class C with seed S is the same input whatever --count, --jobs
or --classes are (its generator is seeded with "S:C:I"). Standard library
only; the tools are DIR/bin/tessel-opt and DIR/bin/tessel-run (--build DIR).
"""

import argparse
import collections
import concurrent.futures
import datetime
import importlib.util
import json
import math
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCHEDULES = REPO / "schedules"
CRASH_MARKERS = ("PLEASE submit a bug report", "LLVM ERROR", "Stack dump",
                 "LeakSanitizer",
                 "Assertion", "AddressSanitizer", "runtime error:")
NO_DRIVER = "no CUDA driver"
# LLVM's command-line parser refuses a value of the option's type itself
# ("tessel-run: for the --device option: 'inf' value invalid for integer
# argument!"), as every LLVM tool does: a diagnostic naming the option.
CL_ERROR = re.compile(r"for the -+[\w-]+ option: ")
# An error diagnostic ("file:1:2: error: ...", "tessel-run: error: ..."), not
# the tuner's "run-error:" counts.
ERROR_LINE = re.compile(r"(?<![\w-])error:.*")
DTYPES = ("f16", "bf16", "f32")
ELEMENT_BYTES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2,
                 "f32": 4, "f64": 8}
# Which shipped schedule takes which input type.
SCHEDULE_DTYPES = {"simt": DTYPES, "mma": ("f16", "bf16"),
                   "wgmma": ("f16", "bf16")}


def schedule_path(name):
    return str(SCHEDULES / f"matmul_relu_{name}.mlir")


# --------------------------------------------------------------------------
# Instances and checks.


class Instance:
    """One run: argv (strings; "{dir}" is the instance's directory, "{opt}"
    and "{run}" the tools), the files to write first, the main input (for
    the report), an optional environment, and checks beyond the default
    ones. `then(result, inst)` may return a second Instance to run when the
    first one exits 0 (the verdict is then the second one's)."""

    def __init__(self, argv, files=None, input=None, env=None, forbid=(),
                 require=None, check=None, then=None, setup=None, note=""):
        self.argv = argv
        self.files = files or {}
        self.input = input
        self.env = env or {}
        self.forbid = forbid          # (substring, reason) pairs
        self.require = require        # (regex, reason)
        self.check = check            # replaces the default verdict
        self.then = then
        self.setup = setup            # callable(dir): FIFOs, links, dirs
        self.note = note


class Result:
    def __init__(self, argv, rc, stdout, stderr, seconds, timed_out):
        self.argv = argv
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds
        self.timed_out = timed_out


def default_verdict(res, timeout):
    """(status, reason); status is pass, fail, crash or hang."""
    if res.timed_out:
        return "hang", f"no exit within {timeout:g} s"
    if res.rc < 0:
        try:
            name = signal.Signals(-res.rc).name
        except ValueError:
            name = str(-res.rc)
        return "crash", f"killed by signal {name}"
    if res.rc > 127:
        return "crash", f"exit status {res.rc}"
    markers = [m for m in CRASH_MARKERS if m in res.stderr]
    if markers:
        return "crash", "printed " + ", ".join(repr(m) for m in markers)
    if res.rc == 0:
        return "fail", "exit status 0: the input was accepted"
    if not ERROR_LINE.search(res.stderr) and not CL_ERROR.search(res.stderr):
        return "fail", f"exit status {res.rc} without an 'error:' diagnostic"
    return "pass", ""


def verdict(inst, res, timeout):
    if inst.check:
        return inst.check(res, timeout)
    status, reason = default_verdict(res, timeout)
    if status != "pass":
        return status, reason
    for text, why in inst.forbid:
        if text in res.stderr:
            return "fail", why
    if inst.require and not re.search(inst.require[0], res.stderr):
        return "fail", inst.require[1]
    return "pass", ""


# --------------------------------------------------------------------------
# Text generators shared by the classes.


def _load_workload():
    """python/tessel/workload.py, loaded by path: its template without the
    tessel package (whose import loads the runtime library)."""
    spec = importlib.util.spec_from_file_location(
        "tessel_workload", REPO / "python" / "tessel" / "workload.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WORKLOAD = _load_workload()


def payload(m, n, k, dt, name="@matmul_relu"):
    """The matmul+ReLU input IR of examples/generate.py (f32 accumulation,
    output of the input type) for any sizes, element type (f80, f128 and
    i128 included) and function name."""
    return WORKLOAD.unchecked_matmul_relu_ir(m, n, k, dt, name)


def kernel(name, args, body, host=""):
    """A host function with one 1x1x1 gpu.launch around `body` (lines
    already indented); %c0 and %c1 (index) are defined on the host."""
    return f"""\
func.func {name}({args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
{host}  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {{
{body}
    gpu.terminator
  }}
  return
}}
"""


def scale_kernel(rng):
    """A small valid kernel (test/Pipelines/Inputs/scale-kernel.mlir, any
    size): what pass options are tried on."""
    n = 4 * rng.randint(1, 4096)
    return kernel("@scale", f"%a: memref<{n}xf32>", f"""\
    %i = arith.muli %tx, %c1 : index
    %two = arith.constant dense<2.0> : vector<4xf32>
    %v = vector.load %a[%i] : memref<{n}xf32>, vector<4xf32>
    %r = arith.mulf %v, %two : vector<4xf32>
    vector.store %r, %a[%i] : memref<{n}xf32>, vector<4xf32>""")


def rand_dims(rng, lo=1, hi=5000):
    return [rng.randint(lo, hi) for _ in range(3)]


def log_uniform_int(rng, lo, hi):
    return int(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def ident(rng, lo=1, hi=12):
    first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
    rest = first + "0123456789$"
    n = rng.randint(lo, hi)
    return rng.choice(first) + "".join(rng.choice(rest) for _ in range(n - 1))


def launch_spec(rng, dt=None, workload=True):
    """A launch spec (tessel-run's input) that passes tessel-run's checks,
    with a small matmul+ReLU; a kernel image k.ptx is written beside it."""
    m, n, k = rand_dims(rng, 1, 4096)
    dt = dt or rng.choice(DTYPES)
    spec = {
        "function": "matmul_relu",
        "calling_convention": "bare-pointer",
        "arguments": [{"element_type": dt, "shape": [m, k]},
                      {"element_type": dt, "shape": [k, n]},
                      {"element_type": dt, "shape": [m, n]}],
        "results": [2],
        "launches": [{
            "binary": "k", "kernel": "k", "image": "k.ptx",
            "grid": [rng.randint(1, 64), rng.randint(1, 64), 1],
            "block": [rng.choice([8, 16, 32]), rng.choice([1, 4, 8]), 1],
            "dynamic_shared_memory": rng.choice([0, 1024, 49152]),
            "pointer_alignment": 16,
            "params": [{"kind": "buffer", "argument": 2},
                       {"kind": "buffer", "argument": 0},
                       {"kind": "buffer", "argument": 1}]}],
    }
    if workload:
        spec["workload"] = {"kind": "matmul_relu", "lhs": 0, "rhs": 1,
                            "out": 2, "m": m, "n": n, "k": k,
                            "accumulator_type": "f32"}
    return spec


KPTX = "// not a real kernel: tessel-run must refuse the spec before loading it\n"

STUB_RUNNER = """\
#!{python}
# A stand-in measuring tool: valid results, 1 ms (never called when the
# tuner refuses its options or files first).
import json, sys
if "--device-info" in sys.argv:
    print("Fake GPU (sm_90)"); sys.exit(0)
spec = json.load(open([a for a in sys.argv[1:] if not a.startswith("--")][0]))
print(json.dumps({{"function": spec["function"], "device": "Fake GPU",
    "chip": "sm_90", "reference": "gpu-f64", "checked": True, "passed": True,
    "relative_error": 1e-6, "max_abs_error": 0, "tolerance": 1e-5,
    "nan_count": 0, "repeats": 10, "median_ms": 1.0, "min_ms": 1.0,
    "max_ms": 1.0, "tflops": 1.0}}))
"""


def stub_runner_files():
    return {"runner.py": (STUB_RUNNER.format(python=sys.executable), 0o755)}


def tune_option(extra, runner="{dir}/runner.py", schedule=None):
    schedule = schedule or schedule_path("simt")
    return (f"--tessel-tune=schedule={schedule} strategy=random budget=2 "
            f"seed=1 runner={runner} timeout=30 ptxas=none jobs=1 {extra}")


def small_f32_payload(rng):
    m, n, k = rand_dims(rng, 16, 256)
    return payload(m, n, k, "f32")


# --------------------------------------------------------------------------
# The classes. Each generator takes a random.Random and returns an Instance.


def gen_zero_dim(rng):
    dims = rand_dims(rng)
    for z in rng.choice([[0], [1], [2], [0, 1], [0, 2], [1, 2], [0, 1, 2]]):
        dims[z] = 0
    dt = rng.choice(DTYPES)
    sched = rng.choice(list(SCHEDULE_DTYPES))
    return Instance(
        ["{opt}", "{dir}/in.mlir",
         f"--tessel-apply-schedule=schedule={schedule_path(sched)}",
         "--tessel-lower-to-ptx=chip=sm_90a", "-o", "/dev/null"],
        files={"in.mlir": payload(*dims, dt)}, input="in.mlir")


def gen_old_chip(rng):
    dims = rand_dims(rng, 1, 4096)
    dt = rng.choice(["f16", "bf16"])
    if rng.random() < 0.5:
        sched, chip = "mma", rng.choice(["sm_70", "sm_72", "sm_75"])
    else:
        sched = "wgmma"
        chip = rng.choice(["sm_70", "sm_72", "sm_75", "sm_80", "sm_86",
                           "sm_87", "sm_89", "sm_90"])
    return Instance(
        ["{opt}", "{dir}/in.mlir",
         f"--tessel-apply-schedule=schedule={schedule_path(sched)}",
         f"--tessel-lower-to-ptx=chip={chip}", "-o", "/dev/null"],
        files={"in.mlir": payload(*dims, dt)}, input="in.mlir",
        require=(r"needs sm_\d+",
                 "refused, but not by the chip check ('needs sm_...')"))


NON_ASCII = "éüßλЖ中ñøÅ"


def bad_func_name(rng):
    name = list(ident(rng, 1, 10))
    kinds = rng.sample(["space", "dash", "slash", "dot", "nonascii", "digit"],
                       rng.randint(1, 3))
    for kind in kinds:
        if kind == "digit":
            name.insert(0, rng.choice("0123456789"))
            continue
        ch = {"space": " ", "dash": "-", "slash": "/", "dot": ".",
              "nonascii": rng.choice(NON_ASCII)}[kind]
        name.insert(rng.randint(0, len(name)), ch)
    return "".join(name)


def gen_bad_func_name(rng):
    name = bad_func_name(rng)
    symbol = '@"' + name + '"'
    if rng.random() < 0.5:
        dt = rng.choice(DTYPES)
        sched = rng.choice([s for s, d in SCHEDULE_DTYPES.items() if dt in d])
        dims = rand_dims(rng, 1, 2048)
        text = payload(*dims, dt, name=symbol)
        argv = ["{opt}", "{dir}/in.mlir",
                f"--tessel-apply-schedule=schedule={schedule_path(sched)}",
                "--tessel-lower-to-ptx=chip=sm_90a", "-o", "/dev/null"]
    else:
        text = kernel(symbol, "%a: memref<4xf32>", """\
    %v = memref.load %a[%c0] : memref<4xf32>
    memref.store %v, %a[%c0] : memref<4xf32>""")
        argv = ["{opt}", "{dir}/in.mlir",
                f"--tessel-lower-to-ptx=chip={rng.choice(['sm_80', 'sm_90a'])}",
                "-o", "/dev/null"]
    return Instance(argv, files={"in.mlir": text}, input="in.mlir",
                    require=(r"is not a PTX identifier",
                             "refused, but not by the function-name check"))


def wide_constant(t, rng):
    if t.startswith("i"):
        return str(rng.randint(-2**100, 2**100))
    return f"{rng.uniform(-1e6, 1e6):.3f}"


def gen_wide_type(rng):
    t = rng.choice(["f80", "f128", "i128"])
    n = rng.randint(1, 4096)
    variant = rng.choice(["payload", "load", "store", "alloca", "constant",
                          "workgroup", "vector", "extend", "scalar-arg"])
    argv = ["{opt}", "{dir}/in.mlir",
            f"--tessel-lower-to-ptx=chip={rng.choice(['sm_80', 'sm_90a'])}",
            "-o", "/dev/null"]
    add = "arith.addi" if t.startswith("i") else "arith.addf"
    if variant == "payload":
        text = payload(*rand_dims(rng, 1, 1024), t)
        argv[2:2] = [f"--tessel-apply-schedule=schedule={schedule_path('simt')}"]
    elif variant == "load":
        text = kernel("@k", f"%a: memref<{n}x{t}>", f"""\
    %x = memref.load %a[%c0] : memref<{n}x{t}>
    %y = {add} %x, %x : {t}
    memref.store %y, %a[%c0] : memref<{n}x{t}>""")
    elif variant == "store":
        text = kernel("@k", f"%a: memref<{n}x{t}>", f"""\
    %x = arith.constant {wide_constant(t, rng)} : {t}
    memref.store %x, %a[%c0] : memref<{n}x{t}>""")
    elif variant == "alloca":
        text = kernel("@k", "%a: memref<4xf32>", f"""\
    %s = memref.alloca() : memref<{min(n, 64)}x{t}>
    %x = arith.constant {wide_constant(t, rng)} : {t}
    memref.store %x, %s[%c0] : memref<{min(n, 64)}x{t}>
    %y = memref.load %s[%c0] : memref<{min(n, 64)}x{t}>
    %z = {add} %y, %x : {t}
    memref.store %z, %s[%c0] : memref<{min(n, 64)}x{t}>""")
    elif variant == "constant":
        text = kernel("@k", "%a: memref<4xf32>", f"""\
    %x = arith.constant {wide_constant(t, rng)} : {t}
    %y = {add} %x, %x : {t}
    %z = {"arith.trunci" if t.startswith("i") else "arith.truncf"} %y : {t} to {"i32" if t.startswith("i") else "f32"}
    {"%w = arith.sitofp %z : i32 to f32" if t.startswith("i") else "%w = arith.addf %z, %z : f32"}
    memref.store %w, %a[%c0] : memref<4xf32>""")
    elif variant == "workgroup":
        text = kernel("@k", "%a: memref<4xf32>", f"""\
    %s = memref.alloc() : memref<{min(n, 256)}x{t}, #gpu.address_space<workgroup>>
    %x = arith.constant {wide_constant(t, rng)} : {t}
    memref.store %x, %s[%c0] : memref<{min(n, 256)}x{t}, #gpu.address_space<workgroup>>""")
    elif variant == "vector":
        w = rng.choice([2, 4])
        v = f"vector<{w}x{t}>"
        text = kernel("@k", f"%a: memref<{4 * n}x{t}>", f"""\
    %v = vector.load %a[%c0] : memref<{4 * n}x{t}>, {v}
    %r = {add} %v, %v : {v}
    vector.store %r, %a[%c0] : memref<{4 * n}x{t}>, {v}""")
    elif variant == "extend":
        if t.startswith("i"):
            body = f"""\
    %x = memref.load %a[%c0] : memref<{n}xi64>
    %y = arith.extsi %x : i64 to {t}
    %z = arith.muli %y, %y : {t}
    %w = arith.trunci %z : {t} to i64
    memref.store %w, %a[%c0] : memref<{n}xi64>"""
            args = f"%a: memref<{n}xi64>"
        else:
            body = f"""\
    %x = memref.load %a[%c0] : memref<{n}xf64>
    %y = arith.extf %x : f64 to {t}
    %z = arith.mulf %y, %y : {t}
    %w = arith.truncf %z : {t} to f64
    memref.store %w, %a[%c0] : memref<{n}xf64>"""
            args = f"%a: memref<{n}xf64>"
        text = kernel("@k", args, body)
    else:  # scalar-arg: a wide scalar passed to the kernel
        text = kernel("@k", f"%a: memref<{n}x{t}>, %s: {t}", f"""\
    memref.store %s, %a[%c0] : memref<{n}x{t}>""")
    return Instance(argv, files={"in.mlir": text}, input="in.mlir",
                    note=f"{t} {variant}")


LIMIT32 = 2**31


def gen_index32_overflow(rng):
    variant = rng.choice(["payload", "payload", "payload", "argument",
                          "workspace", "strided"])
    chip = rng.choice(["sm_80", "sm_90a"])
    argv = ["{opt}", "{dir}/in.mlir",
            f"--tessel-lower-to-ptx=chip={chip} index-bitwidth=32",
            "-o", "/dev/null"]
    if variant == "payload":
        dt = rng.choice(DTYPES)
        sched = rng.choice([s for s, d in SCHEDULE_DTYPES.items() if dt in d])
        eb = ELEMENT_BYTES[dt]
        target = log_uniform_int(rng, LIMIT32, 2**37)
        big = rng.choice(["A", "B", "C"])
        # The big matrix is rows x cols with rows * cols * eb >= 2^31.
        rows = log_uniform_int(rng, 1, 2**20)
        cols = max(1, -(-target // (rows * eb)))
        if cols >= 2**31:
            cols = 2**31 - 1
            rows = -(-target // (cols * eb))
        other = rng.randint(1, 5000)
        m, n, k = {"A": (rows, other, cols), "B": (other, cols, rows),
                   "C": (rows, cols, other)}[big]
        text = payload(m, n, k, dt)
        if "wgmma" in sched:
            # Its kernels are sm_90a's: another chip= is refused first.
            argv[2] = "--tessel-lower-to-ptx=chip=sm_90a index-bitwidth=32"
        argv[2:2] = [f"--tessel-apply-schedule=schedule={schedule_path(sched)}"]
        note = f"{m}x{n}x{k} {dt} {sched}"
    else:
        t = rng.choice(list(ELEMENT_BYTES))
        eb = ELEMENT_BYTES[t]
        elems = -(-log_uniform_int(rng, LIMIT32, 2**40) // eb)
        if variant == "argument":
            if rng.random() < 0.5:
                shape = f"{elems}"
                idx = "%c0"
            else:
                rows = rng.randint(2, 4096)
                shape = f"{rows}x{-(-elems // rows)}"
                idx = "%c0, %c0"
            ty = f"memref<{shape}x{t}>"
            text = kernel("@k", f"%a: {ty}", f"""\
    %v = memref.load %a[{idx}] : {ty}
    memref.store %v, %a[{idx}] : {ty}""")
        elif variant == "workspace":
            ty = f"memref<{elems}x{t}>"
            text = kernel("@k", "%a: memref<4xf32>", f"""\
    %v = memref.load %w[%c0] : {ty}
    memref.store %v, %w[%c0] : {ty}""", host=f"  %w = gpu.alloc () : {ty}\n")
            text = text.replace("  return\n", f"  gpu.dealloc %w : {ty}\n  return\n")
        else:  # strided: few elements, a stride spanning >= 2^31 bytes
            rows = rng.randint(2, 64)
            cols = rng.randint(1, 64)
            stride = max(cols, -(-elems // (rows - 1)))
            ty = f"memref<{rows}x{cols}x{t}, strided<[{stride}, 1]>>"
            text = kernel("@k", f"%a: {ty}", f"""\
    %v = memref.load %a[%c0, %c0] : {ty}
    memref.store %v, %a[%c0, %c0] : {ty}""")
        note = f"{variant} {t}"
    return Instance(argv, files={"in.mlir": text}, input="in.mlir", note=note,
                    require=(r"32-bit indices",
                             "refused, but not by the 32-bit index check"))


def gen_huge_dims(rng):
    """Dimensions such that some matrix holds more bytes than int64 can
    count (the issue's K = 2^62). Matrices that fit in int64 bytes but in
    no GPU's memory are valid for the compiler and refused by the GPU's
    allocation, which needs a GPU: not generated."""
    dims = rand_dims(rng)
    which = rng.sample([0, 1, 2], rng.choice([1, 1, 1, 2, 3]))
    for w in which:
        dims[w] = min(2**62, log_uniform_int(rng, 2**40, 2**62) + rng.randint(0, 999))
    dt = rng.choice(DTYPES)
    m, n, k = dims
    eb = ELEMENT_BYTES[dt]
    if max(m * k, k * n, m * n) * eb < 2**63:
        # Grow the partner of the largest dimension until its matrix
        # overflows: M for K (A), N for M (C), K for N (B).
        big = max(range(3), key=lambda i: dims[i])
        partner = {2: 0, 0: 1, 1: 2}[big]
        dims[partner] = min(2**62, -(-2**63 // (dims[big] * eb)) + rng.randint(0, 999))
    sched = rng.choice([s for s, d in SCHEDULE_DTYPES.items() if dt in d])

    def run_spec(res, inst):
        return Instance(["{run}", "{dir}/out/matmul_relu.launch.json"],
                        forbid=((NO_DRIVER,
                                 "accepted by tessel-opt, and tessel-run's checks "
                                 "passed: only the GPU (allocation) could refuse "
                                 "it"),))
    return Instance(
        ["{opt}", "{dir}/in.mlir",
         f"--tessel-apply-schedule=schedule={schedule_path(sched)}",
         "--tessel-lower-to-ptx=chip=sm_90a",
         "--tessel-export-kernels=dir={dir}/out", "-o", "/dev/null"],
        files={"in.mlir": payload(*dims, dt)}, input="in.mlir",
        then=run_spec, note=f"{dims[0]}x{dims[1]}x{dims[2]} {dt} {sched}")


WG_TYPES = ["i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
            "vector<4xf32>", "vector<8xf16>", "vector<2xf64>", "vector<4xi32>"]


def wg_bytes(t):
    mt = re.match(r"vector<(\d+)x(\w+)>", t)
    if mt:
        return int(mt.group(1)) * ELEMENT_BYTES[mt.group(2)]
    return ELEMENT_BYTES[t]


def gen_workgroup_4gib(rng):
    count = rng.randint(1, 4)
    if rng.random() < 0.15:
        per = [log_uniform_int(rng, 2**60, 2**62) for _ in range(count)]
    else:
        total = log_uniform_int(rng, LIMIT32, 2**44)
        cuts = sorted(rng.random() for _ in range(count - 1))
        shares = [b - a for a, b in zip([0.0] + cuts, cuts + [1.0])]
        per = [max(1, int(total * s)) for s in shares]
        per[-1] += total - sum(per)
    allocs, uses = [], []
    for i, b in enumerate(per):
        t = rng.choice(WG_TYPES)
        elems = max(1, -(-b // wg_bytes(t)))
        if rng.random() < 0.3 and elems > 4096:
            rows = rng.randint(2, 4096)
            shape, idx = f"{rows}x{-(-elems // rows)}", "%c0, %c0"
        else:
            shape, idx = f"{elems}", "%c0"
        ty = f"memref<{shape}x{t}, #gpu.address_space<workgroup>>"
        allocs.append(f"    %w{i} = memref.alloc() : {ty}")
        uses.append(f"    %v{i} = memref.load %w{i}[{idx}] : {ty}\n"
                    f"    memref.store %v{i}, %w{i}[{idx}] : {ty}")
    text = kernel("@k", "%a: memref<4xf32>", "\n".join(allocs + uses))
    return Instance(
        ["{opt}", "{dir}/in.mlir",
         f"--tessel-lower-to-ptx=chip={rng.choice(['sm_80', 'sm_90a'])}",
         "-o", "/dev/null"],
        files={"in.mlir": text}, input="in.mlir",
        note=f"{count} allocations, {sum(per)} bytes")


THREAD_KNOB = re.compile(
    r'%(thread_[mn]) = transform\.tune\.knob<"thread_[mn]">.*?-> !transform\.param<i64>',
    re.S)


def gen_thread_tile_zero(rng):
    sched = Path(schedule_path("simt")).read_text()
    v = rng.choice([0] + list(range(-64, 0)))
    neg = rng.randint(-64, -1)
    variant = rng.choice(["knob", "knob", "thread-static", "k-static",
                          "block-static"])
    text = None
    if variant == "knob":
        knobs = THREAD_KNOB.findall(sched)
        if knobs:
            knob = rng.choice(knobs)
            pattern = re.compile(
                r'%' + knob + r' = transform\.tune\.knob<"' + knob +
                r'">.*?-> !transform\.param<i64>', re.S)
            text = pattern.sub(
                f"%{knob} = transform.param.constant {v} : i64 -> "
                "!transform.param<i64>", sched, count=1)
            note = f"{knob} = param {v}"
    else:
        if variant == "thread-static":
            params = ["%thread_m", "%thread_n"]
            values = [v, rng.choice([v, None])]
            rng.shuffle(values)
        elif variant == "block-static":
            params = ["%tile_m", "%tile_n"]
            values = [neg, rng.choice([neg, None])]
            rng.shuffle(values)
        else:
            params = ["0", "0", "%tile_k"]
            values = [None, None, neg]
        old = "tile_sizes [" + ", ".join(params) + "]"
        new_list = [str(val) if val is not None else p
                    for p, val in zip(params, values)]
        new = "tile_sizes [" + ", ".join(new_list) + "]"
        at = sched.find(old)
        if at >= 0:
            # The op's trailing type list loses one !transform.param<i64>
            # per operand made static.
            types_at = sched.find(": (!transform.any_op", at)
            types_end = sched.find(")", types_at)
            dropped = sum(1 for p, val in zip(params, values)
                          if val is not None and p.startswith("%"))
            types = sched[types_at:types_end]
            for _ in range(dropped):
                types = types.replace(", !transform.param<i64>", "", 1)
            text = (sched[:at] + new + sched[at + len(old):types_at] + types +
                    sched[types_end:])
            note = f"{variant}: {new}"
    if text is None:
        return Instance([], note=f"generator: {variant} pattern not found in "
                        "schedules/matmul_relu_simt.mlir",
                        check=lambda res, t: ("fail", "generator: the schedule "
                                              "no longer has the edited pattern"))
    dt = rng.choice(DTYPES)
    return Instance(
        ["{opt}", "{dir}/in.mlir",
         "--tessel-apply-schedule=schedule={dir}/schedule.mlir",
         "--tessel-lower-to-ptx=chip=sm_90a", "-o", "/dev/null"],
        files={"in.mlir": payload(*rand_dims(rng, 1, 2048), dt),
               "schedule.mlir": text},
        input="schedule.mlir", note=note)


ASM_TYPES = {"i32": ("r", "llvm.mlir.constant({v} : i32) : i32"),
             "i64": ("l", "llvm.mlir.constant({v} : i64) : i64"),
             "f32": ("f", "llvm.mlir.constant({v}.0 : f32) : f32"),
             "f64": ("d", "llvm.mlir.constant({v}.0 : f64) : f64"),
             "i16": ("h", "llvm.mlir.constant({v} : i16) : i16")}


def gen_llvm_inline_asm(rng):
    n_in = rng.randint(0, 4)
    has_result = rng.random() < 0.7
    in_types = [rng.choice(list(ASM_TYPES)) for _ in range(n_in)]
    res_type = rng.choice(list(ASM_TYPES))
    defs = [f"      %o{i} = " + ASM_TYPES[t][1].format(v=rng.randint(0, 99))
            for i, t in enumerate(in_types)]
    out_c = ["=" + ASM_TYPES[res_type][0]] if has_result else []
    in_c = [ASM_TYPES[t][0] for t in in_types]
    n_ops = len(out_c) + len(in_c)
    kind = rng.choice(["more-inputs", "fewer-inputs", "output-no-result",
                       "result-no-output", "dollar"])
    if kind == "fewer-inputs" and not in_c:
        kind = "more-inputs"
    if kind == "output-no-result" and has_result:
        kind = "result-no-output"
    if kind == "result-no-output" and not has_result:
        kind = "output-no-result"
    refs = list(range(n_ops))
    if kind == "more-inputs":
        in_c += [rng.choice("rlfdh") for _ in range(rng.randint(1, 3))]
    elif kind == "fewer-inputs":
        in_c = in_c[:rng.randint(0, len(in_c) - 1)]
    elif kind == "output-no-result":
        out_c = ["=" + rng.choice("rlfdh")]
    elif kind == "result-no-output":
        out_c = []
    else:  # dollar: the template names an operand that does not exist
        refs.append(n_ops + rng.randint(0, 7))
    rng.shuffle(refs)
    template = "mov.b32 " + ", ".join(f"${r}" for r in refs) + ";" if refs \
        else "mov.b32 $" + str(rng.randint(0, 7)) + ";"
    constraints = ",".join(out_c + in_c)
    operands = ", ".join(f"%o{i}" for i in range(n_in))
    if has_result:
        op = (f"      %r = llvm.inline_asm has_side_effects \"{template}\", "
              f"\"{constraints}\" {operands} : ({', '.join(in_types)}) -> {res_type}")
    else:
        op = (f"      llvm.inline_asm has_side_effects \"{template}\", "
              f"\"{constraints}\" {operands} : ({', '.join(in_types)}) -> ()")
    body = "\n".join(defs + [op])
    text = kernel("@f", "%a: memref<4xf32>", body)
    chip = rng.choice(["sm_80", "sm_90a"])
    return Instance(["{opt}", "{dir}/in.mlir",
                     f"--tessel-lower-to-ptx=chip={chip}", "-o", "/dev/null"],
                    files={"in.mlir": text}, input="in.mlir", note=kind)


FOREIGN_INTRINSICS = [
    ('llvm.x86.rdtsc', [], "i64"),
    ('llvm.x86.rdpmc', ["i32"], "i64"),
    ('llvm.x86.sse2.pause', [], None),
    ('llvm.aarch64.get.fpcr', [], "i64"),
    ('llvm.aarch64.isb', ["i32"], None),
    ('llvm.aarch64.crc32b', ["i32", "i32"], "i32"),
    ('llvm.amdgcn.workitem.id.x', [], "i32"),
    ('llvm.amdgcn.workgroup.id.y', [], "i32"),
    ('llvm.amdgcn.s.barrier', [], None),
    ('llvm.amdgcn.s.getpc', [], "i64"),
    ('llvm.wasm.memory.size', ["i32"], "i32"),
    ('llvm.riscv.orc.b', ["i32"], "i32"),
    ('llvm.ppc.mftbu', [], "i32"),
]
OLD_CHIPS = ["sm_70", "sm_72", "sm_75"]
PRE_HOPPER = OLD_CHIPS + ["sm_80", "sm_86", "sm_87", "sm_89"]


def gen_foreign_intrinsic(rng):
    variant = rng.choice(["foreign", "foreign", "cp-async", "cp-async-call",
                          "setmaxregister", "cluster", "fence-proxy"])
    body = []
    if variant == "foreign":
        name, args, res = rng.choice(FOREIGN_INTRINSICS)
        ops = []
        for i, t in enumerate(args):
            body.append(f"      %a{i} = llvm.mlir.constant({rng.randint(0, 15)} : {t}) : {t}")
            ops.append(f"%a{i}")
        call = (f'llvm.call_intrinsic "{name}"({", ".join(ops)}) : '
                f'({", ".join(args)}) -> {res or "()"}')
        body.append(("      %r = " if res else "      ") + call)
        chip = rng.choice(PRE_HOPPER + ["sm_90", "sm_90a", "sm_100a"])
        note = name
    elif variant == "cp-async":
        body.append(rng.choice(["      nvvm.cp.async.commit.group",
                                f"      nvvm.cp.async.wait.group {rng.randint(0, 7)}"]))
        chip = rng.choice(OLD_CHIPS)
        note = "cp.async"
    elif variant == "cp-async-call":
        body.append(rng.choice([
            '      llvm.call_intrinsic "llvm.nvvm.cp.async.commit.group"() : () -> ()',
            f'      %n = llvm.mlir.constant({rng.randint(0, 7)} : i32) : i32\n'
            '      llvm.call_intrinsic "llvm.nvvm.cp.async.wait.group"(%n) : (i32) -> ()']))
        chip = rng.choice(OLD_CHIPS)
        note = "cp.async intrinsic"
    elif variant == "setmaxregister":
        body.append(f"      nvvm.setmaxregister {rng.choice(['increase', 'decrease'])} "
                    f"{8 * rng.randint(3, 32)}")
        chip = rng.choice(PRE_HOPPER + ["sm_90"])
        note = "setmaxregister"
    elif variant == "cluster":
        body.append("      nvvm.cluster.arrive")
        chip = rng.choice(PRE_HOPPER)
        note = "cluster.arrive"
    else:
        body.append("      nvvm.fence.proxy { kind = #nvvm.proxy_kind<async.shared>, "
                    "space = #nvvm.shared_space<cta> }")
        chip = rng.choice(PRE_HOPPER)
        note = "fence.proxy.async"
    text = kernel("@f", "%a: memref<4xf32>", "\n".join(body))
    return Instance(["{opt}", "{dir}/in.mlir",
                     f"--tessel-lower-to-ptx=chip={chip}", "-o", "/dev/null"],
                    files={"in.mlir": text}, input="in.mlir",
                    note=f"{note} on {chip}")


def deep_json(rng, depth, closed):
    """depth levels of arrays and objects (`[` and `{"a":`), some with
    strings full of brackets and escaped quotes that do not nest."""
    opens, closes = [], []
    decoy_rate = rng.choice([0.0, 0.01, 0.2])
    for _ in range(depth):
        if rng.random() < 0.5:
            if rng.random() < decoy_rate:
                opens.append('["[[{\\"]", ')
            else:
                opens.append("[")
            closes.append("]")
        else:
            if rng.random() < decoy_rate:
                opens.append('{"k{[": "]}\\"[", "a":')
            else:
                opens.append('{"a":')
            closes.append("}")
    leaf = rng.choice(["0", '"leaf"', "[]", "{}", "null"])
    sep = rng.choice(["", " ", "\n"])
    text = sep.join(opens) + leaf
    if closed:
        text += sep.join(reversed(closes))
    elif rng.random() < 0.5:
        text += "".join(reversed(closes[:rng.randint(0, len(closes) - 1)]))
    return text


def gen_deep_json(rng):
    depth = log_uniform_int(rng, 300, 100000)
    closed = rng.random() < 0.7
    deep = deep_json(rng, depth, closed)
    target = rng.choice(["run", "apply-db", "tune-db", "tune-replay"])
    files = stub_runner_files()
    if target == "run":
        if rng.random() < 0.5:
            text = '{"function": "f", "calling_convention": "bare-pointer", "arguments": ' + deep + (
                "}" if closed else "")
        else:
            text = deep
        files["spec.json"] = text
        argv = ["{run}", "{dir}/spec.json"]
        inp = "spec.json"
    else:
        if rng.random() < 0.6:
            text = '{"format": "tessel-tuning-db", "records": ' + deep + (
                "}" if closed else "")
        else:
            text = deep
        files["db.json"] = text
        files["in.mlir"] = small_f32_payload(rng)
        inp = "db.json"
        if target == "apply-db":
            argv = ["{opt}", "{dir}/in.mlir",
                    f"--tessel-apply-schedule=schedule={schedule_path('simt')} db={{dir}}/db.json",
                    "-o", "/dev/null"]
        elif target == "tune-db":
            argv = ["{opt}", "{dir}/in.mlir", tune_option("db={dir}/db.json"),
                    "-o", "/dev/null"]
        else:
            argv = ["{opt}", "{dir}/in.mlir",
                    f"--tessel-tune=schedule={schedule_path('simt')} budget=2 "
                    "ptxas=none jobs=1 replay={dir}/db.json", "-o", "/dev/null"]
    return Instance(argv, files=files, input=inp,
                    note=f"{target}, depth {depth}, {'closed' if closed else 'unclosed'}")


def make_special(kind):
    """A setup function that creates {dir}/special as `kind`; returns the
    path the tools are given."""
    def setup(d):
        p = os.path.join(d, "special")
        if kind == "fifo":
            os.mkfifo(p)
        elif kind == "directory":
            os.mkdir(p)
        elif kind == "link-to-fifo":
            os.mkfifo(p + ".fifo")
            os.symlink(p + ".fifo", p)
        elif kind == "link-to-directory":
            os.mkdir(p + ".d")
            os.symlink(p + ".d", p)
        elif kind.startswith("link-to-/dev/"):
            os.symlink(kind[len("link-to-"):], p)
        else:
            raise ValueError(kind)
    return setup


SPECIALS = ["/dev/zero", "/dev/urandom", "/dev/null", "/dev/full",
            "/dev/random", "/dev/stdin", "fifo", "directory", "link-to-fifo",
            "link-to-directory", "link-to-/dev/zero", "link-to-/dev/urandom"]


def gen_char_device(rng):
    kind = rng.choice(SPECIALS)
    setup = None
    path = kind
    if not kind.startswith("/dev/"):
        setup = make_special(kind)
        path = "{dir}/special"
    target = rng.choice(["run-spec", "apply-db", "apply-schedule",
                         "apply-schedule-2nd", "tune-db", "tune-replay",
                         "tune-schedule"])
    files = stub_runner_files()
    files["in.mlir"] = small_f32_payload(rng)
    simt = schedule_path("simt")
    if target == "run-spec":
        argv = ["{run}", path]
    elif target == "apply-db":
        argv = ["{opt}", "{dir}/in.mlir",
                f"--tessel-apply-schedule=schedule={simt} db={path}", "-o", "/dev/null"]
    elif target == "apply-schedule":
        argv = ["{opt}", "{dir}/in.mlir",
                f"--tessel-apply-schedule=schedule={path}", "-o", "/dev/null"]
    elif target == "apply-schedule-2nd":
        argv = ["{opt}", "{dir}/in.mlir",
                f"--tessel-apply-schedule=schedule={simt},{path}", "-o", "/dev/null"]
    elif target == "tune-db":
        argv = ["{opt}", "{dir}/in.mlir", tune_option(f"db={path}"), "-o", "/dev/null"]
    elif target == "tune-replay":
        argv = ["{opt}", "{dir}/in.mlir",
                f"--tessel-tune=schedule={simt} budget=2 ptxas=none jobs=1 "
                f"replay={path}", "-o", "/dev/null"]
    else:
        argv = ["{opt}", "{dir}/in.mlir", tune_option("", schedule=path),
                "-o", "/dev/null"]
    return Instance(argv, files=files, setup=setup, input=path,
                    note=f"{target} = {kind}")


def bad_float(rng, lo_open, hi):
    """A value a float option in [0, hi] (or (0, hi] when lo_open) refuses."""
    choices = ["nan", "-nan", "inf", "-inf", "+inf", "1e400", "-1e400",
               f"-{rng.uniform(1e-6, 1e9):.6g}", f"-{rng.randint(1, 10**6)}",
               f"{hi * rng.uniform(1.0001, 1e6):.6g}", f"{hi + rng.randint(1, 10**6)}",
               f"1e{rng.randint(6, 300)}"]
    if lo_open:
        choices += ["0", "0.0", "-0", "-0.0", "0e5"]
    return rng.choice(choices)


def bad_pointer_alignment(rng):
    kind = rng.choice(["zero", "negative", "non-power", "too-large",
                       "huge-non-power"])
    if kind == "zero":
        return "0"
    if kind == "negative":
        return str(-rng.choice([1, 2, 4, 16, 256, rng.randint(1, 2**62)]))
    if kind == "non-power":
        v = rng.randint(3, 255)
        while v & (v - 1) == 0:
            v = rng.randint(3, 255)
        return str(v)
    if kind == "too-large":
        return str(2 ** rng.randint(9, 62))
    v = rng.randint(257, 2**62)
    while v & (v - 1) == 0:
        v += 1
    return str(v)


def gen_bad_options(rng):
    tool = rng.choice(["tune", "tune", "alignment", "alignment", "run"])
    files = stub_runner_files()
    if tool == "tune":
        files["in.mlir"] = small_f32_payload(rng)
        opt = rng.choice(["time-budget", "warmup-ms", "rep-ms", "timeout",
                          "device", "budget", "entry"])
        if opt == "time-budget":
            v = rng.choice(["nan", "-nan", "inf", "-inf", "1e400",
                            f"-{rng.uniform(1e-3, 1e9):.6g}", "-1"])
        elif opt == "warmup-ms":
            v = bad_float(rng, False, 60000)
        elif opt == "rep-ms":
            v = bad_float(rng, True, 60000)
        elif opt == "timeout":
            v = rng.choice(["0", f"-{rng.randint(1, 2**40)}", "nan", "inf",
                            str(rng.randint(2**32, 2**64)), "1.5"])
        elif opt == "device":
            v = rng.choice([f"-{rng.randint(1, 2**31)}", "nan", "inf",
                            str(rng.randint(2**31, 2**64)), "-1"])
        elif opt == "budget":
            v = rng.choice(["0", f"-{rng.randint(1, 2**62)}"])
        else:
            v = ident(rng, 3, 20)
        argv = ["{opt}", "{dir}/in.mlir", tune_option(f"{opt}={v}"),
                "-o", "/dev/null"]
        note = f"tessel-tune {opt}={v}"
    elif tool == "alignment":
        files["in.mlir"] = scale_kernel(rng)
        v = bad_pointer_alignment(rng)
        if rng.random() < 0.5:
            opt = f"--tessel-set-vector-alignment=pointer-alignment={v}"
        else:
            opt = f"--tessel-lower-to-ptx=chip=sm_90a pointer-alignment={v}"
        argv = ["{opt}", "{dir}/in.mlir", opt, "-o", "/dev/null"]
        note = opt
    else:
        files["spec.json"] = json.dumps(launch_spec(rng), indent=1)
        files["k.ptx"] = KPTX
        opt = rng.choice(["--rep-ms", "--warmup-ms", "--tolerance", "--device"])
        if opt == "--rep-ms":
            v = bad_float(rng, True, 60000)
        elif opt == "--warmup-ms":
            v = bad_float(rng, False, 60000)
        elif opt == "--tolerance":
            v = rng.choice(["nan", "-nan", "inf", "-inf", "1e400",
                            f"-{rng.uniform(1e-9, 1e9):.6g}"])
        else:
            v = rng.choice([f"-{rng.randint(1, 2**31)}", "nan", "inf",
                            str(rng.randint(2**31, 2**64))])
        argv = ["{run}", "{dir}/spec.json", f"{opt}={v}"]
        note = f"tessel-run {opt}={v}"
    return Instance(argv, files=files, input=None, note=note,
                    forbid=((NO_DRIVER, "option accepted: tessel-run went on to "
                             "look for a GPU"),))


WORKLOAD_KINDS = ["index-out-of-range", "index-negative", "index-equal",
                  "dim-zero", "dim-negative", "dim-mismatch", "i128-value",
                  "wrong-kind", "wrong-value-type", "missing-field",
                  "not-a-dictionary", "bad-accumulator"]


def gen_bad_workload(rng):
    m, n, k = rand_dims(rng, 1, 4096)
    dt = rng.choice(DTYPES)
    fields = {"accumulator_type": '"f32"', "kind": '"matmul_relu"',
              "m": f"{m} : i64", "n": f"{n} : i64", "k": f"{k} : i64",
              "lhs": "0 : i64", "rhs": "1 : i64", "out": "2 : i64"}
    whole = None
    kinds = rng.sample(WORKLOAD_KINDS, rng.choice([1, 1, 1, 2]))
    for kind in kinds:
        if kind == "index-out-of-range":
            fields[rng.choice(["lhs", "rhs", "out"])] = \
                f"{rng.choice([3, 4, 7, 255, rng.randint(3, 2**63 - 1)])} : i64"
        elif kind == "index-negative":
            fields[rng.choice(["lhs", "rhs", "out"])] = \
                f"{-rng.randint(1, 2**63)} : i64"
        elif kind == "index-equal":
            fields["out"] = fields[rng.choice(["lhs", "rhs"])]
        elif kind == "dim-zero":
            fields[rng.choice("mnk")] = "0 : i64"
        elif kind == "dim-negative":
            fields[rng.choice("mnk")] = f"{-rng.randint(1, 2**63)} : i64"
        elif kind == "dim-mismatch":
            d = rng.choice("mnk")
            real = {"m": m, "n": n, "k": k}[d]
            other = rng.randint(1, 2**40)
            if other == real:
                other += 1
            fields[d] = f"{other} : i64"
        elif kind == "i128-value":
            v = rng.choice([rng.randint(2**63, 2**127 - 1),
                            -rng.randint(2**63 + 1, 2**127)])
            fields[rng.choice(["m", "n", "k", "lhs", "rhs", "out"])] = f"{v} : i128"
        elif kind == "wrong-kind":
            fields["kind"] = '"' + rng.choice(["conv", "matmul", "relu",
                                               "Matmul_Relu", "matmul_relu ",
                                               "", ident(rng)]) + '"'
        elif kind == "wrong-value-type":
            f = rng.choice(list(fields))
            fields[f] = rng.choice(["2.5 : f64", '"3"', "true", "[1, 2]",
                                    "unit", "{x = 1}", "dense<1> : tensor<1xi64>"])
        elif kind == "missing-field":
            fields.pop(rng.choice(list(fields)), None)
        elif kind == "not-a-dictionary":
            whole = rng.choice(['"matmul_relu"', "[0, 1, 2]", "42 : i64",
                                "unit", "true"])
        else:  # bad-accumulator
            fields["accumulator_type"] = '"' + rng.choice(
                ["banana", "", "f33", "tensor", "F32", "f32 ", ident(rng)]) + '"'
    if whole is None:
        items = list(fields.items())
        rng.shuffle(items)
        whole = "{" + ", ".join(f"{a} = {b}" for a, b in items) + "}"
    text = f"""\
module attributes {{gpu.container_module}} {{
  gpu.binary @kernels [#gpu.object<#nvvm.target, assembly = "">]
  func.func @matmul_relu(%a: memref<{m}x{k}x{dt}>, %b: memref<{k}x{n}x{dt}>, %c: memref<{m}x{n}x{dt}>)
      attributes {{tessel.workload = {whole}}} {{
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c : memref<{m}x{n}x{dt}>, %a : memref<{m}x{k}x{dt}>, %b : memref<{k}x{n}x{dt}>)
    return
  }}
}}
"""
    return Instance(["{opt}", "{dir}/in.mlir",
                     "--tessel-export-kernels=dir={dir}/out", "-o", "/dev/null"],
                    files={"in.mlir": text}, input="in.mlir",
                    note=",".join(kinds))


SPEC_KINDS = ["shape-nonpositive", "shape-empty", "bytes-overflow",
              "workspace-overflow", "workspace-invalid", "grid-nonpositive",
              "block-nonpositive", "shared-memory-negative",
              "param-out-of-range", "result-out-of-range", "no-launches",
              "workload-missing-argument", "workload-mismatch",
              "element-type", "json-type", "missing-field", "tensor-map",
              "index-wraps", "pointer-alignment"]


def gen_bad_launch_spec(rng):
    spec = launch_spec(rng)
    launch = spec["launches"][0]
    kind = rng.choice(SPEC_KINDS)
    arg = rng.randrange(3)
    eb = {"f32": 4, "f16": 2, "bf16": 2}[spec["arguments"][0]["element_type"]]
    if kind == "shape-nonpositive":
        shape = spec["arguments"][arg]["shape"]
        shape[rng.randrange(len(shape))] = rng.choice([0, -1, -rng.randint(1, 2**63)])
    elif kind == "shape-empty":
        spec["arguments"][arg]["shape"] = []
    elif kind == "bytes-overflow":
        rank = rng.randint(1, 4)
        dims = [rng.randint(1, 4096) for _ in range(rank)]
        i = rng.randrange(rank)
        rest = math.prod(dims) // dims[i]
        lo = -(-(2**63) // (rest * eb))
        dims[i] = rng.randint(min(lo, 2**63 - 1), 2**63 - 1)
        spec["arguments"][arg]["shape"] = dims
    elif kind == "workspace-overflow":
        # Each workspace fits in int64; their sum, each rounded up to 256
        # bytes, does not (or one alone does not).
        count = rng.randint(1, 4)
        spec["workspaces"] = []
        for i in range(count):
            t = rng.choice(["i8", "f16", "f32"])
            web = {"i8": 1, "f16": 2, "f32": 4}[t]
            if count == 1:
                lo = -(-(2**63) // web)
                shape = [rng.randint(lo, 2**63 - 1)] if web > 1 else \
                    [rng.randint(2**62, 2**63 - 1), rng.randint(2, 4)]
            else:
                lo = -(-(2**63) // count // web) + 256
                shape = [rng.randint(lo, (2**63 - 256) // web)]
            spec["workspaces"].append({"element_type": t, "shape": shape})
        launch["params"].append({"kind": "buffer", "workspace": 0})
    elif kind == "workspace-invalid":
        spec["workspaces"] = [{"element_type": rng.choice(["f32", "complex<f32>"]),
                               "shape": rng.choice([[], [0], [-4, 2], [16, 0]])}]
        if spec["workspaces"][0]["element_type"] == "complex<f32>":
            spec["workspaces"][0]["shape"] = [16]
    elif kind in ("grid-nonpositive", "block-nonpositive"):
        dims = launch["grid" if kind.startswith("grid") else "block"]
        dims[rng.randrange(3)] = rng.choice([0, -1, -rng.randint(1, 2**63)])
    elif kind == "shared-memory-negative":
        launch["dynamic_shared_memory"] = -rng.randint(1, 2**63)
    elif kind == "param-out-of-range":
        if rng.random() < 0.5:
            launch["params"][rng.randrange(3)]["argument"] = rng.randint(3, 2**32 - 1)
        else:
            launch["params"].append({"kind": "buffer",
                                     "workspace": rng.randint(0, 2**32 - 1)})
    elif kind == "result-out-of-range":
        spec["results"] = [rng.randint(3, 2**32 - 1)]
    elif kind == "no-launches":
        spec["launches"] = []
    elif kind == "workload-missing-argument":
        spec["workload"][rng.choice(["lhs", "rhs", "out"])] = rng.randint(3, 2**32 - 1)
    elif kind == "workload-mismatch":
        d = rng.choice("mnk")
        spec["workload"][d] += rng.randint(1, 2**40)
    elif kind == "element-type":
        spec["arguments"][arg]["element_type"] = rng.choice(
            ["complex<f32>", "f128", "i128", "f80", "float", "", "tf32", "index"])
    elif kind == "json-type":
        target, key = rng.choice([(launch, "grid"), (launch, "block"),
                                  (spec["arguments"][arg], "shape"),
                                  (launch, "dynamic_shared_memory"),
                                  (launch["params"][0], "argument"),
                                  (spec, "results"), (spec["workload"], "m")])
        bad = rng.choice(['"16"', "1.5", "1e30", "9223372036854775808",
                          "-9223372036854775809", "null", "true", '{"x": 1}'])
        kind += f": {key} = {bad}"
        value = target[key]
        if isinstance(value, list) and value:
            value[rng.randrange(len(value))] = ("@@" + bad + "@@")
        else:
            target[key] = "@@" + bad + "@@"
    elif kind == "missing-field":
        target, key = rng.choice([(spec, "function"), (spec, "arguments"),
                                  (spec, "launches"), (launch, "grid"),
                                  (launch, "block"), (launch, "kernel"),
                                  (launch, "image"), (launch, "params"),
                                  (spec["arguments"][arg], "shape"),
                                  (spec["workload"], "m")])
        target.pop(key)
        kind += ": " + key
    elif kind == "pointer-alignment":
        # The runtime computes address % pointer_alignment on the GPU path.
        v = int(bad_pointer_alignment(rng))
        if v > 256 and v & (v - 1) == 0:
            v = rng.choice([0, -16, 3, 24])
        launch["pointer_alignment"] = v
        kind += f" {v}"
    elif kind == "index-wraps":
        # An index past 32 bits whose low 32 bits name a real argument.
        where = rng.choice(["param", "result", "workload"])
        k32 = rng.choice([1, 2, 3, rng.randint(1, 2**31 - 1)]) * rng.choice([1, -1])
        if where == "param":
            p = launch["params"][rng.randrange(3)]
            p["argument"] += k32 * 2**32
            kind += f": params argument {p['argument']}"
        elif where == "result":
            spec["results"] = [2 + k32 * 2**32]
            kind += f": results {spec['results']}"
        else:
            f = rng.choice(["lhs", "rhs", "out"])
            spec["workload"][f] += k32 * 2**32
            kind += f": workload {f} {spec['workload'][f]}"
    else:  # tensor-map
        rank = len(spec["arguments"][arg]["shape"])
        box = [rng.randint(1, 256) for _ in range(rank)]
        bad = rng.choice(["rank", "box-small", "box-large", "swizzle", "shape",
                          "strided"])
        tm = {"kind": "tensor_map", "argument": arg, "box": box,
              "swizzle": "128b", "l2_promotion": "256b", "oob_fill": "zero",
              "interleave": "none"}
        if bad == "rank":
            tm["box"] = box + [rng.randint(1, 256) for _ in range(rng.randint(1, 3))]
        elif bad == "box-small":
            tm["box"][rng.randrange(rank)] = rng.choice([0, -1, -rng.randint(1, 2**62)])
        elif bad == "box-large":
            tm["box"][rng.randrange(rank)] = rng.randint(257, 2**62)
        elif bad == "swizzle":
            # ("256b" is a valid l2_promotion: "512b" is no field's value.)
            tm[rng.choice(["swizzle", "l2_promotion", "oob_fill", "interleave"])] = \
                rng.choice(["512b", "yes", "", ident(rng)])
        elif bad == "shape":
            tm["shape"] = [d + rng.randint(1, 2**40)
                           for d in spec["arguments"][arg]["shape"]]
        else:
            # A strided view (a staged read's phase map) that reaches past
            # its buffer, has a stride below 1 or an inner stride other than
            # 1, a negative offset, or sizes whose span overflows 64 bits.
            shape = spec["arguments"][arg]["shape"]
            tm["shape"] = list(shape)
            tm["strides"] = [1] * rank
            tm["offset"] = 0
            how = rng.choice(["past", "zero", "inner", "offset", "overflow"])
            if how == "past":
                tm["offset"] = rng.randint(1, 2**40)
            elif how == "zero":
                tm["strides"][rng.randrange(rank)] = rng.choice([0, -1])
            elif how == "inner":
                tm["strides"][-1] = rng.randint(2, 64)
            elif how == "offset":
                tm["offset"] = -rng.randint(1, 2**62)
            else:
                tm["shape"] = [2**62] * rank
                tm["strides"] = [2**62] * (rank - 1) + [1]
            bad += "-" + how
        launch["params"].append(tm)
        kind += ":" + bad
    text = json.dumps(spec, indent=1)
    text = re.sub(r'"@@(.*?)@@"', lambda mt: mt.group(1).replace('\\"', '"'), text)
    return Instance(["{run}", "{dir}/spec.json"],
                    files={"spec.json": text, "k.ptx": KPTX}, input="spec.json",
                    note=kind,
                    forbid=((NO_DRIVER, "passed tessel-run's checks: refused "
                             "only for the missing GPU"),))


GARBAGE_RUNNER = """\
#!{python}
# A measuring tool that reports impossible results for some candidates
# (the fastest-looking ones) and valid ones for the others; it logs which.
import hashlib, json, os, sys
if "--device-info" in sys.argv:
    print("Fake GPU (sm_90)"); sys.exit(0)
spec = json.load(open([a for a in sys.argv[1:] if not a.startswith("--")][0]))
knobs = (spec.get("schedule") or {{}}).get("knobs", {{}})
key = ",".join(f"{{k}}={{v}}" for k, v in sorted(knobs.items()))
h = int(hashlib.sha256((os.environ["FC_SALT"] + key).encode()).hexdigest(), 16)
garbage = (h % 1000) < int(float(os.environ["FC_FRACTION"]) * 1000)
with open(os.environ["FC_LOG"], "a") as log:
    log.write(("G " if garbage else "V ") + key + "\\n")
ms = 1.0 + (h % 997) / 100.0
result = {{"function": spec["function"], "device": "Fake GPU", "chip": "sm_90",
          "reference": "gpu-f64", "checked": True, "passed": True,
          "relative_error": 1e-6, "max_abs_error": 0, "tolerance": 1e-5,
          "nan_count": 0, "repeats": 10, "median_ms": ms, "min_ms": ms,
          "max_ms": ms, "tflops": 1.0}}
if not garbage:
    print(json.dumps(result)); sys.exit(0)
for f in ("median_ms", "min_ms", "max_ms"):
    result[f] = 0.01   # looks the fastest
kind, _, value = os.environ["FC_GARBAGE"].partition("=")
if kind == "raw":
    sys.stdout.write(json.loads(value)); sys.exit(0)
if kind == "deep":
    d = int(value)
    result["extra"] = "@@"
    sys.stdout.write(json.dumps(result).replace('"@@"', "[" * d + "]" * d))
    sys.exit(0)
if value == "DELETE":
    result.pop(kind, None)
else:
    result[kind] = json.loads(value)
print(json.dumps(result))
"""


GARBAGE_FIELDS = ["median_ms", "passed", "min_ms", "checked", "output",
                  "max_ms", "median_ms"]


def garbage_value(rng):
    """FIELD=JSON (or DELETE), or raw=<text>, deep=<levels>. The field
    cycles with the instance's index, so that small counts cover them all."""
    index = getattr(rng, "index", None)
    f = (GARBAGE_FIELDS[index % len(GARBAGE_FIELDS)] if index is not None
         else rng.choice(GARBAGE_FIELDS))
    if f in ("median_ms", "min_ms", "max_ms"):
        v = rng.choice([str(-rng.uniform(1e-6, 1e6)), "-1", "0", "0.0", "-0.0",
                        "NaN", "Infinity", "-Infinity", "1e-320", "null",
                        '"fast"', '"1.0"', "[1]", '{"ms": 1}', "true",
                        "DELETE", "1e400"])
        if f == "min_ms" and rng.random() < 0.4:
            v = str(rng.uniform(2.0, 1e6))      # min > median
        if f == "max_ms" and rng.random() < 0.4:
            v = str(rng.uniform(1e-6, 0.009))   # max < median
        return f"{f}={v}"
    if f == "checked":
        return "checked=" + rng.choice(['"yes"', "1", "0", "null", '"true"',
                                        "DELETE", "[]"])
    if f == "passed":
        return "passed=" + rng.choice(['"true"', '"yes"', "1", "null",
                                       "DELETE", "[]", '"false"', "0"])
    which = rng.choice(["raw", "raw", "deep"])
    if which == "deep":
        return f"deep={log_uniform_int(rng, 300, 100000)}"
    return "raw=" + json.dumps(rng.choice([
        "", "not json\n", "[]\n", "null\n", '{"median_ms": 1.0}\n',
        '{"function": "matmul_relu"} {"median_ms": 0.01}\n', "{\n",
        json.dumps({"median_ms": 0.01, "min_ms": 0.01, "max_ms": 0.01,
                    "checked": True, "passed": True})[:-1]]))


def parse_knobs(text):
    return dict(kv.split("=", 1) for kv in text.strip().split(",") if "=" in kv)


def gen_runner_garbage(rng):
    mode = rng.choice(["all", "some", "some"])
    fraction = 1.0 if mode == "all" else rng.choice([0.3, 0.5, 0.7])
    garbage = garbage_value(rng)
    m, n, k = rand_dims(rng, 16, 512)
    budget = rng.randint(2, 4)
    files = {"in.mlir": payload(m, n, k, "f32"),
             "runner.py": (GARBAGE_RUNNER.format(python=sys.executable), 0o755)}
    env = {"FC_SALT": str(rng.random()), "FC_FRACTION": str(fraction),
           "FC_LOG": "{dir}/runner.log", "FC_GARBAGE": garbage}

    def check(res, timeout):
        status, reason = default_verdict(res, timeout)
        if status in ("hang", "crash"):
            return status, reason
        log = res.workdir_log
        good = {frozenset(parse_knobs(l[2:]).items()) for l in log if l.startswith("V ")}
        bad = {frozenset(parse_knobs(l[2:]).items()) for l in log if l.startswith("G ")}
        won = re.findall(r"\[tune\] winner: (\S+)", res.stderr)
        if not good:
            if res.rc == 0 or won:
                return "fail", ("every measured candidate reported garbage, "
                                f"yet the tuning succeeded (winner {won[-1] if won else '?'})")
            if status != "pass":
                return status, reason
            return "pass", ""
        if res.rc != 0:
            return "fail", (f"exit status {res.rc} although {len(good)} candidate(s) "
                            "reported valid results")
        if not won:
            return "fail", "exit status 0 without a '[tune] winner:' line"
        w = frozenset(parse_knobs(won[-1]).items())
        if w in bad:
            return "fail", f"the winner {won[-1]} reported garbage ({garbage})"
        if w not in good:
            return "fail", f"the winner {won[-1]} was never measured validly"
        return "pass", ""

    return Instance(
        ["{opt}", "{dir}/in.mlir",
         f"--tessel-tune=schedule={schedule_path('simt')} strategy=random "
         f"budget={budget} seed={rng.randint(1, 10**6)} runner={{dir}}/runner.py "
         "timeout=30 ptxas=none jobs=1", "-o", "/dev/null"],
        files=files, env=env, input="runner.py", check=check,
        note=f"{mode}: {garbage}")


def gen_main_input_device(rng):
    kind = rng.choice(["/dev/zero", "/dev/urandom", "/dev/full",
                       "link-to-/dev/zero", "link-to-/dev/urandom"])
    setup, path = None, kind
    if kind.startswith("link-to-"):
        setup, path = make_special(kind), "{dir}/special"
    passes = rng.choice([[], ["--tessel-lower-to-ptx=chip=sm_90a"],
                         [f"--tessel-apply-schedule=schedule={schedule_path('simt')}"]])
    return Instance(["{opt}", path, *passes, "-o", "/dev/null"], setup=setup,
                    input=path, note=kind)


class Class:
    def __init__(self, name, tool, gen, weight, what, checks=""):
        self.name, self.tool, self.gen = name, tool, gen
        self.weight, self.what, self.checks = weight, what, checks


CLASSES = [
    Class("zero-dim", "tessel-opt", gen_zero_dim, 1.0,
          "matmul+ReLU payload with one to three of M, N, K = 0 (others in "
          "[1, 5000]), f16/bf16/f32, a random shipped schedule; apply-schedule "
          "+ lower-to-ptx chip=sm_90a"),
    Class("old-chip", "tessel-opt", gen_old_chip, 1.0,
          "f16/bf16 payload of random shape [1, 4096]^3; mma.sync schedule on "
          "sm_70/72/75, or wgmma on sm_70..sm_89 or sm_90 (no 'a')",
          "the error must be the chip check ('needs sm_...')"),
    Class("bad-func-name", "tessel-opt", gen_bad_func_name, 1.0,
          "function named @\"...\" with a space, '-', '/', '.', a non-ASCII "
          "letter or a leading digit (1-3 of them, random identifier); a "
          "payload through a schedule, or a hand-written kernel",
          "the error must be the PTX-identifier check"),
    Class("wide-type", "tessel-opt", gen_wide_type, 1.0,
          "f80/f128/i128 in a payload through the SIMT schedule, or in "
          "kernels: loads, stores, allocas, constants, workgroup buffers, "
          "vectors, extensions, scalar arguments; lower-to-ptx"),
    Class("index32-overflow", "tessel-opt", gen_index32_overflow, 1.0,
          "index-bitwidth=32 with a buffer spanning 2^31..2^40 bytes: a "
          "payload matrix (random which, dtype, schedule), a kernel argument, "
          "a gpu.alloc workspace, or a strided argument",
          "the error must be the 32-bit index check"),
    Class("huge-dims", "tessel-opt, tessel-run", gen_huge_dims, 1.0,
          "one to three of M, N, K in [2^40, 2^62] (others in [1, 5000]); "
          "apply-schedule + lower-to-ptx + export-kernels, then tessel-run "
          "on the exported spec if that exits 0",
          "refused by tessel-opt, or by tessel-run before it needs a GPU"),
    Class("workgroup-4gib", "tessel-opt", gen_workgroup_4gib, 1.0,
          "kernel with 1-4 workgroup allocations (scalar or vector elements, "
          "1-D or 2-D) totalling 2^31..2^44 bytes, or 2^60..2^62 each (sum "
          "wraps); lower-to-ptx"),
    Class("thread-tile-zero", "tessel-opt", gen_thread_tile_zero, 1.0,
          "SIMT schedule edited: thread_m/thread_n knob replaced by a "
          "param.constant in {0, -1..-64}, or a static 0/negative in the "
          "thread tile_sizes, a negative in the block tile or the K "
          "tile_using_for; random payload",
          "expected to fail until the tile-size check lands"),
    Class("llvm-inline-asm", "tessel-opt", gen_llvm_inline_asm, 1.0,
          "llvm.inline_asm in a kernel with 0-4 operands whose constraints "
          "have extra or missing inputs, an output without a result or the "
          "reverse, or whose template names $N past the operands"),
    Class("foreign-intrinsic", "tessel-opt", gen_foreign_intrinsic, 1.0,
          "llvm.call_intrinsic of x86/aarch64/amdgcn/wasm/riscv/ppc "
          "intrinsics (real signatures), NVVM cp.async (op or intrinsic) on "
          "sm_7x, setmaxregister below sm_90a, cluster.arrive and "
          "fence.proxy.async below sm_90"),
    Class("deep-json", "tessel-run, tessel-opt", gen_deep_json, 1.0,
          "JSON nested 300..100000 levels (random mix of [ and {\"a\":, "
          "strings with brackets, closed or not, bare or inside a "
          "spec/database): tessel-run SPEC, apply-schedule db=, tune db=, "
          "tune replay="),
    Class("char-device", "tessel-run, tessel-opt", gen_char_device, 1.0,
          "/dev/zero, urandom, null, full, random, stdin, a FIFO, a "
          "directory, links to them, as tessel-run's spec, apply-schedule "
          "db=/schedule= (also 2nd in a list), tune db=/replay=/schedule="),
    Class("bad-options", "tessel-opt, tessel-run", gen_bad_options, 1.0,
          "tessel-tune time-budget/warmup-ms/rep-ms/timeout/device/budget/"
          "entry, pointer-alignment of set-vector-alignment and "
          "lower-to-ptx, tessel-run --rep-ms/--warmup-ms/--tolerance/"
          "--device: nan, inf, negative, zero, huge, non-powers of two",
          "tessel-run must refuse before looking for a GPU"),
    Class("bad-workload", "tessel-opt", gen_bad_workload, 1.0,
          "tessel.workload edited (1-2 of): indices out of range, negative "
          "or equal, m/n/k zero, negative or not the shapes, i128 values "
          "beyond 64 bits, wrong kind, wrong value types, missing fields, "
          "not a dictionary, a nonsense accumulator_type; export-kernels"),
    Class("bad-launch-spec", "tessel-run", gen_bad_launch_spec, 1.0,
          "launch spec edited: shapes <= 0 or empty, byte sizes or "
          "workspace sums past int64, grid/block <= 0, negative shared "
          "memory, indices out of range, no launches, workload mismatches, "
          "element types, JSON types, missing fields, tensor maps, indices "
          "past 32 bits whose low 32 bits name a real argument, "
          "pointer_alignment 0, negative or not a power of two",
          "refused before a GPU is needed (not 'no CUDA driver')"),
    Class("runner-garbage", "tessel-opt --tessel-tune", gen_runner_garbage, 0.25,
          "stand-in runner reporting impossible results (times <= 0, NaN, "
          "strings, missing, min > median, max < median, checked/passed not "
          "booleans, not JSON, deep JSON) for all candidates, or for a "
          "random 30-70% of them (made to look fastest)",
          "all garbage: non-zero exit with error:, no winner; some "
          "garbage: exit 0 and the winner is a validly measured candidate"),
    Class("main-input-device", "tessel-opt", gen_main_input_device, 0.05,
          "(beyond issue 18's list) tessel-opt's own input file is /dev/zero, "
          "/dev/urandom, /dev/full or a link to one"),
]
CLASS_BY_NAME = {c.name: c for c in CLASSES}


# --------------------------------------------------------------------------
# Running.


def substitute(s, d, tools):
    return (s.replace("{dir}", d).replace("{opt}", tools["opt"])
            .replace("{run}", tools["run"]))


def write_files(inst, d):
    for name, content in inst.files.items():
        mode = None
        if isinstance(content, tuple):
            content, mode = content
        p = os.path.join(d, name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(content)
        if mode:
            os.chmod(p, mode)
    if inst.setup:
        inst.setup(d)


LIVE = set()          # process groups of the tools running now
LIVE_LOCK = threading.Lock()
STOPPING = threading.Event()


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_argv(argv, env, timeout):
    if STOPPING.is_set():
        raise KeyboardInterrupt
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, start_new_session=True)
    with LIVE_LOCK:
        LIVE.add(proc.pid)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc.pid)
        out, err = proc.communicate()
    finally:
        with LIVE_LOCK:
            LIVE.discard(proc.pid)
    seconds = time.monotonic() - start
    return Result(argv, proc.returncode, out.decode("utf-8", "replace"),
                  err.decode("utf-8", "replace"), seconds, timed_out)


def input_head(path, limit=2048):
    """The first `limit` bytes of a regular file; a description otherwise
    (nothing here opens a device or a FIFO)."""
    if not path:
        return None
    try:
        st = os.stat(path)
    except OSError as e:
        return f"<{path}: {e.strerror}>"
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else
                "a FIFO" if stat.S_ISFIFO(st.st_mode) else
                "a character device" if stat.S_ISCHR(st.st_mode) else
                "not a regular file")
        return f"<{path}: {kind}>"
    with open(path, "rb") as f:
        return f.read(limit).decode("utf-8", "replace")


def keep_copy(src, dst):
    """Copies an instance directory without opening FIFOs or devices."""
    os.makedirs(dst, exist_ok=True)
    for entry in os.scandir(src):
        s, t = entry.path, os.path.join(dst, entry.name)
        if entry.is_symlink():
            os.symlink(os.readlink(s), t)
        elif entry.is_dir():
            keep_copy(s, t)
        elif entry.is_file():
            shutil.copy2(s, t)
        elif stat.S_ISFIFO(entry.stat(follow_symlinks=False).st_mode):
            os.mkfifo(t)


def run_instance(cls, index, seed, tools, root, timeout, keep):
    import random
    rng = random.Random(f"{seed}:{cls.name}:{index}")
    rng.index = index
    d = os.path.join(root, f"{cls.name}-{index}")
    os.makedirs(d)
    record = {"index": index}
    try:
        try:
            inst = cls.gen(rng)
        except Exception as e:  # a generator bug is a failure of the class
            return {"index": index, "status": "fail",
                    "reason": f"generator raised {type(e).__name__}: {e}",
                    "seconds": 0.0}
        record["note"] = inst.note
        if not inst.argv:
            status, reason = inst.check(None, timeout)
            return {"index": index, "status": status, "reason": reason,
                    "seconds": 0.0, "note": inst.note}
        write_files(inst, d)
        total = 0.0
        stage = inst
        while True:
            argv = [substitute(a, d, tools) for a in stage.argv]
            env = dict(os.environ)
            env.update({k: substitute(v, d, tools) for k, v in inst.env.items()})
            res = run_argv(argv, env, timeout)
            total += res.seconds
            log_path = os.path.join(d, "runner.log")
            res.workdir_log = (open(log_path).read().splitlines()
                               if os.path.exists(log_path) else [])
            status, reason = verdict(stage, res, timeout)
            nxt = None
            if stage.then and not res.timed_out and res.rc == 0:
                nxt = stage.then(res, stage)
            if nxt is None:
                break
            stage = nxt
        record.update(status=status, reason=reason, seconds=total,
                      argv=argv, rc=res.rc, stderr=res.stderr)
        if status != "pass":
            first = inst.input and os.path.join(d, substitute(inst.input, d, tools))
            record["input"] = first or next(
                (a for a in argv[1:] if not a.startswith("-")), None)
            record["input_head"] = input_head(record["input"])
            if keep:
                dst = os.path.join(keep, f"{cls.name}-{index}")
                shutil.rmtree(dst, ignore_errors=True)
                keep_copy(d, dst)
                with open(os.path.join(dst, "command.sh"), "w") as f:
                    f.write("#!/bin/sh\n# " + reason + "\n")
                    for k, v in inst.env.items():
                        f.write(f"export {k}={shlex.quote(substitute(v, dst, tools))}\n")
                    f.write(" ".join(shlex.quote(a.replace(d, dst)) for a in argv) + "\n")
                with open(os.path.join(dst, "stderr.txt"), "w") as f:
                    f.write(res.stderr)
        return record
    finally:
        shutil.rmtree(d, ignore_errors=True)


def first_error(stderr, root=""):
    for line in stderr.splitlines():
        mt = ERROR_LINE.search(line)
        if mt:
            text = mt.group(0)
            if root:
                text = re.sub(re.escape(root) + r"/[^/\s:']+", "<dir>", text)
            text = re.sub(r"\d+", "N", text)
            text = re.sub(r"'[^']*'", "'…'", text)
            return text[:160]
    return None


def summarize(cls, records, root=""):
    s = {"tool": cls.tool, "what": cls.what, "checks": cls.checks or "default",
         "weight": cls.weight, "runs": len(records),
         "passed": sum(r["status"] == "pass" for r in records),
         "failed": sum(r["status"] != "pass" for r in records),
         "hangs": sum(r["status"] == "hang" for r in records),
         "crashes": sum(r["status"] == "crash" for r in records),
         "max_seconds": round(max((r["seconds"] for r in records), default=0.0), 3)}
    reasons = collections.Counter(re.sub(r"\d+", "N", r["reason"])[:160]
                                  for r in records if r["status"] != "pass")
    s["failure_reasons"] = [{"reason": k, "count": v} for k, v in reasons.most_common(8)]
    msgs = collections.Counter(first_error(r.get("stderr", ""), root) for r in records)
    msgs.pop(None, None)
    s["messages"] = [{"message": k, "count": v} for k, v in msgs.most_common(6)]
    # Crashes and hangs first, one example per distinct reason, then the
    # next failures in order up to three.
    order = sorted((r for r in records if r["status"] != "pass"),
                   key=lambda r: ({"crash": 0, "hang": 1}.get(r["status"], 2), r["index"]))
    picked, seen = [], set()
    for r in order:
        key = (r["status"], re.sub(r"\d+", "N", r["reason"]))
        if key not in seen and len(picked) < 3:
            seen.add(key)
            picked.append(r)
    for r in order:
        if len(picked) >= 3:
            break
        if not any(r is p for p in picked):
            picked.append(r)
    examples = [{
        "index": r["index"], "status": r["status"], "reason": r["reason"],
        "note": r.get("note", ""), "argv": r.get("argv"),
        "input": r.get("input"), "input_head": r.get("input_head"),
        "rc": r.get("rc"), "stderr_tail": (r.get("stderr") or "")[-2000:]}
        for r in picked]
    s["failures"] = [{"index": r["index"], "status": r["status"],
                      "note": r.get("note", ""), "reason": r["reason"]}
                     for r in sorted(order, key=lambda r: r["index"])]
    s["examples"] = examples
    return s


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--build", default="build",
                        help="build directory; tools at DIR/bin (default: build)")
    parser.add_argument("--count", type=int, default=200,
                        help="instances per class, times the class's weight (default 200)")
    parser.add_argument("--seed", default="18", help="campaign seed (default 18)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="tools run at a time (default 2)")
    parser.add_argument("--classes", help="comma-separated subset (see --list)")
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="seconds before a run is a hang (default 20)")
    parser.add_argument("--json", metavar="OUT", help="write a JSON summary here")
    parser.add_argument("--keep", metavar="DIR",
                        help="copy failing instances (inputs, command.sh, stderr) here")
    parser.add_argument("--max-memory", type=int, default=4096, metavar="MB",
                        help="address-space limit of each tool, in MiB (default "
                        "4096; 0: none, needed for ASan builds)")
    parser.add_argument("--list", action="store_true", help="list the classes")
    args = parser.parse_args()

    if args.list:
        for c in CLASSES:
            n = max(1, round(args.count * c.weight))
            print(f"{c.name}  [{c.tool}; weight {c.weight:g}: {n} runs at --count {args.count}]")
            print(f"    {c.what}")
            if c.checks:
                print(f"    check: {c.checks}")
        return 0

    classes = CLASSES
    if args.classes:
        names = [n.strip() for n in args.classes.split(",") if n.strip()]
        unknown = [n for n in names if n not in CLASS_BY_NAME]
        if unknown:
            parser.error(f"unknown class(es): {', '.join(unknown)} (see --list)")
        classes = [CLASS_BY_NAME[n] for n in names]
    build = Path(args.build)
    if not build.is_absolute() and not (Path.cwd() / build).exists():
        build = REPO / build
    tools = {"opt": str((build / "bin" / "tessel-opt").resolve()),
             "run": str((build / "bin" / "tessel-run").resolve())}
    for t in tools.values():
        if not os.access(t, os.X_OK):
            parser.error(f"{t} is not an executable (see --build)")
    if args.count < 1 or args.jobs < 1 or args.timeout <= 0:
        parser.error("--count and --jobs must be >= 1, --timeout > 0")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        args.keep = os.path.abspath(args.keep)
    if args.max_memory > 0:
        # Inherited by every tool (and the tuner's runners): an input read
        # forever ends in an allocation failure, not in swapping.
        limit = args.max_memory * 2**20
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))

    started = time.monotonic()
    summary = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
               "host": socket.gethostname(), "platform": platform.platform(),
               "command": " ".join(shlex.quote(a) for a in sys.argv),
               "seed": args.seed, "count": args.count, "timeout": args.timeout,
               "jobs": args.jobs, "tools": {}, "classes": {}}
    for name, t in tools.items():
        st = os.stat(t)
        summary["tools"][os.path.basename(t)] = {
            "path": t, "mtime": datetime.datetime.fromtimestamp(st.st_mtime)
            .astimezone().isoformat(timespec="seconds")}
    def interrupted(signum, frame):
        raise KeyboardInterrupt
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupted)
    root = tempfile.mkdtemp(prefix="fuzz-classes-")
    any_failed = False
    width = max(len(c.name) for c in classes)
    pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
    try:
        for cls in classes:
            n = max(1, round(args.count * cls.weight))
            t0 = time.monotonic()
            futures = [pool.submit(run_instance, cls, i, args.seed, tools,
                                   root, args.timeout, args.keep)
                       for i in range(n)]
            records = [f.result() for f in futures]
            s = summarize(cls, records, root)
            s["wall_seconds"] = round(time.monotonic() - t0, 1)
            summary["classes"][cls.name] = s
            any_failed |= s["failed"] > 0
            line = (f"{cls.name:<{width}}  {s['runs']:4d} runs  {s['passed']:4d} passed  "
                    f"{s['failed']:4d} failed ({s['hangs']} hangs, {s['crashes']} crashes)  "
                    f"max {s['max_seconds']:.2f} s  [{s['wall_seconds']:.0f} s]")
            if s["failure_reasons"]:
                line += "  e.g. " + s["failure_reasons"][0]["reason"]
            print(line, flush=True)
    except KeyboardInterrupt:
        print("interrupted: stopping the tools that run", file=sys.stderr)
        STOPPING.set()
        with LIVE_LOCK:
            for pid in list(LIVE):
                kill_group(pid)
        any_failed = True
        summary["interrupted"] = True
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(root, ignore_errors=True)
    summary["total_seconds"] = round(time.monotonic() - started, 1)
    summary["failed"] = any_failed
    total_runs = sum(s["runs"] for s in summary["classes"].values())
    total_failed = sum(s["failed"] for s in summary["classes"].values())
    print(f"{len(summary['classes'])} classes, {total_runs} runs, {total_failed} failed, "
          f"{summary['total_seconds']:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1, ensure_ascii=False)
            f.write("\n")
    return 1 if any_failed else 0


if __name__ == "__main__":
    sys.exit(main())
