"""The ctypes binding of libTesselCAPI.so, on a machine with or without a GPU."""

import pytest

import tessel
from conftest import cuda_available
from tessel import runtime


def test_version():
    assert runtime.version() == tessel.__version__


def test_function_spec():
    c = tessel.compile_matmul_relu(128, 256, 64, "bf16", knobs="tile_m=64,tile_n=64,stages=2")
    spec = runtime.FunctionSpec(c.launch_file)
    assert spec.name == "matmul_relu"
    assert [(a.dtype, a.shape, a.written) for a in spec.arguments] == [
        ("bf16", (128, 64), False), ("bf16", (64, 256), False),
        ("bf16", (128, 256), True)]


def test_missing_launch_file(tmp_path):
    with pytest.raises(tessel.TesselError, match="none.launch.json"):
        runtime.FunctionSpec(tmp_path / "none.launch.json")


@pytest.mark.parametrize("text,message", [
    ("{", "invalid JSON"),
    ('{"function": "f", "arguments": [], "launches": [{}]}', "launches"),
    ('{"function": "f", "arguments": [{"element_type": "f16", "shape": [4]}],'
     ' "results": [3], "launches": []}', "result"),
])
def test_malformed_launch_file(tmp_path, text, message):
    path = tmp_path / "f.launch.json"
    path.write_text(text)
    with pytest.raises(tessel.TesselError, match=message):
        runtime.FunctionSpec(path)


@pytest.mark.skipif(cuda_available(), reason="checks the no-GPU error")
def test_no_gpu_is_a_clear_error():
    with pytest.raises(tessel.TesselError, match="libcuda.so.1|no CUDA device"):
        runtime.Device.get(0)


def test_missing_library(monkeypatch, tmp_path):
    monkeypatch.setattr(runtime, "_lib", None)
    monkeypatch.setenv("TESSEL_CAPI_LIBRARY", str(tmp_path / "libTesselCAPI.so"))
    with pytest.raises(tessel.TesselError, match="cannot find libTesselCAPI.so"):
        runtime.library()
