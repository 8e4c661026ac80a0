#!/usr/bin/env python3
"""Prints a tuning database's record count and statuses; fails on an
invalid file (used to check the file is always whole). With the tuning
log as a second argument, also checks that the record the tuner selected
is its logged winner.

    check-db.py DB [LOG]"""
import json, sys

db = json.load(open(sys.argv[1]))
assert db["format"] == "tessel-tuning-db" and db["version"] == 1, "bad header"
print("records", len(db["records"]))
for status in sorted({r["status"] for r in db["records"]}):
    print("status", status)
for r in db["records"]:
    assert set(r["knobs"]) == {"tile_m", "tile_n", "tile_k", "thread_m", "thread_n"}
    assert r["status"] != "ok" or r["median_ms"] > 0
ok = [r for r in db["records"] if r["status"] == "ok"]
if ok:
    best = min(ok, key=lambda r: r["median_ms"])
    k = {n: int(v) for n, v in best["knobs"].items()}
    m, n, _ = (int(x) for x in best["workload"].split()[1].split("x"))
    threads = (k["tile_m"] // k["thread_m"]) * (k["tile_n"] // k["thread_n"])
    blocks = (m // k["tile_m"]) * (n // k["tile_n"])
    print("best threads", threads, "blocks>=132", blocks >= 132)

selected = [r for r in db["records"] if r.get("selected")]
print("selected", len(selected))
if len(sys.argv) > 2:
    winner = [l.split("winner: ", 1)[1].strip()
              for l in open(sys.argv[2]) if l.startswith("[tune] winner: ")][-1]
    knobs = dict(kv.split("=") for kv in winner.split(","))
    assert len(selected) == 1 and selected[0]["knobs"] == knobs, \
        f"selected {[r['knobs'] for r in selected]} is not the winner {knobs}"
    print("selected record = logged winner")
