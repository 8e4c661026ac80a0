"""`tessel`: Tessel's command line (also `python3 -m tessel`).

    tessel info                          where the tools, runtime and schedules are
    tessel compile 1000 1000 1000 --dtype f16 --out k/
    tessel show 1000 1000 1000 --dtype f16    where a kernel's knobs come from
    tessel show k/matmul_relu.launch.json
    tessel tune 4096 4096 4096 --dtype f16 --budget 40       (needs a GPU)
    tessel race --dtypes f16 --shapes 4096 --out race        (needs a GPU)
    tessel plot tuning.json --out tuning.png
    tessel lit my-tests/                 runs lit on a user's test folder

Errors are printed as `tessel: error: ...` with exit status 1.
"""

import argparse
import json
import pathlib
import shutil
import sys

from . import install
from .errors import TesselError
from .workload import A_LAYOUTS, B_LAYOUTS, DTYPES


def _shape_args(p):
    p.add_argument("m", type=int)
    p.add_argument("n", type=int)
    p.add_argument("k", type=int)
    p.add_argument("--dtype", default="f16", choices=DTYPES)
    p.add_argument("--chip", default="sm_90",
                   help="the GPU's architecture (default: sm_90)")
    _layout_args(p)


def _layout_args(p):
    p.add_argument("--a", default="mk", choices=A_LAYOUTS,
                   help="how A is stored: mk (row-major, the default) or "
                   "km (its transpose)")
    p.add_argument("--b", default="kn", choices=B_LAYOUTS,
                   help="how B is stored: kn (row-major, the default) or "
                   "nk (its transpose, a Linear layer's weight)")


def _compile_args(p):
    p.add_argument("--schedule", help="a schedule library (default: the "
                   "dtype's and shape's, tried in order)")
    p.add_argument("--knobs", help="name=value,... (override every other "
                   "source)")
    p.add_argument("--defaults", default="rule",
                   choices=("rule", "nearest", "schedule"),
                   help="knobs without a tuned record (default: rule)")
    p.add_argument("--sm-count", type=int, help="multiprocessors, for the "
                   "rule (default: the chip's usual count)")
    p.add_argument("--device", help="use tuned records of this device (as "
                   "recorded, e.g. 'NVIDIA H100 80GB HBM3 (sm_90)')")
    p.add_argument("--db", action="append", type=pathlib.Path,
                   help="tuning databases (default: the user's, then the "
                   "schedule's shipped records); repeatable")


def _compile(args):
    from .compiler import compile_matmul_relu
    if min(args.m, args.n, args.k) < 1:
        raise TesselError(f"M, N and K must be positive, got "
                          f"{args.m}x{args.n}x{args.k}")
    return compile_matmul_relu(
        args.m, args.n, args.k, args.dtype, schedule=args.schedule,
        knobs=args.knobs, device=args.device, databases=args.db,
        chip=args.chip, sm_count=args.sm_count, defaults=args.defaults,
        a=args.a, b=args.b)


