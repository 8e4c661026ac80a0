"""Compiling and tuning matmul+ReLU kernels with tessel-opt.

Both run tessel-opt on the workload's IR (tessel.workload) and export the
kernels (PTX and `matmul_relu.launch.json`) into a directory of the cache
($TESSEL_CACHE, else ~/.cache/tessel). Compiled kernels are reused when the
IR, schedule, knobs, tuning record, chip and tessel-opt binary are the same.
"""

import dataclasses
import hashlib
import json
import os
import pathlib
import re
import subprocess
import tempfile
import warnings

from . import install
from .database import Database
from .errors import TesselError
from .workload import (SCHEDULE_FOR_CHIP_AND_DTYPE, SCHEDULE_FOR_DTYPE,
                       matmul_relu_ir, matmul_relu_key)


class TesselWarning(UserWarning):
    """Something worked, but not as well as it could: e.g. no tuned record,
    so a kernel uses its schedule's default knobs."""


@dataclasses.dataclass(frozen=True)
class CompiledKernel:
    """Kernels exported by tessel-opt, and where their knobs came from."""
    directory: pathlib.Path  # Holds input.mlir, the PTX and the launch file.
    launch_file: pathlib.Path
    workload: str            # "matmul_relu 4096x4096x4096 f16->f16 acc=f32"
    schedule: str            # Path of the schedule library.
    knobs: dict              # The knob values applied (from the launch file).
    source: str              # "tuned: <db>", "knobs", "defaults" or "tune: <db>"
    chip: str
    log: str = ""            # The tuner's report (tune_matmul_relu).


def default_schedule(dtype, chip="sm_90"):
    """The schedule library for `dtype` on a `chip` GPU: wgmma + TMA for
    f16/bf16 on Hopper (sm_90), mma.sync for f16/bf16 elsewhere, SIMT for
    f32."""
    name = SCHEDULE_FOR_CHIP_AND_DTYPE.get((chip, dtype),
                                           SCHEDULE_FOR_DTYPE[dtype])
    return install.schedules_dir() / name


_TARGET_CHIP = re.compile(r'tessel\.target_chip\s*=\s*"(sm_\w+)"')


def _schedule_and_target(schedule, dtype, chip):
    """The schedule library to use (`schedule`, or the default for `dtype`
    on a `chip` GPU) and the chip to compile it for."""
    schedule = (pathlib.Path(schedule) if schedule
                else default_schedule(dtype, chip))
    if not schedule.is_file():
        raise TesselError(f"no schedule library '{schedule}'")
    return schedule, target_chip(schedule, chip)


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
    """The database tessel.tune writes by default."""
    return install.cache_dir() / "tuning.json"


def default_databases(schedule):
    """Where matmul_relu looks for tuned knobs: the user's database, then the
    records shipped for the schedule (schedules/tuned/<schedule>-*.json)."""
    schedule = pathlib.Path(schedule)
    dbs = [user_database()]
    dbs += sorted((schedule.parent / "tuned").glob(f"{schedule.stem}-*.json"))
    return [db for db in dbs if db.is_file()]


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


