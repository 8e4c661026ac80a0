#!/usr/bin/env python3
"""A stand-in for ptxas -v in CPU tests of the tuner: reports register use,
and spills for kernels launched with 16 x 16 threads (.maxntid 16, 16, 1)."""
import re, sys

ptx = open(next(a for a in sys.argv[1:] if a.endswith(".ptx"))).read()
spill = 64 if re.search(r"\.maxntid 16, 16, 1", ptx) else 0
print("ptxas info    : Compiling entry function 'k' for 'sm_90'", file=sys.stderr)
print(f"    0 bytes stack frame, {spill} bytes spill stores, {spill} bytes spill loads",
      file=sys.stderr)
print(f"ptxas info    : Used {255 if spill else 96} registers, used 1 barriers", file=sys.stderr)
