"""Compiling and checking a benchmark's cases, shared by the session
scripts' benchmarks (bench/linear_epilogues.py, bench/batch_matmul.py).

Each case is a directory DIR/<name> holding its payload (in.mlir) and the
kernels compiled from it with the rule's knobs (k/).
"""

import json
import os
import pathlib
import subprocess

from tessel import install


def prepare(directory, cases):
    """Writes and compiles each case: `cases` yields (name, schedule,
    payload text); schedule is "simt", "mma" or "wgmma"."""
    tessel_opt = install.tool("tessel-opt")
    schedules = install.schedules_dir()
    for name, schedule, text in cases:
        d = pathlib.Path(directory) / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "in.mlir").write_text(text)
        chip = "sm_90a" if schedule == "wgmma" else "sm_90"
        subprocess.run(
            [str(tessel_opt), str(d / "in.mlir"),
             f"--tessel-apply-schedule=schedule={schedules}/matmul_relu_{schedule}.mlir"
             " defaults=rule", f"--tessel-lower-to-ptx=chip={chip}",
             f"--tessel-export-kernels=dir={d / 'k'}", "-o", os.devnull],
            check=True)
        print(name, "ok", flush=True)


def tessel_run(launch, reference, rep_ms, l2_flush="write"):
    """Runs one launch file with tessel-run --json against `reference`
    (auto, cpu, gpu, none), L2 flushed by `l2_flush` (write: as do_bench,
    read: left clean, none) before each repeat; returns its result with "rc", or {"error": its
    output} when it printed no JSON."""
    p = subprocess.run([str(install.tool("tessel-run")), str(launch), "--json",
                        f"--reference={reference}", "--rep-ms", str(rep_ms),
                        f"--l2-flush={l2_flush}"],
                       capture_output=True, text=True)
    try:
        r = json.loads(p.stdout)
    except json.JSONDecodeError:
        r = {"error": p.stdout + p.stderr}
    r["rc"] = p.returncode
    return r


def check(directory, out, cases, function, width):
    """Runs each case's kernel (k/<function>.launch.json) with tessel-run
    against each of its references: `cases` yields (name, references).
    Writes every run's tessel-run --json result to `out`."""
    results = {}
    for name, references in cases:
        launch = pathlib.Path(directory) / name / "k" / f"{function}.launch.json"
        for ref in references:
            r = tessel_run(launch, ref, 20)
            results[f"{name} ref={ref}"] = r
            print(f"{name:{width}s} ref={ref}: "
                  + (f"passed={r.get('passed')} err={r.get('relative_error', 0):.2e}"
                     f" {r.get('median_ms', 0):.4f} ms {r.get('tflops', 0):.1f} TFLOP/s"
                     if "error" not in r else f"ERROR {r['error'][:300]}"),
                  flush=True)
    pathlib.Path(out).write_text(json.dumps(results, indent=1) + "\n")
