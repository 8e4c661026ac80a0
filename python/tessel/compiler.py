"""Compiling and tuning kernels with tessel-opt: relu(A x B) and Linear
layers (act(x W^T + b)).

Both run tessel-opt on the workload's IR (tessel.workload) and export the
kernels (PTX and `<function>.launch.json`) into a directory of the cache
($TESSEL_CACHE, else ~/.cache/tessel). Compiled kernels are reused when the
IR, schedules, knobs, tuning records, chip and tessel-opt binary are the
same.
"""

import dataclasses
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

from . import install
from .errors import TesselError
from .workload import (ELEMENT_BYTES, SCHEDULE_FOR_CHIP_AND_DTYPE,
                       SCHEDULE_FOR_DTYPE, linear_ir, linear_name, matmul_relu_ir,
                       matmul_relu_key, rows_aligned)


class TesselWarning(UserWarning):
    """Something worked, but not as well as it could."""


@dataclasses.dataclass(frozen=True)
class CompiledKernel:
    """Kernels exported by tessel-opt, and where their knobs came from."""
    directory: pathlib.Path  # Holds input.mlir, the PTX and the launch file.
    launch_file: pathlib.Path
    workload: str            # "matmul_relu 4096x4096x4096 f16->f16 acc=f32",
                             # "linear 8192x4096x4096 bf16 W[n,k] +bias gelu_tanh"
    schedule: str            # The schedule library tessel-opt applied.
    knobs: dict              # The knob values applied (from the launch file).
    source: str              # "tuned: <db>", "knobs", "rule", "nearest
                             # record", "schedule defaults" or "tune: <db>"
    chip: str
    log: str = ""            # The tuner's report (tune_matmul_relu).
    knob_source: str = ""    # tessel-opt's account of the knobs: "tuned on
                             # <device> in <db>", "rule (sm_90, 132 SMs)", ...


# K up to which a 16-bit shape whose rows TMA and cp.async cannot read goes
# to SIMT first: the tensor-core schedules copy such operands into aligned
# workspaces in a kernel of their own, which doubles the time of a one-step
# K loop; SIMT reads the rows directly in one launch. H100: 4.4 against
# 9.4 us at 43x155x3 f16, faster on 15 of 17 such shapes with K <= 27, and
# slower from K ~ 40 (bench/results/any-shape/schedule-choice.json).
SIMT_MISALIGNED_MAX_K = 16

# K up to which an f32 shape goes to SIMT first: 3xTF32 on tensor cores
# copies B stored [k, n] transposed (and rows that are not 16-byte aligned)
# in kernels of their own, and a short K loop does not pay for them. With B
# stored [n, k] (a Linear layer's weight) there is no transposing copy, and
# SIMT, which then reads B across its rows, serves such shapes only up to
# SIMT_F32_NK_MAX_MACS multiply-adds. H100, 112 f32 shapes each way: SIMT
# first for K <= 24 is 1.27x faster in geometric mean with B [k, n]
# (1.21x-2.56x on each of the 43 shapes it moves) and, with the bound,
# 1.19x with B [n, k] (1.04x-2.29x on 37); 4096x4096x16 with B [n, k] ran
# 2x slower on SIMT (bench/results/f32, "SIMT for a short K"). With B
# stored [k, n], tiny problems with K up to SIMT_F32_TINY_MAX_K go to SIMT
# first too, up to SIMT_F32_TINY_MAX_MACS multiply-adds: there the copy's
# launch is most of the time (6 such shapes of the 112: 1.16x-1.89x on an
# H100, 1.04x-1.92x on an H200).
SIMT_F32_MAX_K = 24
SIMT_F32_NK_MAX_MACS = 2**24
SIMT_F32_TINY_MAX_K = 64
SIMT_F32_TINY_MAX_MACS = 2**21


