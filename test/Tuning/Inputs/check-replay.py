#!/usr/bin/env python3
"""Checks a replayed tuning log against the recorded database:
    check-replay.py LOG DB FACTOR
prints the recorded best, the run's best (first of "best candidates") and
whether it is within FACTOR of the recorded best; exits 1 when it is not."""
import json, re, sys

log, db, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
text = open(log).read()
ok = [r["median_ms"] for r in json.load(open(db))["records"] if r["status"] == "ok"]
recorded = min(ok)
m = re.search(r"best candidates .*\n\[tune\]\s+([0-9.]+) ms", text)
if not m:
    sys.exit("no best candidates in " + log)
found = float(m.group(1))
trials = len(re.findall(r"^\[tune\]\s+\d+/\d+ ", text, re.M))
print(f"trials {trials}")
print(f"recorded best {recorded:.4f} ms")
print(f"tuned best {found:.4f} ms")
within = found <= factor * recorded + 5e-5  # The log rounds to 0.1 us.
print(f"within {factor:g}x: {'yes' if within else 'no'}")
sys.exit(0 if within else 1)
