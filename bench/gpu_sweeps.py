#!/usr/bin/env python3
"""Runs the knob sweeps of the GPU lit tests (their `bench/check_shapes.py`
RUN lines) without lit, e.g. with a bundle built without its tests:
each sweep's status line and any FAIL line, in the order of the tests,
until a time limit.

    B=/tmp/tessel/tessel python3 bench/gpu_sweeps.py OUT --seconds 520 \\
        [--tests knob-sweep-persistent-gpu,...] [--match wgmma] [--first N]
        [--only TEST:I,TEST:J,...]

B is the bundle's root (bin/, schedules/); each sweep writes its JSON to
OUT/<test>-<n>.json. Exit status 1 if a sweep failed or did not finish.
"""

import argparse
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ("knob-sweep-persistent-gpu", "knob-sweep-stream-k-gpu",
         "knob-sweep-cluster-gpu", "knob-sweep-split-gpu",
         "knob-sweep-staged-read-gpu", "knob-sweep-gpu")


def run_commands(test):
    """A lit test's RUN commands (continued lines joined)."""
    lines = [line[len("# RUN:"):].strip()
             for line in (ROOT / "test" / "Runtime" / f"{test}.test")
             .read_text().splitlines() if line.startswith("# RUN:")]
    commands, current = [], ""
    for line in lines:
        current += " " + line.rstrip("\\").strip()
        if not line.endswith("\\"):
            commands.append(current.strip())
            current = ""
    return commands


def sweep_commands(test):
    """The check_shapes.py commands of a lit test's RUN lines, the pipe to
    FileCheck dropped."""
    return [c.split("|")[0] for c in run_commands(test)
            if "check_shapes.py" in c]


def setup_commands(test):
    """The RUN lines that write a file the sweeps read (a schedule edited
    with sed, e.g. knob-sweep-staged-read-gpu's)."""
    return [c for c in run_commands(test)
            if c.startswith("sed ") and "check_shapes.py" not in c]


def substitute(command, test, i, bundle, out):
    """lit's substitutions: %t.<name> is the test's file <name> in OUT, but
    the sweep's own JSON (--out %t.<name>) is numbered by the sweep."""
    command = command.replace("--out %t.", f"--out {out}/{test}-{i}.")
    return (command.replace("%tessel_src/", f"{ROOT}/")
            .replace("%tessel_tools", f"{bundle}/bin")
            .replace("%schedules", f"{bundle}/schedules")
            .replace("%S/", f"{ROOT}/test/Runtime/")
            .replace("%t.", f"{out}/{test}.")
            .replace("%%", "%"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--seconds", type=float, default=520)
    p.add_argument("--tests", default=",".join(TESTS))
    p.add_argument("--match", default="wgmma",
                   help="only the sweeps whose command contains this")
    p.add_argument("--first", type=int, default=0,
                   help="at most this many sweeps of each test (0: all)")
    p.add_argument("--only", default="",
                   help="only these sweeps, TEST:I (the I-th RUN line of "
                   "check_shapes.py in TEST, from 0), comma-separated")
    args = p.parse_args()
    bundle = os.environ["B"]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    deadline = time.time() + args.seconds
    ok = True
    for test in args.tests.split(","):
        taken = 0
        for command in setup_commands(test):
            r = subprocess.run(substitute(command, test, 0, bundle, out),
                               shell=True, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{test}: setup failed: {command}\n{r.stderr}",
                      flush=True)
                ok = False
        for i, command in enumerate(sweep_commands(test)):
            if args.match not in command:
                continue
            if args.only and f"{test}:{i}" not in args.only.split(","):
                continue
            if args.first and taken == args.first:
                break
            taken += 1
            command = substitute(command, test, i, bundle, out)
            left = deadline - time.time()
            if left < 20:
                print(f"{test} {i}: not run (time)", flush=True)
                ok = False
                continue
            try:
                r = subprocess.run(command, shell=True, capture_output=True,
                                   text=True, timeout=left)
            except subprocess.TimeoutExpired:
                print(f"{test} {i}: timed out", flush=True)
                ok = False
                continue
            lines = r.stdout.splitlines()
            status = [line for line in lines if line.startswith("status")]
            fails = [line for line in lines if "FAIL" in line]
            ok &= r.returncode == 0 and not fails and bool(status)
            print(f"{test} {i}: rc {r.returncode} {status} "
                  f"{len(fails)} FAIL lines {fails[:3]}", flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