def _describe(kernel_dir, launch_file):
    """What a launch file says of its kernels' schedule and knobs."""
    try:
        launch = json.loads(pathlib.Path(launch_file).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise TesselError(f"cannot read launch file '{launch_file}': {e}")
    if not isinstance(launch, dict):
        raise TesselError(f"'{launch_file}' is not a Tessel launch file")
    schedule = launch.get("schedule") or {}
    knobs = (schedule.get("knobs") or {}) if isinstance(schedule, dict) else {}
    if not isinstance(schedule, dict) or not isinstance(knobs, dict):
        raise TesselError(f"'{launch_file}': \"schedule\" must be an object "
                          "with an object of \"knobs\"")
    lines = [f"function:    {launch.get('function', '?')}"]
    w = launch.get("workload")
    if isinstance(w, dict) and {"kind", "m", "n", "k"} <= w.keys():
        batch = "".join(f"{b}x" for b in w.get("batch") or [])
        layout = (f"A[{'k,m' if w.get('lhs_transposed') else 'm,k'}] "
                  f"B[{'n,k' if w.get('rhs_transposed') else 'k,n'}]")
        lines.append(f"workload:    {w['kind']} {batch}{w['m']}x{w['n']}x{w['k']}"
                     f", {layout}, accumulator {w.get('accumulator_type', '?')}")
        steps = w.get("epilogue") or []
        if w["kind"] == "matmul_relu":  # a launch file of Tessel <= 0.1
            steps = ["constant 0", "maximumf 0 1"]
        operands = w.get("epilogue_operands") or []
        lines.append("epilogue:    " + ("; ".join(map(str, steps)) or "(none)")
                     + "".join(f"; value {i + 1} = argument "
                               f"{o.get('argument')}[{','.join(o.get('dims', []))}]"
                               for i, o in enumerate(operands)
                               if isinstance(o, dict)))
    lines += [
        f"schedule:    {schedule.get('path', '(none recorded)')}",
        "knobs:       " + (" ".join(f"{k}={v}" for k, v in knobs.items())
                           or "(none)"),
        f"knob source: {schedule.get('knob_source', '(none recorded)')}",
        f"kernels:     {kernel_dir}",
    ]
    return "\n".join(lines)


def cmd_info(args):
    from . import __version__
    print(f"tessel {__version__} (Python package {pathlib.Path(__file__).parent})")
    print(f"home:        {install.home() or '(none found)'}")
    for name in ("tessel-opt", "tessel-run"):
        try:
            print(f"{name + ':':<13}{install.tool(name)}")
        except TesselError as e:
            print(f"{name + ':':<13}not found ({str(e).splitlines()[0]})")
    try:
        print(f"runtime:     {install.capi_library()}")
    except TesselError:
        print("runtime:     libTesselCAPI.so not found")
    print(f"schedules:   {install.schedules_dir()}")
    print(f"cache:       {install.cache_dir()}")
    return 0


def cmd_compile(args):
    compiled = _compile(args)
    directory = compiled.directory
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for f in directory.iterdir():
            if f.is_file():
                shutil.copy2(f, args.out / f.name)
        directory = args.out
    launch = directory / compiled.launch_file.name
    if args.json:
        print(json.dumps({
            "workload": compiled.workload, "chip": compiled.chip,
            "schedule": compiled.schedule, "knobs": compiled.knobs,
            "source": compiled.source, "knob_source": compiled.knob_source,
            "directory": str(directory), "launch_file": str(launch)},
            indent=1))
    else:
        print(_describe(directory, launch))
    return 0


def cmd_show(args):
    if len(args.what) == 1:
        path = pathlib.Path(args.what[0])
        launch = path / "matmul_relu.launch.json" if path.is_dir() else path
        print(_describe(launch.parent, launch))
        return 0
    if len(args.what) != 3 or not all(w.isdigit() for w in args.what):
        raise TesselError("show takes a launch file (or its folder), or M N K")
    args.m, args.n, args.k = map(int, args.what)
    compiled = _compile(args)
    print(_describe(compiled.directory, compiled.launch_file))
    return 0


def _devices(text):
    """--devices: "all" or ordinals separated by commas; None: unset."""
    if text is None or text == "all":
        return text
    try:
        return [int(d) for d in text.split(",")]
    except ValueError:
        raise TesselError(f"--devices takes 'all' or CUDA ordinals separated "
                          f"by commas, not '{text}'") from None


def cmd_tune(args):
    from .compiler import tune_matmul_relu
    compiled = tune_matmul_relu(
        args.m, args.n, args.k, args.dtype, schedule=args.schedule, db=args.db,
        budget=args.budget, strategy=args.strategy, seed=args.seed,
        device_ordinal=args.device, chip=args.chip, replay=args.replay,
        replay_device=args.replay_device, devices=_devices(args.devices),
        # The report streams to stderr as the tuner runs.
        verbose=True, a=args.a, b=args.b)
    print(_describe(compiled.directory, compiled.launch_file))
    return 0


def cmd_plot(args):
    from .database import Database
    # The database first: what is wrong with it is said with or without
    # matplotlib.
    db = Database.open(args.db)
    groups = {}
    for r in db.records:
        if args.workload and args.workload not in r.workload:
            continue
        groups.setdefault((r.workload, r.device), []).append(r)
    if not groups:
        raise TesselError(f"{args.db}: no records"
                          + (f" of '{args.workload}'" if args.workload else ""))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TesselError("tessel plot needs matplotlib (Debian: apt-get "
                          "install python3-matplotlib; pip install "
                          "matplotlib)") from None
    fig, axes = plt.subplots(len(groups), 1, squeeze=False,
                             figsize=(8, 2.6 * len(groups)))
    for ax, ((workload, device), records) in zip(axes[:, 0], groups.items()):
        ok = [(i, r.tflops) for i, r in enumerate(records) if r.ok]
        bad = [i for i, r in enumerate(records) if not r.ok]
        best, running = [], 0.0
        for i, t in ok:
            running = max(running, t)
            best.append((i, running))
        if ok:
            ax.scatter(*zip(*ok), s=10, label="trial (ok)")
            ax.step(*zip(*best), where="post", color="C3", label="best so far")
        if bad:
            ax.scatter(bad, [0] * len(bad), marker="x", color="0.5", s=12,
                       label="failed or refused")
        ax.set_title(f"{workload} on {device}", fontsize=9)
        ax.set_xlabel("trial")
        ax.set_ylabel("TFLOP/s")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out} ({len(groups)} workload(s), "
          f"{sum(map(len, groups.values()))} records)")
    return 0