def default_schedules(dtype, chip="sm_90", shape=None, b_stored="kn",
                      a_stored="mk"):
    """The schedule libraries for `dtype` on a `chip` GPU, in the order
    tessel-opt tries them: wgmma + TMA, then mma.sync, then SIMT for
    f16/bf16 on Hopper (sm_90); mma.sync, then SIMT elsewhere (SIMT alone
    before sm_80, which lacks mma.sync's cp.async); for f32, wgmma (3xTF32,
    or TF32 where allowed: docs/f32.md) then SIMT on Hopper, SIMT
    elsewhere. With `shape` (M, N, K), SIMT goes first for a 16-bit shape
    whose rows are not 16-byte aligned and whose K is at most
    SIMT_MISALIGNED_MAX_K, and for an f32 shape whose K is at most
    SIMT_F32_MAX_K (with B stored "nk", a Linear layer's weight, only up to
    SIMT_F32_NK_MAX_MACS multiply-adds; with B stored "kn", matmul_relu's
    B, also a tiny one of K up to SIMT_F32_TINY_MAX_K; an A stored "km"
    has rows of M elements). Schedules whose
    kernels do not run on `chip` (their tessel.target_chip or
    tessel.min_chip) are left out."""
    names = [SCHEDULE_FOR_CHIP_AND_DTYPE.get((chip.rstrip("a"), dtype)),
             SCHEDULE_FOR_DTYPE[dtype], SCHEDULE_FOR_DTYPE["f32"]]
    if shape and _simt_first(dtype, shape, b_stored, a_stored):
        names.insert(0, SCHEDULE_FOR_DTYPE["f32"])
    paths = [install.schedules_dir() / n for n in dict.fromkeys(names) if n]
    return [p for p in paths if not p.is_file() or runs_on(p, chip)]


def _simt_first(dtype, shape, b_stored, a_stored="mk"):
    """Whether SIMT serves `shape` best before the tensor-core schedules
    (default_schedules)."""
    m, n, k = shape
    if dtype in ("f16", "bf16"):
        aligned = rows_aligned(n, k, dtype) and (
            a_stored == "mk" or m * ELEMENT_BYTES[dtype] % 16 == 0)
        return k <= SIMT_MISALIGNED_MAX_K and not aligned
    if b_stored == "kn":
        return k <= SIMT_F32_MAX_K or (k <= SIMT_F32_TINY_MAX_K and
                                       m * n * k <= SIMT_F32_TINY_MAX_MACS)
    return k <= SIMT_F32_MAX_K and m * n * k <= SIMT_F32_NK_MAX_MACS


def default_schedule(dtype, chip="sm_90", shape=None, b_stored="kn",
                     a_stored="mk"):
    """The first of default_schedules(dtype, chip, shape, b_stored,
    a_stored)."""
    return default_schedules(dtype, chip, shape, b_stored, a_stored)[0]


_TARGET_CHIP = re.compile(r'tessel\.target_chip\s*=\s*"(sm_\w+)"')
_MIN_CHIP = re.compile(r'tessel\.min_chip\s*=\s*"(sm_\w+)"')


def _sm(chip):
    m = re.fullmatch(r"sm_(\d+)a?", chip)
    if not m:
        raise ValueError(f"'{chip}' is not a chip name (sm_80, sm_90a, ...)")
    return int(m.group(1))


def runs_on(schedule, chip):
    """Whether `schedule`'s kernels run on a `chip` GPU, by the chips it
    declares (tessel.target_chip: that chip's family; tessel.min_chip: that
    chip or later), as tessel-opt's apply-schedule decides."""
    text = pathlib.Path(schedule).read_text()
    target, least = _TARGET_CHIP.search(text), _MIN_CHIP.search(text)
    if target and _sm(target.group(1)) != _sm(chip):
        return False
    return not least or _sm(chip) >= _sm(least.group(1))


def _schedules_and_target(schedule, dtype, chip, shape=None, b_stored="kn",
                          a_stored="mk"):
    """The schedule libraries to try (`schedule`, or the defaults for
    `dtype` and `shape` on a `chip` GPU) and the chip to compile them for:
    the most specific target any of them declares (sm_90a code needs an
    sm_90 GPU; what the others produce runs there too)."""
    schedules = ([pathlib.Path(schedule)] if schedule
                 else default_schedules(dtype, chip, shape, b_stored,
                                        a_stored))
    for s in schedules:
        if not s.is_file():
            where = ("given as schedule=" if schedule else
                     "from $TESSEL_HOME" if os.environ.get("TESSEL_HOME")
                     else "the package's own")
            raise TesselError(f"no schedule library '{s}' ({where}); "
                              "TESSEL_HOME, when set, must hold schedules/")
    targets = [target_chip(s, chip) for s in schedules]
    return schedules, max(targets, key=len)


