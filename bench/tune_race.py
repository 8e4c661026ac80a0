#!/usr/bin/env python3
"""Summarizes a bench/tune_race_session.sh output folder: for each shape,
the tuner's verdict (tuned knobs or the defaults kept, the noise of its
re-measurement) and the independent race's times of the tuned kernel
(tessel), the defaults (tessel-rule) and cuBLASLt's fused epilogue.

    bench/tune_race.py OUT [--markdown]

Prints a Markdown table: tuned / defaults in the race (issue 16's target:
>= 1.0 within the race's noise on every shape), and the tuner's time of its
winner against the race's (how far the tuner's measurement and a user's
agree)."""
import json, math, pathlib, re, statistics, sys

out = pathlib.Path(sys.argv[1])
races = {}
for path in sorted(out.glob("race-*.json")):
    report = json.loads(path.read_text())
    for row in report["rows"]:
        races[(row["dtype"], f"{row['m']}x{row['n']}x{row['k']}")] = row

print("| shape | tuner's verdict | noise | tuner's winner ms | race: tuned ms "
      "| race: defaults ms | speedup over the defaults (race) | tuner ÷ race | "
      "speedup over cuBLASLt |")
print("|---|---|---|---|---|---|---|---|---|")
speedups, disagreements = [], []
for log in sorted(out.glob("tune-*.log")):
    _, dtype, mnk = log.stem.split("-", 2)
    text = log.read_text()
    m = re.search(r"re-measured (\d+) finalists.*\(noise ([0-9.]+)%\)", text)
    noise = float(m.group(2)) if m else float("nan")
    finalists = dict((knobs, float(ms)) for ms, knobs in re.findall(
        r"^\[tune\] +([0-9.]+) ms (\S+)  \(", text, re.M))
    winner = re.findall(r"^\[tune\] winner: (\S+)", text, re.M)
    winner = winner[-1] if winner else None
    if "keeping the defaults" in text:
        verdict = "defaults kept"
    elif "beat the defaults" in text:
        verdict = "tuned (" + re.search(r"beat the defaults by ([0-9.]+%)",
                                        text).group(1) + ")"
    elif winner:
        verdict = "tuned = defaults" if "the defaults)" in text else "tuned"
    else:
        verdict = "failed"
    row = races.get((dtype, mnk), {})
    res = row.get("results", {})
    def ms(name):
        r = res.get(name, {})
        return r.get("ms") if r.get("status") == "ok" else None
    tuned, rule, lt = ms("tessel"), ms("tessel-rule"), ms("cublaslt")
    tuner_ms = finalists.get(winner)
    ratio = rule / tuned if tuned and rule else None
    agree = tuner_ms / tuned if tuner_ms and tuned else None
    if ratio:
        speedups.append(ratio)
    if agree:
        disagreements.append(abs(agree - 1))
    f = lambda x, p=4: f"{x:.{p}f}" if x else "n/a"
    print(f"| {dtype} {mnk} | {verdict} | {noise:.1f}% | {f(tuner_ms)} | "
          f"{f(tuned)} | {f(rule)} | {f(ratio, 3)} | {f(agree, 3)} | "
          f"{f(lt / tuned if lt and tuned else None, 3)} |")
if speedups:
    geo = math.exp(statistics.fmean(math.log(x) for x in speedups))
    print(f"\ntuned ÷ defaults in the race: geometric mean {geo:.3f}, "
          f"min {min(speedups):.3f} over {len(speedups)} shapes")
if disagreements:
    print(f"tuner's time vs the race's: median |difference| "
          f"{100 * statistics.median(disagreements):.1f}%, max "
          f"{100 * max(disagreements):.1f}%")
