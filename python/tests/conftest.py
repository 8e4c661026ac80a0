"""Every test gets its own kernel cache; GPU tests skip without a GPU."""

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

H100 = "NVIDIA H100 80GB HBM3 (sm_90)"


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))


def cuda_available():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


requires_gpu = pytest.mark.skipif(not cuda_available(),
                                  reason="needs PyTorch with a CUDA GPU")
