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
        tessel.compile_matmul_relu(256, 256, 64, "f16",
                                   knobs="stages=3,tile_k=32", schedule=MMA)
    # ...2 stages compile, and so do 3 when the rule may pick tile_k.
    tessel.compile_matmul_relu(256, 256, 64, "f16", knobs="stages=2,tile_k=32",
                               schedule=MMA)
    c = tessel.compile_matmul_relu(256, 256, 64, "f16", knobs="stages=3",
                                   schedule=MMA)
    assert c.knobs["stages"] == "3" and int(c.knobs["tile_k"]) <= 16


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
    # The knobs given win; the rule picks the others.
    assert b.source == "rule" and b.knobs["tile_m"] == "64"
    assert b.knob_source.endswith("knobs= sets tile_m, tile_n, stages")
    c = tessel.compile_matmul_relu(256, 256, 64, "f16", knobs="tile_m=32,tile_n=64,warp_m=32,stages=2",
                                   schedule=MMA)
    assert c.directory != a.directory and c.knobs["tile_m"] == "32"


def test_untuned_workload_gets_the_rules_knobs():
    # No record of this shape: the rule picks knobs for it, without an error
    # or a warning.
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = tessel.compile_matmul_relu(512, 512, 512, "bf16", device=H100)
    assert c.source == "rule" and c.knob_source == "rule (sm_90, 132 SMs)"
    # The nearest tuned shape's record instead, on request.
    c = tessel.compile_matmul_relu(512, 512, 512, "bf16", device=H100,
                                   defaults="nearest")
    assert c.source == "nearest record"
    assert "matmul_relu 1024x1024x1024 bf16->bf16" in c.knob_source
    # Another GPU of the same architecture takes the H100's record.
    c = tessel.compile_matmul_relu(1024, 1024, 1024, "f16",
                                   device="NVIDIA H100 PCIe (sm_90)")
    assert c.source.startswith("tuned: ")
    assert c.knob_source.startswith(f"tuned on {H100} (another sm_90 GPU)")


def test_any_shape_compiles():
    # Shapes that no tile divides, rows that are not 16-byte aligned, and
    # tiny problems: every one gets a kernel.
    for m, n, k, dtype in [(1000, 1000, 1000, "f16"), (77, 1000, 320, "bf16"),
                           (4095, 4097, 4099, "f16"), (1, 1, 1, "bf16"),
                           (7, 13, 5, "f32")]:
        c = tessel.compile_matmul_relu(m, n, k, dtype, device=H100)
        launch = json.loads(c.launch_file.read_text())
        assert launch["workload"]["m"] == m
    # Unaligned rows are copied into workspaces with 128-byte rows first,
    # both matrices by one copy kernel, then the matmul runs.
    c = tessel.compile_matmul_relu(4095, 4097, 4099, "f16", device=H100)
    launch = json.loads(c.launch_file.read_text())
    assert [w["shape"] for w in launch["workspaces"]] == [[4095, 4160],
                                                         [4099, 4160]]
    assert len(launch["launches"]) == 2


def test_misaligned_rows_with_a_small_k_go_to_simt():
    # A copy kernel would double the time of a one-step K loop: SIMT reads
    # misaligned rows directly. Aligned rows, or a longer K, stay on wgmma.
    for (m, n, k), first in [((43, 155, 3), "simt"), ((1, 1, 1), "simt"),
                             ((4440, 9066, 16), "simt"),
                             ((43, 155, 17), "wgmma"), ((64, 64, 16), "wgmma"),
                             ((43, 160, 8), "wgmma")]:
        assert tessel.default_schedule("f16", "sm_90", (m, n, k)).name == \
            f"matmul_relu_{first}.mlir", (m, n, k)
    c = tessel.compile_matmul_relu(43, 155, 3, "bf16", device=H100)
    assert c.schedule.endswith("matmul_relu_simt.mlir")
    # sm_90a names the same GPUs as sm_90: wgmma first there too. SIMT
    # serves what the tensor-core schedules cannot, and alone before sm_80.
    for chip in ("sm_90", "sm_90a"):
        assert [s.name for s in tessel.default_schedules("f16", chip)] == \
            ["matmul_relu_wgmma.mlir", "matmul_relu_mma.mlir",
             "matmul_relu_simt.mlir"], chip
    assert [s.name for s in tessel.default_schedules("bf16", "sm_80")] == \
        ["matmul_relu_mma.mlir", "matmul_relu_simt.mlir"]
    assert [s.name for s in tessel.default_schedules("f16", "sm_75")] == \
        ["matmul_relu_simt.mlir"]
    c = tessel.compile_matmul_relu(100, 64, 48, "f16", chip="sm_75")
    assert c.schedule.endswith("matmul_relu_simt.mlir") and c.chip == "sm_75"
    ptx = next(c.directory.glob("*.ptx")).read_text()
    assert ".target sm_75" in ptx


