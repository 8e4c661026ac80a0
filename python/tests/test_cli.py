"""The `tessel` command (tessel/cli.py) and how the package finds Tessel."""

import json
import pathlib

import pytest

from conftest import ROOT, cuda_available

import tessel
from tessel import cli, install


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_info(capsys):
    status, out, _ = run(capsys, "info")
    assert status == 0
    assert f"tessel-opt:  {install.tool('tessel-opt')}" in out
    assert f"schedules:   {install.schedules_dir()}" in out


def test_schedules_are_package_data(monkeypatch):
    # In a checkout the package's schedules link to the checkout's.
    monkeypatch.delenv("TESSEL_HOME", raising=False)
    d = install.schedules_dir()
    assert d == ROOT / "python" / "tessel" / "schedules"
    assert d.resolve() == (ROOT / "schedules").resolve()
    assert (d / "tuned" / "matmul_relu_wgmma-h100.json").is_file()


def test_compile_json_and_show(capsys, tmp_path):
    status, out, _ = run(capsys, "compile", 100, 60, 80, "--dtype", "f32",
                         "--out", tmp_path / "k", "--json")
    assert status == 0
    info = json.loads(out)
    assert info["source"] == "rule" and info["knob_source"].startswith("rule")
    # f32 on Hopper (the default chip): 3xTF32 on wgmma, B copied K-major.
    assert pathlib.Path(info["schedule"]).name == "matmul_relu_wgmma.mlir"
    assert (tmp_path / "k" / "matmul_relu_kernel.ptx").is_file()
    status, out, _ = run(capsys, "show", tmp_path / "k")
    assert status == 0
    assert ("workload:    contraction 100x60x80, A[m,k] B[k,n], accumulator f32"
            in out)
    assert "epilogue:    constant 0; maximumf 0 1" in out
    knobs = " ".join(f"{k}={v}" for k, v in info["knobs"].items())
    assert f"knobs:       {knobs}" in out
    assert "knob source: rule" in out


def test_compile_transposed_layouts(capsys, tmp_path):
    # A stored [k, m] and B [n, k]: the kernel of that layout, on wgmma,
    # with its tensor maps over the stored shapes.
    status, out, _ = run(capsys, "compile", 200, 304, 136, "--a", "km",
                         "--b", "nk", "--out", tmp_path / "k", "--json")
    assert status == 0
    info = json.loads(out)
    assert pathlib.Path(info["schedule"]).name == "matmul_relu_wgmma.mlir"
    launch = json.loads((tmp_path / "k" / "matmul_relu.launch.json").read_text())
    assert [a["shape"] for a in launch["arguments"]] == [[136, 200], [304, 136],
                                                        [200, 304]]
    status, out, _ = run(capsys, "show", tmp_path / "k")
    assert "A[k,m] B[n,k]" in out


def test_bad_layout_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["compile", "8", "8", "8", "--a", "mn"])
    assert e.value.code == 2
    assert "argument --a: invalid choice: 'mn'" in capsys.readouterr().err


def test_show_given_knobs(capsys):
    status, out, _ = run(capsys, "show", 64, 64, 64, "--dtype", "f32",
                         "--knobs", "tile_m=32,tile_n=32")
    assert status == 0
    assert "tile_m=32" in out and "tile_n=32" in out
    assert "knob source: rule" in out  # The other knobs are the rule's.


@pytest.mark.parametrize("argv, message", [
    (["compile", 0, 4, 4], "M, N and K must be positive"),
    (["compile", 64, 64, 64, "--knobs", "tile_m=7"],
     "value 7 is not among the options of knob 'tile_m'"),
    (["show", "1", "2"], "show takes a launch file"),
    (["show", "/nonexistent/launch.json"], "cannot read launch file"),
    (["show", "SCHEDULE-5"], '"schedule" must be an object'),
    (["show", "KNOBS-LIST"], '"schedule" must be an object'),
    (["plot", "/nonexistent.json"], "cannot read tuning database"),
    (["tune", 64, 64, 64, "--devices", "0,x"], "--devices takes 'all'"),
])
def test_errors(capsys, tmp_path, argv, message):
    # Corrupt launch files, named by placeholders.
    corrupt = {"SCHEDULE-5": '{"schedule": 5}',
               "KNOBS-LIST": '{"schedule": {"knobs": [1, 2]}}'}
    for i, arg in enumerate(argv):
        if arg in corrupt:
            argv[i] = tmp_path / "launch.json"
            argv[i].write_text(corrupt[arg])
    status, _, err = run(capsys, *argv)
    assert status == 1
    assert err.startswith("tessel: error: ") and message in err