def target_chip(schedule, chip):
    """The chip to compile `schedule` for on a `chip` GPU: the one the
    schedule declares (`tessel.target_chip`, e.g. sm_90a for wgmma, whose
    code runs on sm_90 GPUs only), else `chip`."""
    m = _TARGET_CHIP.search(pathlib.Path(schedule).read_text())
    if not m:
        return chip
    target = m.group(1)
    if target.rstrip("a") != chip.rstrip("a"):
        raise TesselError(f"schedule '{schedule}' targets {target}; it "
                          f"cannot run on a {chip} GPU")
    return target


def user_database():
    """The database tessel.tune writes by default (SQLite)."""
    return install.cache_dir() / "tuning.db"


def default_databases(schedules):
    """Where matmul_relu looks for tuned knobs: the user's database, then the
    records shipped for each schedule (schedules/tuned/<schedule>-*.json)."""
    if isinstance(schedules, (str, pathlib.Path)):
        schedules = [schedules]
    # tuning.json: the user's database before it was SQLite, still read.
    dbs = [user_database(), install.cache_dir() / "tuning.json"]
    for schedule in map(pathlib.Path, schedules):
        dbs += sorted((schedule.parent / "tuned").glob(f"{schedule.stem}-*.json"))
    return [db for db in dict.fromkeys(dbs) if db.is_file()]


def _knob_text(knobs):
    if isinstance(knobs, str):
        items = [kv.split("=", 1) for kv in knobs.split(",") if kv.strip()]
    else:
        items = list(dict(knobs).items())
    out = []
    for item in items:
        if len(item) != 2:
            raise ValueError(f"knobs must be name=value pairs, got {knobs!r}")
        name, value = str(item[0]).strip(), str(item[1]).strip()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or \
                not re.fullmatch(r"[A-Za-z0-9_.+-]+", value):
            raise ValueError(f"bad knob assignment {name}={value!r}")
        out.append(f"{name}={value}")
    return ",".join(out)


def _digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def _tool_identity(path):
    st = os.stat(os.path.realpath(path))
    return f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}"


def _run(cmd, what, echo=None):
    """Runs a tool; with `echo` (a text stream), its stderr is also copied
    there line by line as it comes."""
    if echo is None:
        result = subprocess.run([str(c) for c in cmd], capture_output=True,
                                text=True)
    else:
        # One pipe for both streams: reading one while the other fills up
        # could block the tool.
        with subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) as p:
            lines = []
            for line in p.stdout:
                echo.write(line)
                echo.flush()
                lines.append(line)
        result = subprocess.CompletedProcess(p.args, p.returncode, "",
                                             "".join(lines))
    if result.returncode != 0:
        raise TesselError(f"{what} failed (tessel-opt exit "
                          f"{result.returncode}):\n{result.stderr.strip()}")
    return result


def _source(knob_source):
    """CompiledKernel.source from tessel-opt's knob_source."""
    base = knob_source.split(";")[0]
    if base.startswith("tuned on ") and " in " in base:
        return "tuned: " + base.rsplit(" in ", 1)[1]
    if base == "given":
        return "knobs"
    return base.split(" (")[0].split(":")[0]


def _finish(directory, workload, chip, source=None, log="",
            function="matmul_relu"):
    launch = directory / f"{function}.launch.json"
    meta = json.loads(launch.read_text()).get("schedule", {})
    knob_source = meta.get("knob_source", "")
    return CompiledKernel(directory, launch, workload, meta.get("path", ""),
                          meta.get("knobs", {}),
                          source or _source(knob_source), chip, log,
                          knob_source)


