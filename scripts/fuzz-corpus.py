#!/usr/bin/env python3
"""Builds the fuzz targets' seed corpora from Tessel's own inputs.

    scripts/fuzz-corpus.py OUT [--tessel-opt build-san/bin/tessel-opt]

writes OUT/opt (tessel-opt-fuzzer) and OUT/json (tessel-json-fuzzer), one
file per seed, named after its content's hash. The input formats are those
of fuzz/opt-fuzzer.cpp and fuzz/json-fuzzer.cpp: a selector byte, then the
text.

opt: every example payload with each shipped schedule (by the selector and
embedded after the `// ----- schedule` line, with the chip it is written
for), and every case of the lit suite's .mlir tests (split at `// -----`):
payload-only cases as they are (lowered without a schedule) and with the
SIMT schedule; cases holding their own transform script also as their own
schedule. json: the lit suite's launch specs, launch specs exported from
two examples (with --tessel-opt), the first records of each tuning
database, and all of them as bare JSON.
"""

import argparse
import hashlib
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = "\n// ----- schedule\n"
SCHEDULES = ["matmul_relu_simt.mlir", "matmul_relu_mma.mlir",
             "matmul_relu_wgmma.mlir"]
CHIPS = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
         "sm_100"]
# The chip each shipped schedule is written for.
SCHEDULE_CHIP = {0: "sm_90", 1: "sm_80", 2: "sm_90a"}
NO_SCHEDULE = 3


def selector(schedule, chip, index32=False, schedule_defaults=False):
    return (schedule | CHIPS.index(chip) << 2 | (32 if index32 else 0)
            | (64 if schedule_defaults else 0))


def write(out, sel, text):
    data = bytes([sel]) + text.encode()
    name = hashlib.sha1(data).hexdigest()
    (out / name).write_bytes(data)


def test_cases(path):
    """The cases of a lit test file, without its RUN and CHECK lines."""
    text = path.read_text()
    for case in text.split("\n// -----\n"):
        lines = [l for l in case.splitlines()
                 if not l.lstrip().startswith("// RUN")
                 and "CHECK" not in l and "expected-" not in l]
        case = "\n".join(lines).strip()
        if case:
            yield case


def opt_seeds(out):
    examples = sorted((ROOT / "examples").glob("*.mlir"))
    for example in examples:
        payload = example.read_text()
        for which, name in enumerate(SCHEDULES):
            chip = SCHEDULE_CHIP[which]
            write(out, selector(which, chip), payload)
            write(out, selector(which, chip, schedule_defaults=True), payload)
        # Embedded schedules: the fuzzer mutates these too.
        if example.name.startswith(("matmul_relu_1024", "matmul_relu_256x")):
            for which, name in enumerate(SCHEDULES):
                schedule = (ROOT / "schedules" / name).read_text()
                write(out, selector(which, SCHEDULE_CHIP[which]),
                      payload + MARKER + schedule)
    for test in sorted((ROOT / "test").rglob("*.mlir")):
        for case in test_cases(test):
            if "transform.named_sequence" in case:
                # A case with its own transform script: it is the schedule
                # library too (its payload functions are the payload).
                write(out, selector(0, "sm_90"), case + MARKER + case)
            else:
                write(out, selector(NO_SCHEDULE, "sm_90"), case)
                write(out, selector(0, "sm_90"), case)


def json_seeds(out, tessel_opt):
    specs = sorted((ROOT / "test").rglob("*.launch.json"))
    texts = [(0, p.read_text()) for p in specs]
    if tessel_opt:
        with tempfile.TemporaryDirectory() as tmp:
            for example, schedule, chip in [
                    ("matmul_relu_1024_f16.mlir", "matmul_relu_wgmma.mlir",
                     "sm_90a"),
                    ("matmul_relu_256x1024x1024_f32.mlir",
                     "matmul_relu_simt.mlir", "sm_90")]:
                subprocess.run(
                    [tessel_opt, str(ROOT / "examples" / example),
                     f"--tessel-apply-schedule=schedule="
                     f"{ROOT / 'schedules' / schedule}",
                     f"--tessel-lower-to-ptx=chip={chip}",
                     f"--tessel-export-kernels=dir={tmp}", "-o", "/dev/null"],
                    check=True)
                for spec in sorted(pathlib.Path(tmp).glob("*.launch.json")):
                    texts.append((0, spec.read_text()))
                    spec.unlink()
    databases = sorted((ROOT / "schedules" / "tuned").glob("*.json")) + \
        sorted((ROOT / "test").rglob("recorded-*.json"))
    for path in databases:
        db = json.loads(path.read_text())
        # A few records: the whole files are up to 700 KB.
        for count in (1, 4):
            small = dict(db, records=db["records"][:count])
            texts.append((1, json.dumps(small, indent=1)))
    for reader, text in texts:
        write(out, reader, text)
        write(out, 2, text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--tessel-opt",
                        help="a tessel-opt to export launch specs with")
    args = parser.parse_args()
    for target in ("opt", "json"):
        (args.out / target).mkdir(parents=True, exist_ok=True)
    opt_seeds(args.out / "opt")
    json_seeds(args.out / "json", args.tessel_opt)
    for target in ("opt", "json"):
        count = len(list((args.out / target).iterdir()))
        print(f"{args.out / target}: {count} seeds")


if __name__ == "__main__":
    sys.exit(main())