def _run(cmd, what):
    result = subprocess.run([str(c) for c in cmd], capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise TesselError(f"{what} failed (tessel-opt exit "
                          f"{result.returncode}):\n{result.stderr.strip()}")
    return result


def _finish(directory, workload, schedule, source, chip, log=""):
    launch = directory / "matmul_relu.launch.json"
    meta = json.loads(launch.read_text())
    knobs = meta.get("schedule", {}).get("knobs", {})
    return CompiledKernel(directory, launch, workload, str(schedule), knobs,
                          source, chip, log)


def _find_record(workload, device, databases):
    for db in databases:
        if Database.open(db).best(workload, device) is not None:
            return pathlib.Path(db)
    return None


def compile_matmul_relu(m, n, k, dtype="f16", *, schedule=None, knobs=None,
                        device=None, databases=None, chip="sm_90"):
    """Compiles C = relu(A x B) for one shape and dtype; returns its
    CompiledKernel.

    Knobs: with `device` (a tuning-database device name such as
    "NVIDIA H100 80GB HBM3 (sm_90)"), the first of `databases` (default:
    default_databases) that has a record of this workload on that device
    supplies them, as tessel-opt's `db=` option; `knobs` (a dict or
    "name=value,..." text) override single values. Without a record the
    schedule's defaults apply, with a TesselWarning when a device was given.
    Compile errors (e.g. a tile that does not divide the shape) raise
    TesselError with tessel-opt's located diagnostics.
    """
    workload = matmul_relu_key(m, n, k, dtype)
    schedule, chip = _schedule_and_target(schedule, dtype, chip)
    knob_text = _knob_text(knobs) if knobs else ""
    db = None
    if device is not None:
        if databases is None:
            databases = default_databases(schedule)
        db = _find_record(workload, device, databases)
        if db is None:
            warnings.warn(
                f"no tuning record of '{workload}' on '{device}' in "
                f"{[str(d) for d in databases] or 'any database'}; using "
                f"{schedule.name}'s default knobs (tessel.tune improves "
                "them)", TesselWarning, stacklevel=2)
    source = f"tuned: {db}" if db else ("knobs" if knob_text else "defaults")

    opt = install.tool("tessel-opt")
    ir = matmul_relu_ir(m, n, k, dtype)
    options = f"schedule={schedule}"
    if db:
        options += f" db={db} device=\"{device}\""
    if knob_text:
        options += f" knobs={knob_text}"
    key = _digest(ir, schedule.read_bytes(), options,
                  db.read_bytes() if db else b"", chip, _tool_identity(opt))
    directory = install.cache_dir() / "kernels" / key
    if (directory / "matmul_relu.launch.json").is_file():
        return _finish(directory, workload, schedule, source, chip)

    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(tempfile.mkdtemp(prefix=key, dir=directory.parent))
    (staging / "input.mlir").write_text(ir)
    _run([opt, staging / "input.mlir",
          f"--tessel-apply-schedule={options}",
          f"--tessel-lower-to-ptx=chip={chip}",
          f"--tessel-export-kernels=dir={staging}", "-o", os.devnull],
         f"compiling '{workload}' with {schedule.name} ({source})")
    try:
        staging.rename(directory)  # Atomic; a concurrent twin may win.
    except OSError:
        pass
    if not (directory / "matmul_relu.launch.json").is_file():
        directory = staging
    return _finish(directory, workload, schedule, source, chip)


def tune_matmul_relu(m, n, k, dtype="f16", *, schedule=None, db=None,
                     budget=40, strategy="evolutionary", seed=1,
                     device_ordinal=0, chip="sm_90", replay=None,
                     replay_device=None, verbose=False):
    """Tunes the schedule's knobs for one shape on the GPU, records every
    trial in `db` (default: user_database()), where matmul_relu then finds
    the winner, and returns the winner, compiled, with the tuner's report
    as `log`. Measurements run in tessel-run (beside tessel-opt).

    replay: take measurements from a recorded database instead of a GPU
    (nothing is written to `db` then: replayed times are not measurements).
    """
    workload = matmul_relu_key(m, n, k, dtype)
    schedule, chip = _schedule_and_target(schedule, dtype, chip)
    db = pathlib.Path(db) if db else user_database()
    db.parent.mkdir(parents=True, exist_ok=True)
    options = (f"schedule={schedule} strategy={strategy} budget={int(budget)} "
               f"db={db} seed={int(seed)} device={int(device_ordinal)} "
               f"chip={chip}")
    if replay:
        options += f" replay={replay}"
        if replay_device:
            options += f" replay-device={replay_device}"
    opt = install.tool("tessel-opt")
    ir = matmul_relu_ir(m, n, k, dtype)
    directory = install.cache_dir() / "kernels" / (
        "tune-" + _digest(ir, schedule.read_bytes(), options, chip,
                          _tool_identity(opt)))
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "input.mlir").write_text(ir)
    result = _run([opt, directory / "input.mlir", f"--tessel-tune={options}",
                   f"--tessel-lower-to-ptx=chip={chip}",
                   f"--tessel-export-kernels=dir={directory}", "-o",
                   os.devnull], f"tuning '{workload}' with {schedule.name}")
    log = result.stdout + result.stderr
    if verbose:
        print(log, end="")
    return _finish(directory, workload, schedule, f"tune: {db}", chip, log)