def compile_matmul_relu(m, n, k, dtype="f16", *, schedule=None, knobs=None,
                        device=None, databases=None, chip="sm_90",
                        sm_count=None, defaults="rule", a="mk", b="kn"):
    """Compiles C = relu(A x B) for one shape and dtype; returns its
    CompiledKernel. A is stored `a` ("mk", row-major, or "km", its
    transpose), B `b` ("kn", row-major, or "nk", its transpose): all four
    layouts run on every schedule.

    Schedule: `schedule`, or default_schedules(dtype, chip, (m, n, k)),
    which tessel-opt tries in order (wgmma, then mma.sync, for 16-bit inputs
    on Hopper; SIMT first for misaligned 16-bit rows with a small K and for
    f32 with a small K) until one serves the shape. Knobs, first source that has them: `knobs` (a dict
    or "name=value,..." text) for the knobs it names; the fastest record of
    this workload in `databases` (default: default_databases) for `device`
    (a tuning-database device name such as "NVIDIA H100 80GB HBM3 (sm_90)"),
    else for another GPU of its architecture; then, by `defaults`, the rule
    ("rule": a model of the schedule's knobs on a `chip` GPU with
    `sm_count` multiprocessors), the nearest tuned shape ("nearest") or the
    schedule's own values ("schedule"). CompiledKernel.knob_source says
    which. Compile errors raise TesselError with tessel-opt's located
    diagnostics.
    """
    return _compile(matmul_relu_ir(m, n, k, dtype, a=a, b=b), "matmul_relu",
                    matmul_relu_key(m, n, k, dtype, a=a, b=b), (m, n, k),
                    dtype, schedule=schedule, knobs=knobs, device=device,
                    databases=databases, chip=chip, sm_count=sm_count,
                    defaults=defaults, b_stored=b, a_stored=a)


def compile_linear(m, n, k, dtype="f16", *, bias=True, activation=None,
                   weight="nk", schedule=None, knobs=None, device=None,
                   databases=None, chip="sm_90", sm_count=None,
                   defaults="rule", allow_tf32=False):
    """Compiles a Linear layer, y = activation(x W^T + b) with x m x k,
    y m x n, the weight W stored "nk" (n x k, PyTorch's layout) or "kn"
    (its transpose), an optional bias of n elements and an activation
    (None, "relu", "gelu", "gelu_tanh", "silu"); returns its CompiledKernel,
    whose launch file takes (x, W, [b,] y). Schedules, knobs and the rest:
    as compile_matmul_relu; f32 with W stored "nk" tries wgmma first on
    Hopper, SIMT first for a small problem with a short K
    (default_schedules). `allow_tf32`: f32 inputs may be multiplied as TF32
    (as torch.backends.cuda.matmul.allow_tf32); otherwise tensor cores keep
    FP32-level accuracy (3xTF32, docs/f32.md)."""
    ir = linear_ir(m, n, k, dtype, bias=bias, activation=activation,
                   weight=weight, allow_tf32=allow_tf32)
    return _compile(ir, "linear",
                    linear_name(m, n, k, dtype, bias=bias,
                                activation=activation, weight=weight),
                    (m, n, k), dtype, schedule=schedule, knobs=knobs,
                    device=device, databases=databases, chip=chip,
                    sm_count=sm_count, defaults=defaults, b_stored=weight)


def _compile(ir, function, workload, shape, dtype, *, schedule, knobs,
             device, databases, chip, sm_count, defaults, b_stored="kn",
             a_stored="mk"):
    """Compiles the payload `ir` (one function, `function`) into the cache;
    `workload` names it in messages."""
    schedules, chip = _schedules_and_target(schedule, dtype, chip, shape,
                                            b_stored, a_stored)
    knob_text = _knob_text(knobs) if knobs else ""
    if defaults not in ("rule", "nearest", "schedule"):
        raise ValueError(f"defaults must be rule, nearest or schedule, "
                         f"got {defaults!r}")
    if databases is None:
        databases = default_databases(schedules)
    databases = [pathlib.Path(db) for db in databases]

    opt = install.tool("tessel-opt")
    options = "schedule=" + ",".join(map(str, schedules))
    options += f" chip={chip} defaults={defaults}"
    if sm_count:
        options += f" sm-count={int(sm_count)}"
    if databases:
        options += " db=" + ",".join(map(str, databases))
    if device:
        options += f" device=\"{device}\""
    if knob_text:
        options += f" knobs={knob_text}"
    key = _digest(ir, *(s.read_bytes() for s in schedules), options,
                  *(db.read_bytes() for db in databases if db.is_file()),
                  chip, _tool_identity(opt))
    directory = install.cache_dir() / "kernels" / key
    launch = f"{function}.launch.json"
    if (directory / launch).is_file():
        return _finish(directory, workload, chip, function=function)

    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(tempfile.mkdtemp(prefix=key, dir=directory.parent))
    (staging / "input.mlir").write_text(ir)
    _run([opt, staging / "input.mlir",
          f"--tessel-apply-schedule={options}",
          f"--tessel-lower-to-ptx=chip={chip}",
          f"--tessel-export-kernels=dir={staging}", "-o", os.devnull],
         f"compiling '{workload}' with "
         f"{', '.join(s.name for s in schedules)}")
    try:
        staging.rename(directory)  # Atomic; a concurrent twin may win.
    except OSError:
        pass
    if not (directory / launch).is_file():
        directory = staging
    return _finish(directory, workload, chip, function=function)


