#!/usr/bin/env python3
"""Checks the tuner's constraints (the rule's model of what each schedule
refuses or what would spill, KnobChoice.cpp) against recorded tuning
databases: for every matmul_relu workload and device recorded, replays the
records with tessel-tune (replay=, strategy exhaustive, budget 1) and
collects its "constraints vs the recorded candidates" line: how many
records of each status the constraints refuse. A refused `ok` record would
be a constraint that loses a kernel; refused compile errors and spills are
trials saved.

    bench/check_constraints.py --tools build/bin DB... > table.md"""
import argparse, collections, json, pathlib, re, subprocess, sys, tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from tessel.workload import unchecked_matmul_relu_ir  # noqa: E402

here = pathlib.Path(__file__).resolve().parent.parent
parser = argparse.ArgumentParser()
parser.add_argument("--tools", default=str(here / "build/bin"))
parser.add_argument("databases", nargs="+")
args = parser.parse_args()


def schedule_for(knobs):
    if "thread_m" in knobs:
        return "matmul_relu_simt.mlir"
    if "warp_m" in knobs:
        return "matmul_relu_mma.mlir"
    return "matmul_relu_wgmma.mlir"


totals = collections.defaultdict(lambda: [0, 0])
print("| database | workload | device | schedule | refused / recorded, by status |")
print("|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as tmp:
    for path in args.databases:
        records = json.load(open(path))["records"]
        groups = collections.OrderedDict()
        for r in records:
            if not r["workload"].startswith("matmul_relu "):
                continue
            groups.setdefault((r["workload"], r["device"],
                               schedule_for(r["knobs"])), []).append(r)
        for (workload, device, schedule), rs in groups.items():
            shape, types = workload.split()[1:3]
            m, n, k = (int(x) for x in shape.split("x"))
            dtype = types.split("->")[0]
            payload = pathlib.Path(tmp) / "payload.mlir"
            payload.write_text(unchecked_matmul_relu_ir(m, n, k, dtype))
            # The schedule's knobs of today; records of other knob sets do
            # not parse and are left out by the tuner.
            run = subprocess.run(
                [f"{args.tools}/tessel-opt", str(payload),
                 f"--tessel-tune=schedule={here}/schedules/{schedule} "
                 f"strategy=exhaustive budget=1 replay={path} "
                 f"replay-device='{device}'", "-o", "/dev/null"],
                capture_output=True, text=True)
            line = next((l for l in run.stderr.splitlines()
                         if "constraints vs the recorded" in l), None)
            if line is None:
                print(f"| {path} | {workload} | {device} | {schedule} | "
                      f"not checked: {run.stderr.strip().splitlines()[-1:]} |")
                continue
            counts = re.findall(r" ([a-z-]+) (\d+) of (\d+);", line)
            for status, refused, total in counts:
                totals[status][0] += int(refused)
                totals[status][1] += int(total)
            print(f"| {path} | {workload} | {device} | {schedule} | "
                  + ", ".join(f"{s} {r}/{t}" for s, r, t in counts) + " |")
print()
print("Totals: " + ", ".join(f"{s} {r}/{t} refused"
                             for s, (r, t) in sorted(totals.items())))