def test_missing_tools_say_where(monkeypatch, tmp_path):
    monkeypatch.delenv("TESSEL_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(install, "_package_homes", lambda: [tmp_path])
    with pytest.raises(tessel.TesselError) as e:
        install.tool("tessel-opt")
    text = str(e.value)
    assert f"{tmp_path}/bin/tessel-opt (beside the package)" in text
    assert "tessel-opt (PATH)" in text and "TESSEL_HOME" in text


def test_tessel_home_is_the_only_place(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSEL_HOME", str(tmp_path))
    with pytest.raises(tessel.TesselError) as e:
        install.tool("tessel-opt")
    assert "($TESSEL_HOME)" in str(e.value)
    assert "PATH)" not in str(e.value)
    with pytest.raises(tessel.TesselError, match="libTesselCAPI.so"):
        install.capi_library()
    monkeypatch.setenv("TESSEL_CAPI_LIBRARY", str(tmp_path / "none.so"))
    with pytest.raises(tessel.TesselError, match=r"\$TESSEL_CAPI_LIBRARY"):
        install.capi_library()


def _triton():
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(cuda_available() and _triton(),
                    reason="with a GPU and Triton, tessel race races")
def test_race_needs_a_gpu(capsys):
    # Without Triton or a GPU the race says so and exits 1 (with both, it
    # races: bench/race_session.sh on the GPU host).
    with pytest.raises(SystemExit) as e:
        cli.main(["race", "--dtypes", "f16", "--shapes", "64"])
    assert e.value.code == 1
    assert "tessel race" in capsys.readouterr().err


def test_race_rounds_rotate_and_keep_failures():
    # Each round starts with the next contender, so none is always timed
    # first (a cooler GPU); a contender whose timing raises is timed no more
    # and its error is its result.
    from tessel.race import time_rounds
    order = []

    def bench(fn):
        order.append(fn())
        if fn() == "b" and len(order) > 3:
            raise RuntimeError("launch failed")
        return len(order)

    times = time_rounds({n: (lambda n=n: n) for n in "abc"}, 3, bench)
    assert order == ["a", "b", "c", "b", "c", "a", "c", "a"]
    assert times["a"] == [1, 6, 8] and times["c"] == [3, 5, 7]
    assert isinstance(times["b"], RuntimeError)
    assert time_rounds({}, 3, bench) == {}


def test_race_refuses_zero_rounds(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["race", "--rounds", "0", "--shapes", "64"])
    assert e.value.code == 2
    assert "--rounds 0: at least 1" in capsys.readouterr().err


def test_race_refuses_unknown_contenders(capsys):
    # The contenders raced only when asked for (tessel-rule, tessel-shipped)
    # are named among the known ones; anything else is refused up front.
    with pytest.raises(SystemExit) as e:
        cli.main(["race", "--contenders", "tessel,tessel-shiped",
                  "--shapes", "64"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "unknown contender 'tessel-shiped'" in err
    assert "tessel-rule, tessel-shipped, cublas+relu" in err


def test_tune_streams_its_report(capsys, tmp_path):
    # The report reaches stderr as the tuner runs (replayed: no GPU), with
    # progress lines; stdout says what was compiled.
    status, out, err = run(
        capsys, "tune", 1024, 1024, 1024, "--dtype", "f16", "--budget", 10,
        "--schedule", ROOT / "schedules" / "matmul_relu_mma.mlir",
        "--db", tmp_path / "t.db",
        "--replay", ROOT / "schedules/tuned/matmul_relu_mma-h100.json")
    assert status == 0
    assert "[tune]   10/10 " in err and "[tune] winner: " in err
    assert "[tune] 10/10 trials, best " in err and " s left" in err
    assert "matmul_relu" in out and "[tune]" not in out