def tune_matmul_relu(m, n, k, dtype="f16", *, schedule=None, db=None,
                     budget=40, strategy="evolutionary", seed=1,
                     device_ordinal=0, devices=None, chip="sm_90",
                     replay=None, replay_device=None, verbose=None, a="mk",
                     b="kn"):
    """Tunes the schedule's knobs for one shape on the GPU (A stored `a`, B
    `b`, as compile_matmul_relu's), records every
    trial in `db` (default: user_database()), where matmul_relu then finds
    the winner, and returns the winner, compiled, with the tuner's report
    as `log`. Measurements run in tessel-run (beside tessel-opt). The
    schedule is `schedule`, else the first of default_schedules.

    devices: GPUs that measure candidates at once, one measurement worker
    each: a list of CUDA ordinals, or "all" (default: device_ordinal alone).
    replay: take measurements from a recorded database instead of a GPU
    (nothing is written to `db` then: replayed times are not measurements).
    verbose: print the tuner's report on stderr as it runs, each trial and a
    progress line (trials, best, elapsed, time left) every tenth of the
    budget; the default is $TESSEL_PRINT_AUTOTUNING=1 (as Triton's
    TRITON_PRINT_AUTOTUNING).
    """
    if verbose is None:
        verbose = os.environ.get("TESSEL_PRINT_AUTOTUNING", "") not in (
            "", "0")
    workload = matmul_relu_key(m, n, k, dtype, a=a, b=b)
    schedules, chip = _schedules_and_target(
        schedule or default_schedule(dtype, chip, (m, n, k), b, a), dtype,
        chip)
    schedule = schedules[0]
    db = pathlib.Path(db) if db else user_database()
    db.parent.mkdir(parents=True, exist_ok=True)
    options = (f"schedule={schedule} strategy={strategy} budget={int(budget)} "
               f"db={db} seed={int(seed)} device={int(device_ordinal)} "
               f"chip={chip}")
    if devices is not None:
        if devices == "all":
            options += " devices=all"
        else:
            ordinals = [int(d) for d in devices]
            if not ordinals or min(ordinals) < 0:
                raise ValueError("devices must be 'all' or a non-empty list "
                                 f"of CUDA ordinals >= 0, not {devices!r}")
            options += " devices=" + ",".join(str(d) for d in ordinals)
    if replay:
        options += f" replay={replay}"
        if replay_device:
            options += f" replay-device={replay_device}"
    opt = install.tool("tessel-opt")
    ir = matmul_relu_ir(m, n, k, dtype, a=a, b=b)
    directory = install.cache_dir() / "kernels" / (
        "tune-" + _digest(ir, schedule.read_bytes(), options, chip,
                          _tool_identity(opt)))
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "input.mlir").write_text(ir)
    progress = "lines" if verbose else "none"
    result = _run([opt, directory / "input.mlir",
                   f"--tessel-tune={options} progress={progress}",
                   f"--tessel-lower-to-ptx=chip={chip}",
                   f"--tessel-export-kernels=dir={directory}", "-o",
                   os.devnull], f"tuning '{workload}' with {schedule.name}",
                  echo=sys.stderr if verbose else None)
    log = result.stdout + result.stderr
    return _finish(directory, workload, chip, f"tune: {db}", log)
