"""Compiling through tessel-opt (no GPU needed)."""

import json

import pytest

import tessel
from conftest import H100, ROOT

MMA = ROOT / "schedules" / "matmul_relu_mma.mlir"


@pytest.mark.parametrize("schedule,db", [
    (None, "matmul_relu_wgmma-h100.json"),
    (MMA, "matmul_relu_mma-h100.json")])
def test_tuned_knobs_are_the_ones_tessel_opt_applies(schedule, db):
    c = tessel.compile_matmul_relu(1024, 1024, 1024, "f16", device=H100,
                                   schedule=schedule)
    assert c.source.startswith("tuned: ") and c.source.endswith(db)
    db = tessel.Database.open(ROOT / "schedules/tuned" / db)
    assert c.knobs == db.best(c.workload, H100).knobs
    launch = json.loads(c.launch_file.read_text())
    assert launch["workload"]["m"] == 1024
    assert (c.directory / launch["launches"][0]["image"]).is_file()


def test_pipeline_longer_than_the_loop():
    # K / tile_k = 2 iterations cannot feed 3 stages: a clear error...
    with pytest.raises(tessel.TesselError,
                       match="pipelining depth 3 needs a loop of at least 3"):
        tessel.compile_matmul_relu(256, 256, 64, "f16", knobs="stages=3",
                                   schedule=MMA)
    # ...and 2 stages compile.
    tessel.compile_matmul_relu(256, 256, 64, "f16", knobs="stages=2",
                               schedule=MMA)


def test_hopper_f16_uses_wgmma_for_sm_90a():
    # On an sm_90 GPU, 16-bit inputs take the wgmma + TMA schedule, which
    # declares its target (sm_90a); elsewhere they take mma.sync.
    c = tessel.compile_matmul_relu(256, 256, 64, "f16", knobs="tile_m=64,tile_n=64,stages=2")
    assert c.schedule.endswith("matmul_relu_wgmma.mlir") and c.chip == "sm_90a"
    launch = json.loads(c.launch_file.read_text())
    kinds = [p["kind"] for p in launch["launches"][0]["params"]]
    assert kinds.count("tensor_map") == 2
    ptx = (c.directory / launch["launches"][0]["image"]).read_text()
    assert ".target sm_90a" in ptx and "wgmma.mma_async" in ptx
    c = tessel.compile_matmul_relu(256, 256, 64, "bf16", chip="sm_80",
                                   knobs="tile_m=64,tile_n=64,stages=2")
    assert c.schedule.endswith("matmul_relu_mma.mlir") and c.chip == "sm_80"


def test_sm_90a_schedule_on_another_gpu():
    with pytest.raises(tessel.TesselError, match="targets sm_90a"):
        tessel.compile_matmul_relu(
            256, 256, 64, "f16", chip="sm_80",
            schedule=ROOT / "schedules" / "matmul_relu_wgmma.mlir")


def test_cache_reuses_kernels():
    a = tessel.compile_matmul_relu(256, 256, 64, "f16", knobs="tile_m=64,tile_n=64,stages=2",
                                   schedule=MMA)
    stamp = a.launch_file.stat().st_mtime_ns
    b = tessel.compile_matmul_relu(256, 256, 64, "f16", schedule=MMA,
                                   knobs={"tile_m": 64, "tile_n": 64, "stages": 2})
    assert a.directory == b.directory and b.launch_file.stat().st_mtime_ns == stamp
    assert b.source == "knobs" and b.knobs["tile_m"] == "64"
    c = tessel.compile_matmul_relu(256, 256, 64, "f16", knobs="tile_m=32,tile_n=64,warp_m=32,stages=2",
                                   schedule=MMA)
    assert c.directory != a.directory and c.knobs["tile_m"] == "32"


def test_untuned_workload_warns_and_uses_defaults():
    with pytest.warns(tessel.TesselWarning, match="no tuning record"):
        c = tessel.compile_matmul_relu(512, 512, 512, "bf16", device=H100)
    assert c.source == "defaults"


def test_f32_uses_the_simt_schedule():
    c = tessel.compile_matmul_relu(4096, 4096, 4096, "f32", device=H100)
    assert c.schedule.endswith("matmul_relu_simt.mlir")
    assert c.source.startswith("tuned: ")


def test_compile_errors_carry_locations():
    with pytest.raises(tessel.TesselError) as info:
        tessel.compile_matmul_relu(1000, 1000, 64, "f16", knobs="tile_m=128")
    message = str(info.value)
    assert "matmul_relu_wgmma.mlir:" in message and \
        "does not divide loop dimension 0 of size 1000" in message


def test_unknown_knob():
    with pytest.raises(tessel.TesselError, match="tile_q"):
        tessel.compile_matmul_relu(256, 256, 64, "f16", knobs="tile_q=4")


@pytest.mark.parametrize("knobs", ["tile_m", "tile_m=1 2", "a b=3"])
def test_malformed_knobs(knobs):
    with pytest.raises(ValueError):
        tessel.compile_matmul_relu(256, 256, 64, "f16", knobs=knobs)


def test_missing_schedule(tmp_path):
    with pytest.raises(tessel.TesselError, match="no schedule library"):
        tessel.compile_matmul_relu(256, 256, 64, "f16",
                                   schedule=tmp_path / "none.mlir")


def test_missing_tools(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSEL_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(tessel.TesselError, match="cannot find"):
        tessel.compile_matmul_relu(
            256, 256, 64, "f16",
            schedule=ROOT / "schedules" / "matmul_relu_mma.mlir")


def test_tune_by_replay(tmp_path):
    # The tuner without a GPU: measurements replayed from the shipped records.
    db = tmp_path / "tuning.json"
    c = tessel.tune_matmul_relu(
        1024, 1024, 1024, "f16", db=db, budget=6, schedule=MMA,
        replay=ROOT / "schedules/tuned/matmul_relu_mma-h100.json")
    winner = [line for line in c.log.splitlines() if "winner:" in line]
    assert winner and winner[0].split("winner: ")[1] == ",".join(
        f"{name}={c.knobs[name]}" for name in (
            "tile_m", "tile_n", "tile_k", "warp_m", "warp_n", "stages",
            "padding", "group_m", "stage_output"))
    assert c.source == f"tune: {db}" and not db.exists()
