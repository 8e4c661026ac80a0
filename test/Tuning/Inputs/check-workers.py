#!/usr/bin/env python3
"""Checks a tuning run's measurement workers against its database: each GPU
has one worker, started first and restarted only right after a candidate
ended the last one (a crash, a hang, a CUDA error that broke its context),
and always before the next request; the workers served every measurement:
the trials measured and the finalists' rounds.

    check-workers.py WORKER_LOG DB LOG"""
import collections, json, re, sys

events = collections.defaultdict(list)
for line in open(sys.argv[1]):
    kind, device = line.split()
    events[device].append(kind)
db = json.load(open(sys.argv[2]))["records"]
tune_log = open(sys.argv[3]).read()
print("gpus", " ".join(sorted(events)))
restarts_ok = True
for device, seq in events.items():
    restarts_ok &= seq[0] == "start"
    for i, kind in enumerate(seq):
        if kind == "start" and i > 0:
            restarts_ok &= seq[i - 1] == "end"
        if kind == "end" and i + 1 < len(seq):
            restarts_ok &= seq[i + 1] == "start"
print("a start per GPU, then only after a candidate ended it:", restarts_ok)
ended = sum(seq.count("end") for seq in events.values())
print("restarts happened:", sum(seq.count("start") for seq in events.values())
      > len(events) and ended > 0)
requests = sum(seq.count("request") for seq in events.values())
# The trials measured in the search, as logged (the database may also hold
# the defaults, measured only as a finalist).
measured = sum(1 for status in re.findall(r"^\[tune\] +\d+/\d+ (\S+)", tune_log,
                                          re.M)
               if status not in ("compile-error", "spills"))
m = re.search(r"re-measured (\d+) finalists on fresh inputs, (\d+) rounds",
              tune_log)
finals = int(m.group(1)) * int(m.group(2)) if m else 0
print("requests = measured + finals:", requests == measured + finals)
gpus = sorted({r.get("gpu") for r in db if r["status"] not in
               ("compile-error", "spills")})
print("records by gpu", gpus)