def test_f32_with_a_short_k_goes_to_simt():
    # 3xTF32 on tensor cores copies B stored [k, n] transposed (and rows
    # that are not 16-byte aligned) in kernels of their own, which a K loop
    # of at most SIMT_F32_MAX_K does not pay for: SIMT runs in one launch.
    # With the weight stored [n, k] SIMT reads it across its rows, and
    # serves only small problems (SIMT_F32_NK_MAX_MACS) better.
    for (m, n, k), b, first in [
            ((100, 60, 20), "kn", "simt"), ((4096, 4096, 16), "kn", "simt"),
            ((9597, 14859, 10), "kn", "simt"), ((100, 60, 40), "kn", "simt"),
            ((100, 60, 65), "kn", "wgmma"), ((512, 512, 25), "kn", "wgmma"),
            ((100, 60, 20), "nk", "simt"), ((4096, 1024, 4), "nk", "simt"),
            ((4096, 4096, 16), "nk", "wgmma"), ((64, 64, 64), "nk", "wgmma"),
            ((100, 60, 40), "nk", "wgmma")]:
        assert tessel.default_schedule("f32", "sm_90", (m, n, k), b).name \
            == f"matmul_relu_{first}.mlir", ((m, n, k), b)
    # Before Hopper f32 is SIMT's alone; 16-bit types keep their rule.
    assert [s.name for s in tessel.default_schedules(
        "f32", "sm_80", (100, 60, 20))] == ["matmul_relu_simt.mlir"]
    assert tessel.default_schedule("f16", "sm_90", (100, 64, 16)).name == \
        "matmul_relu_wgmma.mlir"
    assert tessel.compile_matmul_relu(100, 60, 20, "f32", device=H100) \
        .schedule.endswith("matmul_relu_simt.mlir")
    assert tessel.compile_linear(100, 60, 20, "f32", bias=True,
                                 activation="gelu_tanh") \
        .schedule.endswith("matmul_relu_simt.mlir")
    assert tessel.compile_linear(4096, 4096, 16, "f32") \
        .schedule.endswith("matmul_relu_wgmma.mlir")


def test_f32_uses_the_wgmma_schedule_on_hopper():
    # 3xTF32 at the rule's knobs (2x cuBLAS strict FP32 at 4096^3 on an
    # H100, docs/f32.md) rather than SIMT's tuned record (0.43x).
    c = tessel.compile_matmul_relu(4096, 4096, 4096, "f32", device=H100)
    assert c.schedule.endswith("matmul_relu_wgmma.mlir")
    assert c.source == "rule"
    c = tessel.compile_matmul_relu(4096, 4096, 4096, "f32", chip="sm_80")
    assert c.schedule.endswith("matmul_relu_simt.mlir")


def test_compile_errors_carry_locations():
    # 256x256 tiles 6 stages deep do not fit in shared memory, and mma.sync
    # has no 6 stages: no schedule serves these knobs.
    with pytest.raises(tessel.TesselError) as info:
        tessel.compile_matmul_relu(1000, 1000, 64, "f16",
                                   knobs="tile_m=256,tile_n=256,stages=6")
    message = str(info.value)
    assert "matmul_relu_wgmma.mlir:" in message and \
        "bytes of shared memory; an sm_90 block has at most" in message
    assert "no schedule serves this payload" in message


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
    db = tmp_path / "tuning.db"
    c = tessel.tune_matmul_relu(
        1024, 1024, 1024, "f16", db=db, budget=6, schedule=MMA,
        replay=ROOT / "schedules/tuned/matmul_relu_mma-h100.json")
    winner = [line for line in c.log.splitlines() if "winner:" in line]
    assert winner and winner[0].split("winner: ")[1] == ",".join(
        f"{name}={c.knobs[name]}" for name in (
            "tile_m", "tile_n", "tile_k", "warp_m", "warp_n", "stages",
            "padding", "group_m", "stage_output"))
    assert c.source == f"tune: {db}" and not db.exists()


def test_tune_verbose_prints_as_it_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TESSEL_PRINT_AUTOTUNING", "1")
    c = tessel.tune_matmul_relu(
        1024, 1024, 1024, "f16", db=tmp_path / "t.db", budget=6,
        schedule=MMA, replay=ROOT / "schedules/tuned/matmul_relu_mma-h100.json")
    err = capsys.readouterr().err
    assert "[tune]    6/6 " in err and "[tune] 6/6 trials, best " in err
    assert c.log == err
    monkeypatch.setenv("TESSEL_PRINT_AUTOTUNING", "0")
    tessel.tune_matmul_relu(
        1024, 1024, 1024, "f16", db=tmp_path / "t.db", budget=6,
        schedule=MMA, replay=ROOT / "schedules/tuned/matmul_relu_mma-h100.json")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("devices", [[], [-1], "some"])
