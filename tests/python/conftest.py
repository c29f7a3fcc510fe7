"""Shared pytest fixtures: the backends to run on and fresh random data."""

import os

import numpy as np
import pytest

import tessera

BACKENDS = ["interpreter", "cpu"]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpu: runs on a CUDA or HIP device (skips without one); `pytest -m gpu` selects them")


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    """Runs the test once on the interpreter and once on the CPU backend
    (skipped when this build has no CPU lowering)."""
    if request.param == "cpu":
        if not tessera.cpu_available():
            pytest.skip("this build of tessera has no CPU lowering")
        monkeypatch.setenv("TESSERA_INTERPRET", "0")
    else:
        monkeypatch.setenv("TESSERA_INTERPRET", "1")
    assert tessera.default_backend() == request.param
    return request.param


@pytest.fixture
def rng(request):
    """A generator seeded afresh for every test; the seed is reported on failure."""
    seed = int.from_bytes(os.urandom(4), "little")
    request.node.user_properties.append(("seed", seed))
    print(f"random seed: {seed}")
    return np.random.default_rng(seed)