def _import_lit():
    """lit's Python package: importable already, or beside Debian's LLVM or
    in a bundle made with --with-tests."""
    try:
        import lit.main
        return lit.main
    except ImportError:
        pass
    import glob
    h = install.home()
    places = ([str(h)] if h else []) + sorted(
        glob.glob("/usr/lib/llvm-*/utils/lit"), reverse=True)
    for place in places:
        if pathlib.Path(place, "lit", "main.py").is_file():
            sys.path.insert(0, place)
            import lit.main
            return lit.main
    raise TesselError("cannot find lit (looked for an importable 'lit' and "
                      "in: " + ", ".join(places) + "); install llvm-22-tools "
                      "or pip install lit")


def cmd_lit(args):
    main = _import_lit()
    sys.argv = ["tessel lit"] + args.rest
    try:
        main.main()
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None
                                                       else 1)
    return 0


def cmd_race(args):
    from . import race
    return race.main(args.rest, prog="tessel race")


# Commands that hand everything after their name to their own parsers
# (argparse's REMAINDER would stop at the first --option): name -> (command,
# help).
_PASS_THROUGH = {
    "race": (cmd_race, "race Tessel against cuBLAS, cuBLASLt, Triton and "
             "torch.compile (tessel race --help)"),
    "lit": (cmd_lit, "run lit on a test folder whose lit.cfg.py uses "
            "tessel.lit (tessel lit --help)"),
}


def parser():
    p = argparse.ArgumentParser(
        prog="tessel", description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n", 2)[2])
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("info", help="where the tools, runtime and schedules are")
    s.set_defaults(run=cmd_info)

    s = sub.add_parser("compile", help="compile relu(A x B) for a shape")
    _shape_args(s)
    _compile_args(s)
    s.add_argument("--out", type=pathlib.Path,
                   help="copy the PTX and launch file here")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(run=cmd_compile)

    s = sub.add_parser("show", help="where a kernel's knobs came from",
                       description="Shows a kernel's schedule, knobs and "
                       "their source: of a launch file (or its folder), or "
                       "of the kernel compile would make for M N K.")
    s.add_argument("what", nargs="+", metavar="LAUNCH_FILE | M N K")
    s.add_argument("--dtype", default="f16", choices=DTYPES)
    s.add_argument("--chip", default="sm_90")
    _layout_args(s)
    _compile_args(s)
    s.set_defaults(run=cmd_show)

    s = sub.add_parser("tune", help="tune a shape's knobs on the GPU")
    _shape_args(s)
    s.add_argument("--schedule")
    s.add_argument("--db", type=pathlib.Path,
                   help="the database to record trials in (default: the "
                   "user's)")
    s.add_argument("--budget", type=int, default=40)
    s.add_argument("--strategy", default="evolutionary")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--device", type=int, default=0, help="CUDA ordinal")
    s.add_argument("--devices", help="GPUs measuring at once: 'all' or "
                   "ordinals separated by commas (default: --device)")
    s.add_argument("--replay", type=pathlib.Path,
                   help="take measurements from this database (no GPU)")
    s.add_argument("--replay-device")
    s.set_defaults(run=cmd_tune)

    s = sub.add_parser("plot", help="plot a tuning database's trials")
    s.add_argument("db", type=pathlib.Path)
    s.add_argument("--out", type=pathlib.Path, default=pathlib.Path("tuning.png"))
    s.add_argument("--workload", help="only workloads containing this text")
    s.set_defaults(run=cmd_plot)

    # Listed for --help only: main() hands their arguments on unparsed.
    for name, (_, text) in _PASS_THROUGH.items():
        sub.add_parser(name, add_help=False, help=text)
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in _PASS_THROUGH:
        return _run(_PASS_THROUGH[argv[0]][0],
                    argparse.Namespace(rest=argv[1:]))
    return _run(None, parser().parse_args(argv))


def _run(command, args):
    command = command or args.run
    try:
        return command(args)
    except TesselError as e:
        print(f"tessel: error: {e}", file=sys.stderr)
        return 1
    except ValueError as e:  # Bad knobs text and the like.
        print(f"tessel: error: {e}", file=sys.stderr)
        return 1
