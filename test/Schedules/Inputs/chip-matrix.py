"""Compiles a payload with each schedule for each chip Tessel supports and
prints one line per combination: the PTX target of the kernel it made, or
the first error with its location. Any exit status other than 0 (a kernel)
or 1 (a diagnostic), or an exit 0 without PTX, prints CRASH or NO-PTX.

    chip-matrix.py TESSEL_OPT SCHEDULE PAYLOAD MODE CHIP...

MODE "gpu": chip= goes to apply-schedule (the GPU) and lower-to-ptx (the
target); "target": only to lower-to-ptx; "none": to neither, for the
payload to decide (CHIP is then a label only).
"""

import pathlib
import re
import subprocess
import sys
import tempfile

opt, schedule, payload, mode, *chips = sys.argv[1:]
for chip in chips:
    with tempfile.TemporaryDirectory() as out:
        apply = f"schedule={schedule}"
        lower = "features=+ptx87"
        if mode == "gpu":
            apply += f" chip={chip}"
        if mode in ("gpu", "target"):
            lower += f" chip={chip}"
        r = subprocess.run([opt, payload, f"--tessel-apply-schedule={apply}",
                            f"--tessel-lower-to-ptx={lower}",
                            f"--tessel-export-kernels=dir={out}", "-o",
                            "/dev/null"], capture_output=True, text=True)
        name = pathlib.Path(schedule).stem
        if r.returncode == 0:
            targets = sorted({m for p in pathlib.Path(out).glob("*.ptx")
                              for m in re.findall(r"^\.target (\S+)",
                                                  p.read_text(), re.M)})
            print(f"{name} {chip}: " +
                  (f"kernel .target {','.join(targets)}" if targets
                   else "NO-PTX"))
        elif r.returncode == 1:
            errors = [l for l in r.stderr.splitlines() if ": error: " in l]
            first = errors[0] if errors else "NO-DIAGNOSTIC " + r.stderr[:200]
            print(f"{name} {chip}: {first}")
        else:
            print(f"{name} {chip}: CRASH exit {r.returncode}: "
                  f"{r.stderr[-300:]}")
