#!/usr/bin/env python3
"""Carries tuning records over to a changed schedule when the change leaves
their kernels exactly as they were.

Records are keyed by the schedule's content hash, so any edit of a schedule
(e.g. steps for shapes its tiles do not divide) orphans them. For every
record of the old hash, this compiles the record's workload with its knobs
twice, with the old tessel-opt and schedule and with the new ones, and
re-keys the record to the new hash only when every kernel's PTX is
byte-for-byte the same; records whose kernels changed keep the old hash
(they no longer apply) and are listed. A knob the new schedule adds is
named with --add-knob and the value that keeps the old kernel: the new
compile gets it, and each re-keyed record records it.

    scripts/rekey-records.py --old-opt /tmp/old/build/bin/tessel-opt \\
        --old-schedule /tmp/old/schedules/matmul_relu_simt.mlir \\
        --schedule schedules/matmul_relu_simt.mlir --chip sm_90 \\
        schedules/tuned/matmul_relu_simt-h100.json
    scripts/rekey-records.py ... --add-knob swap_ab=0 ...
"""

import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
from tessel.workload import matmul_relu_ir  # noqa: E402


def compile_ptx(opt, schedule, chip, ir, knobs, workdir):
    """{image: PTX text} of one compile, or None when it fails."""
    src = pathlib.Path(workdir) / "input.mlir"
    src.write_text(ir)
    out = pathlib.Path(workdir) / "out"
    knob_text = ",".join(f"{k}={v}" for k, v in sorted(knobs.items()))
    r = subprocess.run(
        [opt, str(src),
         f"--tessel-apply-schedule=schedule={schedule} knobs={knob_text}",
         f"--tessel-lower-to-ptx=chip={chip}",
         f"--tessel-export-kernels=dir={out}", "-o", os.devnull],
        capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return {p.name: p.read_text() for p in sorted(out.glob("*.ptx"))}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old-opt", required=True)
    p.add_argument("--old-schedule", required=True)
    p.add_argument("--opt", default=str(ROOT / "build" / "bin" / "tessel-opt"))
    p.add_argument("--schedule", required=True)
    p.add_argument("--chip", default="sm_90")
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    p.add_argument("--add-knob", action="append", default=[],
                   metavar="NAME=VALUE",
                   help="a knob only the new schedule has, at the value "
                        "that keeps the old kernels")
    p.add_argument("databases", nargs="+")
    args = p.parse_args()
    added = dict(k.split("=", 1) for k in args.add_knob)

    def hash_of(opt, schedule):
        with tempfile.TemporaryDirectory() as d:
            ir = matmul_relu_ir(512, 512, 512, "f16" if "simt" not in schedule else "f32")
            src = pathlib.Path(d) / "in.mlir"
            src.write_text(ir)
            r = subprocess.run([opt, str(src), f"--tessel-apply-schedule=schedule={schedule}"],
                               capture_output=True, text=True, check=True)
            return re.search(r'hash = "(0x[0-9a-f]+)"', r.stdout).group(1)

    old_hash = hash_of(args.old_opt, args.old_schedule)
    new_hash = hash_of(args.opt, args.schedule)
    print(f"old hash {old_hash}, new hash {new_hash}")
    for db_path in args.databases:
        db = json.loads(pathlib.Path(db_path).read_text())
        records = [r for r in db["records"] if r["schedule_hash"] == old_hash]
        pairs = sorted({(r["workload"], json.dumps(r["knobs"], sort_keys=True))
                        for r in records})

        def same(pair):
            workload, knobs = pair
            m = re.match(r"\w+ (\d+)x(\d+)x(\d+) (\w+)->", workload)
            ir = matmul_relu_ir(int(m[1]), int(m[2]), int(m[3]), m[4])
            knobs = json.loads(knobs)
            with tempfile.TemporaryDirectory() as d1, \
                    tempfile.TemporaryDirectory() as d2:
                old = compile_ptx(args.old_opt, args.old_schedule, args.chip, ir, knobs, d1)
                new = compile_ptx(args.opt, args.schedule, args.chip, ir,
                                  {**knobs, **added}, d2)
            # A point neither compiles (a recorded compile error) carries over.
            return old == new

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            verdict = dict(zip(pairs, pool.map(same, pairs)))
        moved = kept = 0
        for r in records:
            if verdict[(r["workload"], json.dumps(r["knobs"], sort_keys=True))]:
                r["schedule_hash"] = new_hash
                # Sorted, as tessel-db writes them.
                r["knobs"] = dict(sorted({**r["knobs"], **added}.items()))
                moved += 1
            else:
                kept += 1
                print(f"  changed: {r['workload']} {r['knobs']}")
        pathlib.Path(db_path).write_text(json.dumps(db, indent=1) + "\n")
        print(f"{db_path}: {moved} records re-keyed (identical PTX), "
              f"{kept} kept under the old hash")


if __name__ == "__main__":
    sys.exit(main())
