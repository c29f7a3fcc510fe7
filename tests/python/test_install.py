"""The installed package (what `pip install .` lays out: the `python` install
component) imports and runs a kernel outside the build tree."""
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

BUILD = pathlib.Path(__file__).resolve().parents[2] / "build"


@pytest.mark.skipif(shutil.which("cmake") is None or not (BUILD / "CMakeCache.txt").exists(),
                    reason="needs the CMake build tree")
def test_installed_package_imports_and_runs(tmp_path):
    subprocess.run(["cmake", "--install", str(BUILD), "--component", "python",
                    "--prefix", str(tmp_path)], check=True, capture_output=True)
    script = textwrap.dedent("""
        import numpy as np, tessera, tessera.language as tl
        assert tessera.__file__.startswith(%r), tessera.__file__

        @tessera.jit
        def add(x, y, out, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)

        n = 1000
        x, y = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
        out = np.zeros(n, np.float32)
        add[(tessera.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
        np.testing.assert_allclose(out, x + y, rtol=1e-6)
    """ % str(tmp_path))
    (tmp_path / "run_add.py").write_text(script)
    # PYTHONPATH comes before any .pth entry for the build tree; the script
    # checks that the installed copy is the one imported.
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    result = subprocess.run([sys.executable, str(tmp_path / "run_add.py")],
                            env=env, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
