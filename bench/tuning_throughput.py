#!/usr/bin/env python3
"""Summarizes a tuning-throughput session (bench/tuning_throughput_session.sh
OUT ...): per tuning run, the trials, their statuses, the wall time per
trial, and the median compile and measurement time of a candidate (from the
database's compile_ms and measure_ms), as a Markdown table.

    bench/tuning_throughput.py OUT"""
import json, pathlib, statistics, sys

out = pathlib.Path(sys.argv[1])
walls = {}
wall_file = out / "wall.txt"
if wall_file.exists():
    for line in wall_file.read_text().splitlines():
        name, rest = line.split(":", 1)
        walls[name] = float(rest.split(",")[1].split()[0])
print("| run | trials | measured | statuses | wall s | wall s / trial "
      "| median measure s | median compile s (one thread) |")
print("|---|---|---|---|---|---|---|---|")
for db in sorted(out.glob("*.json")):
    try:
        records = json.loads(db.read_text())["records"]
    except (ValueError, KeyError):
        continue
    name = db.stem
    statuses = {}
    for r in records:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    measured = [r["measure_ms"] / 1e3 for r in records
                if r["status"] not in ("compile-error", "spills")]
    compiled = [r["compile_ms"] / 1e3 for r in records]
    wall = walls.get(name)
    median = lambda v: f"{statistics.median(v):.3f}" if v else "-"
    print(f"| {name} | {len(records)} | {len(measured)} | "
          + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
          + f" | {wall if wall is not None else '-'} | "
          + (f"{wall / len(records):.3f}" if wall and records else "-")
          + f" | {median(measured)} | {median(compiled)} |")
