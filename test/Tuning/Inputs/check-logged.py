#!/usr/bin/env python3
"""Checks that every trial the tuning logs report is in the database, with
the status logged (and the winner, which may have been measured only as a
finalist), and prints per workload how many were logged and how many records
the database holds.

    check-logged.py DB.json LOG...

A log may end with a line cut short by kill -9: lines that are not whole
trial lines are skipped."""
import json, re, sys

db = json.load(open(sys.argv[1]))
records = {}
for r in db["records"]:
    key = (r["workload"], tuple(sorted(r["knobs"].items())))
    assert key not in records, f"two records of {key}"
    records[key] = r["status"]

trial = re.compile(r"^\[tune\] +\d+/\d+ (\S+) +(?:[0-9.]+ ms )?\s*"
                   r"((?:\w+=[^,\s]+,)*\w+=[^,\s]+)(?:  \(.*\))?  best ")
missing = 0
for path in sys.argv[2:]:
    workload, logged, seen, extra = None, 0, set(), 0
    for line in open(path, errors="replace"):
        if line.startswith("[tune] winner: ") and line.endswith("\n"):
            # A winner not tried in the search (the defaults, measured only
            # as a finalist) has a record too.
            knobs = tuple(sorted(tuple(kv.split("=", 1)) for kv in
                                 line.split(": ", 1)[1].strip().split(",")))
            if knobs not in seen:
                extra += 1
                if records.get((workload, knobs)) != "ok":
                    missing += 1
                    print(f"MISSING winner {workload} {knobs}")
        if line.startswith("[tune] matmul_relu") and " on " in line:
            workload = line[len("[tune] "):].split(" on ")[0]
        m = trial.match(line)
        if not m or workload is None:
            continue
        status = m.group(1)
        knobs = tuple(sorted(kv.split("=", 1) for kv in m.group(2).split(",")))
        knobs = tuple((k, v) for k, v in knobs)
        logged += 1
        seen.add(knobs)
        if records.get((workload, knobs)) != status:
            missing += 1
            print(f"MISSING {workload} {knobs} {status}: "
                  f"{records.get((workload, knobs))}")
    in_db = sum(1 for (w, _) in records if w == workload)
    print(f"{workload}: logged {logged}, records {in_db}, not logged "
          f"{in_db - logged - extra}")
print("missing", missing)