def test_tune_refuses_bad_devices(tmp_path, devices):
    with pytest.raises((ValueError, TypeError)):
        tessel.tune_matmul_relu(
            1024, 1024, 1024, "f16", db=tmp_path / "t.db", budget=1,
            schedule=MMA, devices=devices,
            replay=ROOT / "schedules/tuned/matmul_relu_mma-h100.json")


@pytest.mark.parametrize("dtype,activation,bias,schedule", [
    ("bf16", "gelu_tanh", True, "matmul_relu_wgmma.mlir"),
    ("f16", "relu", False, "matmul_relu_wgmma.mlir"),
    ("f32", None, False, "matmul_relu_wgmma.mlir")])
def test_linear_with_pytorchs_weight_layout(dtype, activation, bias, schedule):
    # The weight stored (out, in): B K-major, on every schedule; the launch
    # file's workload records the layout, the bias and the epilogue.
    c = tessel.compile_linear(77, 100, 131, dtype, bias=bias,
                              activation=activation)
    assert c.schedule.endswith(schedule)
    assert c.launch_file.name == "linear.launch.json"
    assert c.workload == ("linear 77x100x131 " + dtype + " W[n,k]"
                          + (" +bias" if bias else "")
                          + (f" {activation}" if activation else ""))
    launch = json.loads(c.launch_file.read_text())
    workload = launch["workload"]
    assert workload["rhs_transposed"] is True
    assert [a["shape"] for a in launch["arguments"]] == \
        [[77, 131], [100, 131]] + ([[100]] if bias else []) + [[77, 100]]
    assert bool(workload.get("epilogue_operands")) == bias


@pytest.mark.parametrize("allow_tf32", [False, True])
def test_f32_linear_on_tensor_cores(allow_tf32):
    # f32 with the weight stored [n, k] goes to wgmma on Hopper: FP32-level
    # accuracy (3xTF32) unless TF32 is allowed, which the launch file's
    # workload records (and its key, and the reference's tolerance, follow).
    c = tessel.compile_linear(300, 500, 700, "f32", bias=True,
                              activation="relu", allow_tf32=allow_tf32)
    assert c.schedule.endswith("matmul_relu_wgmma.mlir")
    workload = json.loads(c.launch_file.read_text())["workload"]
    assert workload.get("precision") == ("tf32" if allow_tf32 else None)
    ptx = "".join(p.read_text() for p in c.launch_file.parent.glob("*.ptx"))
    assert "wgmma.mma_async.sync.aligned.m64n" in ptx
    assert (".f32.tf32.tf32" in ptx)
    # 3xTF32 splits each value into high and low TF32 parts in the kernel.
    assert ("-8192;" in ptx) == (not allow_tf32)


def test_f32_weight_kn_on_tensor_cores_and_simt_elsewhere():
    # TF32 wgmma reads B K-major only: B stored [k, n] (matmul_relu's B, a
    # Linear weight stored transposed) is first copied transposed by a
    # kernel of its own, then multiplied on the tensor cores. Before Hopper
    # f32 runs on SIMT.
    for c in (tessel.compile_linear(64, 64, 128, "f32", weight="kn"),
              tessel.compile_matmul_relu(300, 500, 700, "f32", device=H100)):
        assert c.schedule.endswith("matmul_relu_wgmma.mlir")
        launch = json.loads(c.launch_file.read_text())
        assert launch["launches"][0]["block"] == [32, 8, 1]
        assert launch["workspaces"][-1]["shape"][0] == \
            launch["workload"]["n"]
        ptx = "".join(p.read_text()
                      for p in c.launch_file.parent.glob("*.ptx"))
        assert "-8192;" in ptx  # 3xTF32: FP32-level accuracy by default.
    assert tessel.compile_linear(64, 64, 64, "f32", chip="sm_80") \
        .schedule.endswith("matmul_relu_simt.mlir")


def test_sm_count_out_of_range():
    # The rule's estimates multiply the SM count: a count no GPU has is
    # refused by name (a negative one was once taken as the default).
    for bad in (-5, 1 << 40):
        with pytest.raises(tessel.TesselError, match=f"sm-count={bad} is outside"):
            tessel.compile_matmul_relu(256, 256, 64, "f16", sm_count=bad)
    c = tessel.compile_matmul_relu(256, 256, 64, "f16", sm_count=16)
    assert c.source == "rule"
