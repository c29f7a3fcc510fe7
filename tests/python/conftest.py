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


@pytest.fixture
def kernel_error(tmp_path):
    """Compiles `body` (lines) as the kernel `bad(signature)` of a file of its
    own, launches it on one program with `args`, and returns the text of the
    CompilationError, which must name that file and the body's last line."""

    def compile_and_launch(signature, body, *args, **kwargs):
        lines = ["import tessera", "import tessera.language as tl", "", "", "@tessera.jit",
                 f"def bad({signature}):"] + ["    " + line for line in body]
        source = tmp_path / "kernels.py"
        source.write_text("\n".join(lines) + "\n")
        namespace = {}
        exec(compile(source.read_text(), str(source), "exec"), namespace)
        with pytest.raises(tessera.CompilationError) as error:
            namespace["bad"][(1,)](*args, **kwargs)
        assert f"{source}:{len(lines)}:" in str(error.value)
        return str(error.value)

    return compile_and_launch
