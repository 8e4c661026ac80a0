#!/usr/bin/env python3
"""Runs one launch spec with the CPU f64 reference and with the GPU one
(tessel-run --json --reference=cpu|gpu, the same seeded inputs) and prints
whether both checks passed with the same errors: the kernel's output is the
same, so any difference is the GPU reference's (a lost tile, a wrong
stride, an element out of bounds).

    compare-references.py TESSEL_RUN SPEC
"""
import json
import subprocess
import sys

run, spec = sys.argv[1], sys.argv[2]
results = {}
for ref in ("cpu", "gpu"):
    out = subprocess.run([run, spec, "--json", f"--reference={ref}",
                          "--warmup-ms=1", "--rep-ms=1"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(f"{ref}: exit {out.returncode}: {out.stderr.strip()}")
        sys.exit(1)
    results[ref] = json.loads(out.stdout)
cpu, gpu = results["cpu"], results["gpu"]
print("references:", cpu["reference"], gpu["reference"])
print("passed:", cpu["passed"], gpu["passed"])
same = all(abs(cpu[f] - gpu[f]) <= 1e-9 * max(abs(cpu[f]), abs(gpu[f]), 1e-30)
           for f in ("relative_error", "max_abs_error"))
print(f"same errors: {same} (relative {cpu['relative_error']:.6e} "
      f"{gpu['relative_error']:.6e}, max abs {cpu['max_abs_error']:.6e} "
      f"{gpu['max_abs_error']:.6e})")
